/**
 * `lineup app from-mcp --scope NAME --key PRIVATE_KEY [--version V] [--out FILE] -- node SERVER.js [ARGS…]`
 * (issue 22 §2, docs/bundle.md "An MCP server as an app"): starts the MCP server with the SDK's own client over stdio,
 * reads its tools and resources, and writes a signed bundle that wraps it: the server's folder (every file beside and
 * under its entry) as `server/`, the type of its nearest `package.json`, and a manifest made from its tools
 * (`manifestFromMcp`: an `mcp-stdio` back-end run with ARGS, one tool per MCP tool, its view when it names one, with
 * the origins that view's resource declares, read from the server now, and `link.open` when it has a view).
 * A person installs it through Apps with the usual review. The Runtime runs the server on Node only, so the command
 * must be `node` and a `.js`, `.mjs` or `.cjs` file.
 */
import { readFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { isAppScope, LineUpError, UsageError } from "@lineup/protocol";
import { manifestFromMcp, packBundle, type McpToolInfo } from "@lineup/runtime";
import { describeMcpServer, readDirectoryFiles, signFile, writeBundleFile } from "@lineup/runtime/node";
import type { CliIo, Command, LoadedCommand } from "../io.js";

export const APP_USAGE = "usage: lineup app from-mcp --scope NAME --key PRIVATE_KEY [--version V] [--out FILE] -- node SERVER.js [ARGS…]";
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

interface Request {
  readonly scope: string;
  readonly key: string;
  readonly version: string;
  readonly out: string;
  readonly entry: string;
  readonly args: readonly string[];
}

function parse(argv: readonly string[]): Request | string {
  const split = argv.indexOf("--");
  if (split < 0) return "the server's command follows --";
  const flags = new Map<string, string>();
  const own = argv.slice(0, split);
  for (let i = 0; i < own.length; i += 2) {
    const [name, value] = [own[i]!, own[i + 1]];
    if (!["--scope", "--key", "--version", "--out"].includes(name) || value === undefined || value.startsWith("--")) return `unknown or incomplete option ${name}`;
    flags.set(name, value);
  }
  const [program, entry, ...args] = argv.slice(split + 1);
  const scope = flags.get("--scope");
  if (scope === undefined || !isAppScope(scope)) return "--scope names the app: lowercase words joined by hyphens (2–40 characters)";
  const key = flags.get("--key");
  if (key === undefined) return "--key names the publisher's private key the bundle is signed with";
  const version = flags.get("--version") ?? "1.0.0";
  if (!SEMVER.test(version)) return `--version ${version} is not a semantic version`;
  if (program === undefined || !/^node(?:js)?$/.test(basename(program))) return "the server runs on Node: its command is node SERVER.js [ARGS…]";
  if (entry === undefined || !/\.(?:m?js|cjs)$/.test(entry)) return "the server's entry is a .js, .mjs or .cjs file";
  return { scope, key, version, out: flags.get("--out") ?? `${scope}.lineup`, entry: resolve(entry), args };
}

/** The `type` of the nearest `package.json` above `dir` (how Node reads a `.js` file there). */
async function moduleType(dir: string): Promise<string> {
  for (let at = dir; ; at = dirname(at)) {
    try {
      const type = (JSON.parse(await readFile(join(at, "package.json"), "utf8")) as { type?: unknown }).type;
      return type === "module" ? "module" : "commonjs";
    } catch {
      if (dirname(at) === at) return "commonjs";
    }
  }
}

export const appFromMcpCommand: Command = async (argv, io) => {
  const request = parse(argv);
  if (typeof request === "string") throw new UsageError(request);
  const refused = (code: string, message: string): number => {
    io.err(`refused: ${code}: ${message}`);
    return 1;
  };
  const folder = dirname(request.entry);
  let described;
  try {
    described = await describeMcpServer(new StdioClientTransport({ command: process.execPath, args: [request.entry, ...request.args], cwd: folder, stderr: "ignore" }));
  } catch (error) {
    return refused(error instanceof LineUpError ? error.code : "handler_failed", `the MCP server did not answer: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (described.tools.length === 0) return refused("manifest_invalid", "the MCP server lists no tools: there is nothing to offer the agent");
  const read = await readDirectoryFiles(folder);
  if (!read.ok) return refused(read.error.code, read.error.message);
  const files = new Map<string, Uint8Array>([...read.value].filter(([path]) => path !== "package.json" && !path.startsWith("node_modules/")).map(([path, bytes]) => [`server/${path}`, bytes]));
  files.set("server/package.json", new TextEncoder().encode(`${JSON.stringify({ type: await moduleType(folder) })}\n`));
  const entry = `server/${relative(folder, request.entry).split("\\").join("/")}`;
  const manifest = manifestFromMcp({
    app_scope: request.scope as Parameters<typeof manifestFromMcp>[0]["app_scope"],
    version: request.version,
    name: described.server.title ?? described.server.name,
    ...(described.instructions === undefined ? {} : { description: described.instructions }),
    entry,
    args: request.args,
    tools: described.tools as unknown as McpToolInfo[],
    views: described.views,
  });
  files.set("index.html", new TextEncoder().encode(`<!doctype html><meta charset="utf-8"><title>${request.scope}</title>\n`));
  const packed = await packBundle({ manifest, files, compression: "deflate" });
  if (!packed.ok) return refused(packed.error.code, `${packed.error.path === undefined ? "" : `at ${packed.error.path}: `}${packed.error.message}`);
  await writeBundleFile(request.out, packed.value);
  const signed = await signFile(request.out, request.key);
  if (!signed.ok) return refused(signed.error.code, signed.error.message);
  const views = (manifest.tools ?? []).filter((t) => t.view !== undefined).length;
  io.out(`wrote ${request.out}: ${request.scope} ${request.version}, ${manifest.tools!.length} tools from ${described.server.name} (${views} with a view), ${described.resources.length} resources, signed (${signed.value.bytes} bytes)`);
  for (const tool of manifest.tools ?? []) {
    const origins = [...(tool.view?.csp?.connect_domains ?? []), ...(tool.view?.csp?.resource_domains ?? [])];
    io.out(`  ${tool.method} ← ${tool.backend!.method}${tool.view === undefined ? "" : ` (view ${tool.view.resource_uri}${origins.length === 0 ? "" : `, may ask to reach ${origins.join(" ")}`})`}`);
  }
  return 0;
};

/** `lineup app <subcommand>`: apps made from other things. */
export const appCommand: Command = async (argv, io: CliIo) => {
  if (argv[0] !== "from-mcp") throw new UsageError(argv[0] === undefined ? "expected a subcommand: from-mcp" : `unknown subcommand "${argv[0]}"`);
  return appFromMcpCommand(argv.slice(1), io);
};

export const appCli: LoadedCommand = { run: appCommand, usage: APP_USAGE };
