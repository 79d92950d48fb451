/**
 * `lineup mcp --session <id|new> --url ws://… (--token … | --credentials …)`: one session as an MCP server
 * on stdin/stdout, for an MCP client that starts it as a child process. stdout carries only MCP; what the
 * command has to say goes to stderr. It ends when the client closes stdin, or on SIGINT/SIGTERM.
 */
import { parseArgs } from "node:util";
import { UsageError, createLogger } from "@lineup/protocol";
import { connectAgent, tokenFrom } from "@lineup/agent-sdk/node";
import { logDiagnostics, type AgentClient } from "@lineup/agent-sdk";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createLineUpMcpServer, type LineUpMcpServer } from "../server.js";

export const MCP_CLI_USAGE = `usage: lineup mcp --session <SESSION_ID|new> --url ws://HOST:PORT/rpc (--token AGENT_TOKEN | --credentials dev-credentials.json) [--verbose]

  Serves one LineUp session as an MCP server on stdio: the session's tools, and lineup.next_message /
  lineup.reply / lineup.ask for the conversation. "new" waits for the next session bound to the agent.
  --url and --token also come from LINEUP_APP_SERVER_URL and LINEUP_AGENT_TOKEN.`;

export interface McpCliIo {
  /** Lines for the person running it (stderr: stdout is the MCP channel). */
  readonly error: (line: string) => void;
}

/**
 * Serves until the client closes stdin or a signal arrives; returns 0. Throws `UsageError` (or a parseArgs
 * error) for a command line it cannot run, and any other failure (the AppServer unreachable, a wrong
 * token, a session the agent is not bound to) as an error whose first line says what: run it under
 * `runCommand` (`lineup mcp`) for the exit codes 2 and 1.
 */
export async function serveMcpStdio(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: McpCliIo): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: { session: { type: "string" }, url: { type: "string" }, token: { type: "string" }, credentials: { type: "string" }, verbose: { type: "boolean" } },
  });
  const url = values.url ?? env["LINEUP_APP_SERVER_URL"];
  const token = tokenFrom(values, "agent_token", env);
  if (values.session === undefined || values.session === "") throw new UsageError("name the session: --session SESSION_ID, or --session new");
  if (url === undefined || token === undefined) throw new UsageError("--url and --token (or --credentials) are required");
  const diagnostics = logDiagnostics(createLogger({ level: values.verbose === true ? "debug" : "info", write: (line) => io.error(line.trimEnd()), bindings: { name: "lineup-mcp" } }));
  const client: AgentClient = await connectAgent({ url, token, diagnostics, clientInfo: { name: "lineup-mcp", version: "0.1.0" } });
  let mcp: LineUpMcpServer;
  try {
    mcp = await createLineUpMcpServer({ client, session: values.session, diagnostics });
  } catch (error) {
    await client.close();
    throw error;
  }
  void mcp.session.then((id) => io.error(`[mcp] serving session ${id} as agent ${client.agentId}`));
  if (mcp.sessionId() === undefined) io.error(`[mcp] agent ${client.agentId}: waiting for the next session bound to it`);
  const transport = new StdioServerTransport();
  const ended = new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      process.stdin.off("end", stop);
      resolve();
    };
    transport.onclose = stop;
    process.stdin.on("end", stop);
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  await mcp.server.connect(transport);
  await ended;
  await mcp.close();
  await client.close();
  return 0;
}
