/** Real MCP servers from npm (MCP Apps nobody here wrote), as the files of a LineUp bundle and a generated manifest. */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { AppManifest, AppScope } from "@lineup/protocol";
import { manifestFromMcp, type McpToolInfo } from "../../src/index.js";
import { describeMcpServer } from "../../src/node/index.js";

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
  return { manifest: manifestFromMcp({ app_scope: appScope as AppScope, version: "1.0.0", name: described.server.name, entry: "server/index.js", args: ["--stdio"], tools }), tools };
}
