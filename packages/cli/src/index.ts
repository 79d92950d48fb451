/**
 * `lineup`: one command table for every subcommand, all run under the conventions of `runCommand`. A command's code
 * (and what it needs: the AppServer, the Runtime, the MCP SDK, esbuild) is loaded when that command runs, so
 * `lineup --help` or `lineup verify` does not load every other command's dependencies first.
 */
import type { CliIo, CommandEntry } from "./io.js";

export { processIo, type CliIo, type Command, type CommandEntry, type LoadedCommand } from "./io.js";

export const CLI_VERSION = "0.1.0";

export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  server: { summary: "run the reference AppServer (lineup server --help lists its settings)", load: async () => (await import("./commands/server.js")).serverCli },
  admin: { summary: "manage a running AppServer's users, devices, agents, pairing codes and tenants", load: async () => (await import("./commands/admin.js")).adminCli },
  agent: { summary: "run a remote agent: demo | llm (--url --token | --credentials)", load: async () => (await import("./commands/agent.js")).agentCli },
  mcp: { summary: "serve a session to an MCP client on stdio (--session ID|new --url --token | --credentials)", load: async () => (await import("./commands/mcp.js")).mcpCli },
  chat: { summary: "terminal chat on the Runtime (--url --token [--data DIR] [--agent ID])", load: async () => (await import("./commands/chat.js")).chatCli },
  keygen: { summary: "make a publisher key pair: keygen DIR", load: async () => (await import("./commands/bundle.js")).keygenCli },
  pack: { summary: "pack an app directory into a bundle: pack APP_DIR OUT.lineup", load: async () => (await import("./commands/bundle.js")).packCli },
  sign: { summary: "sign a bundle: sign BUNDLE PRIVATE_KEY", load: async () => (await import("./commands/bundle.js")).signCli },
  verify: { summary: "verify a bundle against trusted keys: verify BUNDLE TRUSTED_KEYS.json", load: async () => (await import("./commands/bundle.js")).verifyCli },
  evidence: { summary: "check an evidence pack offline and list its provenance: evidence verify PACK [--json]", load: async () => (await import("./commands/evidence.js")).evidenceCli },
  app: { summary: "wrap an MCP server as a signed app: app from-mcp --scope NAME --key KEY -- node SERVER.js [ARGS]", load: async () => (await import("./commands/app-from-mcp.js")).appCli },
  new: { summary: "scaffold an app that builds and passes its own test: new app NAME [--dir DIR]", load: async () => (await import("./commands/new-app.js")).newAppCli },
  dev: { summary: "publish an app to the catalog as a dev release now and on every change: dev APP_DIR --key KEY_DIR --url URL --token T", load: async () => (await import("./commands/dev.js")).devCli },
  publish: { summary: "upload a signed bundle to the AppServer's catalog: publish BUNDLE --publisher KEY.pub.json --url URL --token T", load: async () => (await import("./commands/publish.js")).publishCli },
  "build-app": { summary: "build an app into one HTML page + manifest: build-app APP_DIR [--out DIR]", load: async () => (await import("./commands/build-app.js")).buildAppCli },
};

export function usage(commands: Readonly<Record<string, CommandEntry>> = COMMANDS): string {
  const width = Math.max(...Object.keys(commands).map((k) => k.length));
  return [
    "usage: lineup <command> [args]   (lineup <command> --help for its own)",
    "",
    ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
  ].join("\n");
}

/** Runs one command line of `commands` (the table above unless a test gives another); returns the exit code (0 done, 1 failed, 2 usage). */
export async function runCli(argv: readonly string[], io: CliIo, commands: Readonly<Record<string, CommandEntry>> = COMMANDS): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "help" || name === "--help" || name === "-h") {
    io.out(usage(commands));
    return 0;
  }
  if (name === "--version") {
    io.out(`lineup ${CLI_VERSION}`);
    return 0;
  }
  const command = name === undefined ? undefined : Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (command === undefined) {
    if (name !== undefined) io.err(name.startsWith("-") ? `lineup: unknown option ${name}` : `lineup: unknown command "${name}"`);
    io.err(usage(commands));
    return 2;
  }
  const ready = await Promise.all([import("@lineup/protocol"), command.load()]).catch((error: unknown) => {
    // A broken install: one line, as any failure, and no stack.
    io.err(`lineup ${name}: cannot load the command: ${(error instanceof Error ? error.message : String(error)).split("\n", 1)[0]}`);
    return undefined;
  });
  if (ready === undefined) return 1;
  const [{ runCommand }, loaded] = ready;
  return runCommand({ name: `lineup ${name}`, version: CLI_VERSION, usage: () => loaded.usage, run: (args) => loaded.run(args, io) }, rest, io);
}
