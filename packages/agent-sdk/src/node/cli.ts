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
import { decodeJson } from "@lineup/protocol";
import { connectAgent, type AgentClient } from "../agent-client.js";
import { runDemoAgent } from "../demo-agent.js";
import type { Diagnostic } from "../lifecycle.js";
import { llmConfigFromEnv } from "../llm/chat-completions.js";
import { runLlmAgent } from "../llm-agent.js";
import type { TurnRunner } from "../turn-runner.js";
import { nodeWebSocketTransport } from "./ws-transport.js";

export const AGENT_CLI_USAGE = `usage: lineup agent demo|llm --url ws://HOST:PORT/rpc (--token TOKEN | --credentials dev-credentials.json) [--verbose]

  demo   the demo agent: Markdown replies, cards, app tools — no model service
  llm    an agent backed by an OpenAI-compatible /chat/completions endpoint
         (LINEUP_LLM_BASE_URL, LINEUP_LLM_API_KEY, LINEUP_LLM_MODEL; else OPENAI_BASE_URL, OPENAI_API_KEY)`;

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

/** The `agent_token` of a dev-credentials.json; throws, naming the file, when it has none. */
export function agentTokenFrom(credentials: string): string {
  const parsed = decodeJson(readFileSync(credentials, "utf8"));
  const token = parsed.ok && typeof parsed.value === "object" && parsed.value !== null && !Array.isArray(parsed.value) ? parsed.value["agent_token"] : undefined;
  if (typeof token !== "string") throw new Error(`${credentials} has no agent_token`);
  return token;
}

/** Parses the arguments, connects and starts the agent. Throws with a usage message on bad input. */
export async function startAgentCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env, io: AgentCliIo = defaultIo): Promise<RunningAgent> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { url: { type: "string" }, token: { type: "string" }, credentials: { type: "string" }, verbose: { type: "boolean" }, help: { type: "boolean" } },
  });
  const mode = positionals[0];
  if (values.help === true || (mode !== "demo" && mode !== "llm")) throw new Error(AGENT_CLI_USAGE);
  const url = values.url ?? env["LINEUP_APP_SERVER_URL"];
  const token = values.token ?? (values.credentials === undefined ? env["LINEUP_AGENT_TOKEN"] : agentTokenFrom(values.credentials));
  if (url === undefined || token === undefined) throw new Error(`--url and --token (or --credentials) are required\n\n${AGENT_CLI_USAGE}`);
  const llm = mode === "llm" ? llmConfigFromEnv(env) : undefined;
  if (mode === "llm" && llm === undefined) throw new Error("the llm agent needs LINEUP_LLM_BASE_URL or OPENAI_BASE_URL (and usually LINEUP_LLM_API_KEY or OPENAI_API_KEY, and LINEUP_LLM_MODEL)");

  const verbose = values.verbose === true;
  const diagnostics = (d: Diagnostic): void => {
    if (verbose || d.kind === "agent_error" || d.kind === "session_error" || d.kind === "reconnect") io.error(`[agent] ${d.kind}: ${d.message}${d.error instanceof Error && verbose ? ` (${d.error.message})` : ""}`);
  };
  const client = await connectAgent({ url, token, transport: nodeWebSocketTransport(), diagnostics, clientInfo: { name: `lineup-agent-${mode}`, version: "0.1.0" } });
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

/** Runs until SIGINT/SIGTERM; returns the process exit code. */
export async function runAgentCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env, io: AgentCliIo = defaultIo): Promise<number> {
  let running: RunningAgent;
  try {
    running = await startAgentCli(argv, env, io);
  } catch (error) {
    io.error(error instanceof Error ? error.message : String(error));
    return 2;
  }
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
