/** `lineup`: one command table for every subcommand. */
import { agentCommand } from "./commands/agent.js";
import { appCommand } from "./commands/app-from-mcp.js";
import { buildAppCommand } from "./commands/build-app.js";
import { chatCommand } from "./commands/chat.js";
import { evidenceCommand } from "./commands/evidence.js";
import { keygenCommand, packCommand, signCommand, verifyCommand } from "./commands/bundle.js";
import { serverCommand } from "./commands/server.js";
import type { CliIo, Command } from "./io.js";

export { processIo, type CliIo, type Command } from "./io.js";

export const COMMANDS: Readonly<Record<string, { readonly run: Command; readonly summary: string }>> = {
  server: { run: serverCommand, summary: "run the reference AppServer (--data DIR --port N)" },
  agent: { run: agentCommand, summary: "run a remote agent: demo | llm (--url --token | --credentials)" },
  chat: { run: chatCommand, summary: "terminal chat on the Runtime (--url --token [--data DIR] [--agent ID])" },
  keygen: { run: keygenCommand, summary: "make a publisher key pair: keygen DIR" },
  pack: { run: packCommand, summary: "pack an app directory into a bundle: pack APP_DIR OUT.lineup" },
  sign: { run: signCommand, summary: "sign a bundle: sign BUNDLE PRIVATE_KEY" },
  verify: { run: verifyCommand, summary: "verify a bundle against trusted keys: verify BUNDLE TRUSTED_KEYS.json" },
  evidence: { run: evidenceCommand, summary: "check an evidence pack offline and list its provenance: evidence verify PACK [--json]" },
  app: { run: appCommand, summary: "wrap an MCP server as a signed app: app from-mcp --scope NAME --key KEY -- node SERVER.js [ARGS]" },
  "build-app": { run: buildAppCommand, summary: "build an app into one HTML page + manifest: build-app APP_DIR [--out DIR]" },
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((k) => k.length));
  return ["usage: lineup <command> [args]", "", ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)].join("\n");
}

/** Runs one command line; returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (command === undefined) {
    io.err(name === undefined || name === "help" || name === "--help" ? usage() : `unknown command "${name}"\n\n${usage()}`);
    return name === "help" || name === "--help" ? 0 : 2;
  }
  return command.run(rest, io);
}
