/** `lineup`: one command table for every subcommand, all run under the conventions of `runCommand`. */
import { runCommand } from "@lineup/protocol";
import { AGENT_CLI_USAGE } from "@lineup/agent-sdk/node";
import { serverHelp } from "@lineup/app-server";
import { ADMIN_USAGE, adminCommand } from "./commands/admin.js";
import { agentCommand } from "./commands/agent.js";
import { APP_USAGE, appCommand } from "./commands/app-from-mcp.js";
import { BUILD_APP_USAGE, buildAppCommand } from "./commands/build-app.js";
import { CHAT_USAGE, chatCommand } from "./commands/chat.js";
import { DEV_USAGE, devCommand } from "./commands/dev.js";
import { EVIDENCE_USAGE, evidenceCommand } from "./commands/evidence.js";
import { KEYGEN_USAGE, PACK_USAGE, SIGN_USAGE, VERIFY_USAGE, keygenCommand, packCommand, signCommand, verifyCommand } from "./commands/bundle.js";
import { MCP_USAGE, mcpCommand } from "./commands/mcp.js";
import { NEW_USAGE, newCommand } from "./commands/new-app.js";
import { PUBLISH_USAGE, publishCommand } from "./commands/publish.js";
import { serverCommand } from "./commands/server.js";
import type { CliIo, CommandEntry } from "./io.js";

export { processIo, type CliIo, type Command, type CommandEntry } from "./io.js";

export const CLI_VERSION = "0.1.0";

export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  server: { run: serverCommand, summary: "run the reference AppServer (lineup server --help lists its settings)", usage: serverHelp() },
  admin: { run: adminCommand, summary: "manage a running AppServer's users, devices, agents, pairing codes and tenants", usage: ADMIN_USAGE },
  agent: { run: agentCommand, summary: "run a remote agent: demo | llm (--url --token | --credentials)", usage: AGENT_CLI_USAGE },
  mcp: { run: mcpCommand, summary: "serve a session to an MCP client on stdio (--session ID|new --url --token | --credentials)", usage: MCP_USAGE },
  chat: { run: chatCommand, summary: "terminal chat on the Runtime (--url --token [--data DIR] [--agent ID])", usage: CHAT_USAGE },
  keygen: { run: keygenCommand, summary: "make a publisher key pair: keygen DIR", usage: KEYGEN_USAGE },
  pack: { run: packCommand, summary: "pack an app directory into a bundle: pack APP_DIR OUT.lineup", usage: PACK_USAGE },
  sign: { run: signCommand, summary: "sign a bundle: sign BUNDLE PRIVATE_KEY", usage: SIGN_USAGE },
  verify: { run: verifyCommand, summary: "verify a bundle against trusted keys: verify BUNDLE TRUSTED_KEYS.json", usage: VERIFY_USAGE },
  evidence: { run: evidenceCommand, summary: "check an evidence pack offline and list its provenance: evidence verify PACK [--json]", usage: EVIDENCE_USAGE },
  app: { run: appCommand, summary: "wrap an MCP server as a signed app: app from-mcp --scope NAME --key KEY -- node SERVER.js [ARGS]", usage: APP_USAGE },
  new: { run: newCommand, summary: "scaffold an app that builds and passes its own test: new app NAME [--dir DIR]", usage: NEW_USAGE },
  dev: { run: devCommand, summary: "publish an app to the catalog as a dev release now and on every change: dev APP_DIR --key KEY_DIR --url URL --token T", usage: DEV_USAGE },
  publish: { run: publishCommand, summary: "upload a signed bundle to the AppServer's catalog: publish BUNDLE --publisher KEY.pub.json --url URL --token T", usage: PUBLISH_USAGE },
  "build-app": { run: buildAppCommand, summary: "build an app into one HTML page + manifest: build-app APP_DIR [--out DIR]", usage: BUILD_APP_USAGE },
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((k) => k.length));
  return [
    "usage: lineup <command> [args]   (lineup <command> --help for its own)",
    "",
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
  ].join("\n");
}

/** Runs one command line; returns the exit code (0 done, 1 failed, 2 usage). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "help" || name === "--help" || name === "-h") {
    io.out(usage());
    return 0;
  }
  if (name === "--version") {
    io.out(`lineup ${CLI_VERSION}`);
    return 0;
  }
  const command = name === undefined ? undefined : Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    if (name !== undefined) io.err(name.startsWith("-") ? `lineup: unknown option ${name}` : `lineup: unknown command "${name}"`);
    io.err(usage());
    return 2;
  }
  return runCommand({ name: `lineup ${name}`, version: CLI_VERSION, usage: () => command.usage, run: (args) => command.run(args, io) }, rest, io);
}
