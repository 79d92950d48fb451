/**
 * `lineup mcp --session <id|new> --url ws://… (--token … | --credentials …)`: one session as an MCP server
 * on stdin/stdout, for an MCP client that starts it as a child process. stdout carries only MCP; what the
 * command has to say goes to stderr. It ends when the client closes stdin, or on SIGINT/SIGTERM.
 */
import { parseArgs } from "node:util";
import { agentTokenFrom, connectAgent } from "@lineup/agent-sdk/node";
import type { Diagnostic } from "@lineup/agent-sdk";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createLineUpMcpServer } from "../server.js";

export const MCP_CLI_USAGE = `usage: lineup mcp --session <SESSION_ID|new> --url ws://HOST:PORT/rpc (--token AGENT_TOKEN | --credentials dev-credentials.json) [--verbose]

  Serves one LineUp session as an MCP server on stdio: the session's tools, and lineup.next_message /
  lineup.reply / lineup.ask for the conversation. "new" waits for the next session bound to the agent.
  --url and --token also come from LINEUP_APP_SERVER_URL and LINEUP_AGENT_TOKEN.`;

export interface McpCliIo {
  /** Lines for the person running it (stderr: stdout is the MCP channel). */
  readonly error: (line: string) => void;
}

/** Runs until the client closes stdin or a signal arrives; returns the exit code (2 for usage, 1 when it could not start). */
export async function runMcpStdio(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: McpCliIo): Promise<number> {
  let values: { session?: string; url?: string; token?: string; credentials?: string; verbose?: boolean; help?: boolean };
  let token: string | undefined;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { session: { type: "string" }, url: { type: "string" }, token: { type: "string" }, credentials: { type: "string" }, verbose: { type: "boolean" }, help: { type: "boolean" } },
    }));
    token = values.token ?? (values.credentials === undefined ? env["LINEUP_AGENT_TOKEN"] : agentTokenFrom(values.credentials));
  } catch (error) {
    io.error(`${error instanceof Error ? error.message : String(error)}\n\n${MCP_CLI_USAGE}`);
    return 2;
  }
  const url = values.url ?? env["LINEUP_APP_SERVER_URL"];
  if (values.help === true || values.session === undefined || url === undefined || token === undefined) {
    io.error(values.help === true ? MCP_CLI_USAGE : `--session, --url and --token (or --credentials) are required\n\n${MCP_CLI_USAGE}`);
    return 2;
  }
  const diagnostics = (d: Diagnostic): void => {
    if (values.verbose === true || d.kind === "agent_error" || d.kind === "session_error" || d.kind === "reconnect") io.error(`[mcp] ${d.kind}: ${d.message}`);
  };
  let client;
  let mcp;
  try {
    client = await connectAgent({ url, token, diagnostics, clientInfo: { name: "lineup-mcp", version: "0.1.0" } });
    mcp = await createLineUpMcpServer({ client, session: values.session, diagnostics });
  } catch (error) {
    io.error(`lineup mcp: ${error instanceof Error ? error.message : String(error)}`);
    await client?.close();
    return 1;
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
