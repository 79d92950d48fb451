/** Real MCP servers from npm (MCP Apps nobody here wrote), as the files of a LineUp bundle and a generated manifest. */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { AppManifest, AppScope } from "@lineup/protocol";
import { manifestFromMcp, type McpToolInfo } from "../../src/index.js";
import { describeMcpServer } from "../../src/node/index.js";
import { slack } from "../../../../test/support/soak.js";

const require = createRequire(import.meta.url);

/** The folder of an npm MCP server's built program (`dist/`). */
export const npmServerDist = (pkg: string): string => dirname(require.resolve(pkg));

/** The files of an npm MCP server's `dist/` folder, as bundle files under `server/`, with its `package.json` type. */
export function npmServerFiles(pkg: string): Record<string, string> {
  const dist = npmServerDist(pkg);
  const files: Record<string, string> = { "server/package.json": '{"type":"module"}\n' };
  for (const name of readdirSync(dist)) if (/\.(?:js|html)$/.test(name)) files[`server/${name}`] = readFileSync(join(dist, name), "utf8");
  return files;
}

/** What the server says of itself, read by the SDK's own client over stdio (as `lineup app from-mcp` does), as a manifest. */
export async function npmServerManifest(pkg: string, appScope: string): Promise<{ manifest: AppManifest; tools: McpToolInfo[] }> {
  const described = await describeMcpServer(new StdioClientTransport({ command: process.execPath, args: [join(npmServerDist(pkg), "index.js"), "--stdio"], stderr: "ignore" }));
  const tools = described.tools as unknown as McpToolInfo[];
  return { manifest: manifestFromMcp({ app_scope: appScope as AppScope, version: "1.0.0", name: described.server.name, entry: "server/index.js", args: ["--stdio"], tools, views: described.views }), tools };
}

/** A hand-written MCP server that misbehaves on request: one tool per fault. */
export const HOSTILE = `
import { createInterface } from "node:readline";
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize") return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "1.0.0" } } });
  if (m.id === undefined) return;
  if (m.method !== "tools/call") return send({ jsonrpc: "2.0", id: m.id, result: {} });
  const answer = (result) => send({ jsonrpc: "2.0", id: m.id, result });
  switch (m.params.name) {
    case "ok": return answer({ content: [{ type: "text", text: "fine" }], structuredContent: { pid: process.pid } });
    case "garbage": return process.stdout.write("this is not JSON-RPC\\n");
    case "flood": for (let i = 0; i < 20000; i++) send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: i } }); return answer({ content: [], structuredContent: { pid: process.pid } });
    case "huge": return answer({ content: [{ type: "text", text: "x".repeat(2 * 1024 * 1024) }], structuredContent: { pid: process.pid } });
    case "badshape": return answer({ content: [], structuredContent: { pid: "not a number" } });
    case "hang": return;
  }
});
`;

export const NOTE_TOOL = { name: "add-note", inputSchema: { type: "object", required: ["text"], properties: { text: { type: "string" } } }, outputSchema: { type: "object", required: ["kept"], properties: { kept: { type: "number" } } } } satisfies McpToolInfo;

export const HOSTILE_TOOLS = ["ok", "garbage", "flood", "huge", "badshape", "hang"];
/** The MCP App from npm the back-end tests run: a server with one tool and its view. */
export const BUDGET_ALLOCATOR = "@modelcontextprotocol/server-budget-allocator";
/** A hostile server's call limit with room for a program's start on a loaded machine (its hang still ends there). */
export const HOSTILE_LOADED_TIMEOUT_MS = 5_000;

/** The hostile server as an app; `callTimeoutMs` (longer under the soak: `slack`) bounds each call (its hang ends there). */
export function hostileManifest(callTimeoutMs = 1_500): AppManifest {
  const output = { type: "object", required: ["pid"], properties: { pid: { type: "integer" } } };
  const generated = manifestFromMcp({
    app_scope: "hostile" as AppScope,
    version: "1.0.0",
    name: "Hostile",
    entry: "server/index.mjs",
    tools: HOSTILE_TOOLS.map((name): McpToolInfo => ({ name, inputSchema: { type: "object" }, outputSchema: output })),
    memory_mb: 128,
    call_timeout_ms: slack(callTimeoutMs),
  });
  return { ...generated, backends: generated.backends!.map((b) => ({ ...b, restart: { policy: "on-failure", max_restarts: 20, backoff_ms: 10 } })) };
}
