/**
 * `lineup agent demo|llm --url ws://… --token …`: runs the demo agent or the LLM adapter until
 * SIGINT/SIGTERM. The `@lineup/cli` package wraps `runAgentCli`; `src/bin.ts` runs it directly.
 *
 * Options (each also from the environment):
 *   --url URL            LINEUP_APP_SERVER_URL   the App Server, e.g. ws://127.0.0.1:8787/rpc
 *   --token TOKEN        LINEUP_AGENT_TOKEN      the agent's token
 *   --credentials FILE                           read `agent_token` from a dev-credentials.json
 *   --verbose                                    log every diagnostic
 * The llm mode needs LINEUP_LLM_BASE_URL (and usually LINEUP_LLM_API_KEY, LINEUP_LLM_MODEL); OPENAI_BASE_URL
 * and OPENAI_API_KEY stand in for the first two when they are not set.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { UsageError, createLogger, decodeJson, runCommand } from "@lineup/protocol";
import { connectAgent, type AgentClient } from "../agent-client.js";
import { runDemoAgent } from "../demo-agent.js";
import { logDiagnostics } from "../lifecycle.js";
import { llmConfigFromEnv } from "../llm/chat-completions.js";
import { runLlmAgent } from "../llm-agent.js";
import type { TurnRunner } from "../turn-runner.js";
import { nodeWebSocketTransport } from "./ws-transport.js";

export const AGENT_CLI_USAGE = `usage: lineup agent demo|llm --url ws://HOST:PORT/rpc (--token TOKEN | --credentials dev-credentials.json) [--verbose]

  demo   the demo agent: Markdown replies, cards, app tools — no model service
  llm    an agent backed by an OpenAI-compatible /chat/completions endpoint
         (LINEUP_LLM_BASE_URL, LINEUP_LLM_API_KEY, LINEUP_LLM_MODEL; else OPENAI_BASE_URL, OPENAI_API_KEY)`;

export const AGENT_SDK_VERSION = "0.1.0";

export interface RunningAgent {
  readonly client: AgentClient;
  readonly runner: TurnRunner;
  stop(): Promise<void>;
}

export interface AgentCliIo {
  readonly log: (line: string) => void;
  readonly error: (line: string) => void;
}

const defaultIo: AgentCliIo = { log: (l) => console.log(l), error: (l) => console.error(l) };

/** One token of a dev-credentials.json (`agent_token`, `device_token`); a file that cannot be read or holds none fails in one line. */
export function credentialFrom(file: string, field: "agent_token" | "device_token"): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`cannot read the credentials file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
  const parsed = decodeJson(text);
  const token = parsed.ok && typeof parsed.value === "object" && parsed.value !== null && !Array.isArray(parsed.value) ? parsed.value[field] : undefined;
  if (typeof token !== "string") throw new Error(`${file} has no ${field}`);
  return token;
}

const TOKEN_VARIABLES = { agent_token: "LINEUP_AGENT_TOKEN", device_token: "LINEUP_DEVICE_TOKEN" } as const;

/**
 * The token a command line names: `--token`, else `--credentials`' file's `field`, else its environment variable
 * (`LINEUP_AGENT_TOKEN` / `LINEUP_DEVICE_TOKEN`); undefined when none is given.
 */
export function tokenFrom(values: { readonly token?: string; readonly credentials?: string }, field: "agent_token" | "device_token", env: Readonly<Record<string, string | undefined>>): string | undefined {
  return values.token ?? (values.credentials === undefined ? env[TOKEN_VARIABLES[field]] : credentialFrom(values.credentials, field));
}

/** Parses the arguments, connects and starts the agent. Throws a `UsageError` (or parseArgs' error) for a bad command line. */
export async function startAgentCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env, io: AgentCliIo = defaultIo): Promise<RunningAgent> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { url: { type: "string" }, token: { type: "string" }, credentials: { type: "string" }, verbose: { type: "boolean" } },
  });
  const mode = positionals[0];
  if (mode !== "demo" && mode !== "llm") throw new UsageError(mode === undefined ? "name the agent: demo or llm" : `unknown agent ${JSON.stringify(mode)}: demo or llm`);
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[1])}`);
  const url = values.url ?? env["LINEUP_APP_SERVER_URL"];
  const token = tokenFrom(values, "agent_token", env);
  if (url === undefined || token === undefined) throw new UsageError("--url and --token (or --credentials) are required");
  const llm = mode === "llm" ? llmConfigFromEnv(env) : undefined;
  if (mode === "llm" && llm === undefined) throw new Error("the llm agent needs LINEUP_LLM_BASE_URL or OPENAI_BASE_URL (and usually LINEUP_LLM_API_KEY or OPENAI_API_KEY, and LINEUP_LLM_MODEL)");

  const verbose = values.verbose === true;
  const diagnostics = logDiagnostics(createLogger({ level: verbose ? "debug" : "info", write: (line) => io.error(line.trimEnd()), bindings: { name: `lineup-agent-${mode}` } }));
  const client = await connectAgent({ url, token, transport: nodeWebSocketTransport(), diagnostics, clientInfo: { name: `lineup-agent-${mode}`, version: AGENT_SDK_VERSION } });
  client.onStateChange((state) => io.log(`[agent] connection ${state}`));
  client.onSession((session) => io.log(`[agent] following session ${session.session_id} (${session.app_scope})`));
  const runner = llm === undefined ? runDemoAgent(client, { diagnostics }) : runLlmAgent(client, { llm, diagnostics });
  io.log(`[agent] ${mode} agent ${client.agentId} connected to ${url}`);
  return {
    client,
    runner,
    async stop() {
      runner.dispose();
      await client.close();
    },
  };
}

/** Starts the agent and runs it until SIGINT/SIGTERM; throws what `startAgentCli` throws. */
export async function serveAgentCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env, io: AgentCliIo = defaultIo): Promise<number> {
  const running = await startAgentCli(argv, env, io);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  await running.stop();
  return 0;
}

/** The agent's command line under the LineUp conventions (help, version, exit codes 0/1/2); returns the exit code. */
export function runAgentCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env, io: AgentCliIo = defaultIo, name = "lineup agent"): Promise<number> {
  return runCommand({ name, version: AGENT_SDK_VERSION, usage: () => AGENT_CLI_USAGE, run: (args) => serveAgentCli(args, env, io) }, argv, { out: io.log, err: io.error });
}
