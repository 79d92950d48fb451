/**
 * The command-line conventions, over every command of the table (a new command gets these checks by
 * being in it): --help and -h print its usage to stdout and exit 0, --version too, an unknown flag
 * prints one line and the usage and exits 2, a failure prints one line without a stack and exits 1.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS, runCli, type CliIo } from "../src/index.js";

function capture(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(...l.split("\n")), err: (l) => errors.push(...l.split("\n")) };
}

const work = mkdtempSync(join(tmpdir(), "lineup-conventions-"));
const missing = join(work, "missing");
/** A file where a directory is wanted. */
const aFile = join(work, "a-file");
writeFileSync(aFile, "");
mkdirSync(join(work, "taken"));
let busy: Server;
let busyPort = 0;
beforeAll(async () => {
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
  busyPort = (busy.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => busy.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

/** A command line of each command that fails for a reason outside the command line, and what the line says. */
const FAILURES: Record<string, () => [string[], RegExp]> = {
  server: () => [["server", "--port", String(busyPort), "--data", join(work, "server")], new RegExp(`port ${busyPort} on 127\\.0\\.0\\.1 is in use`)],
  admin: () => [["admin", "--server", "http://127.0.0.1:9", "--admin-token", "t", "user", "list"], /cannot reach the AppServer at http:\/\/127\.0\.0\.1:9/],
  agent: () => [["agent", "demo", "--url", "ws://127.0.0.1:9/rpc", "--credentials", missing], /cannot read the credentials file .*ENOENT/],
  chat: () => [["chat", "--url", "ws://127.0.0.1:9/rpc", "--credentials", missing], /cannot read the credentials file .*ENOENT/],
  mcp: () => [["mcp", "--session", "new", "--url", "ws://127.0.0.1:9/rpc", "--credentials", missing], /cannot read the credentials file .*ENOENT/],
  keygen: () => [["keygen", join(aFile, "keys")], /./],
  pack: () => [["pack", missing, join(work, "out.lineup")], /./],
  sign: () => [["sign", missing, missing], /./],
  verify: () => [["verify", missing, missing], /./],
  evidence: () => [["evidence", "verify", missing], /cannot read/],
  "build-app": () => [["build-app", missing], /./],
  dev: () => [["dev", missing, "--key", missing, "--url", "ws://127.0.0.1:9/rpc", "--token", "t"], /ENOENT/],
  new: () => [["new", "app", "taken", "--dir", work], /exists already/],
  publish: () => [["publish", missing, "--publisher", missing, "--url", "ws://127.0.0.1:9/rpc", "--token", "t"], /ENOENT/],
  app: () => [["app", "from-mcp", "--scope", "clock", "--key", missing, "--", "node", join(missing, "server.js")], /the MCP server did not answer/],
};

/** Subcommands, each of which answers --help as its command does. */
const SUBCOMMANDS: readonly string[][] = [["admin", "user", "add"], ["agent", "demo"], ["agent", "llm"], ["evidence", "verify"], ["app", "from-mcp"], ["new", "app"]];

/** What `lineup NAME --help` prints: the usage of the command, loaded as `runCli` loads it. */
const usageOf = async (name: string): Promise<string> => (await COMMANDS[name]!.load()).usage;

const noStack = (lines: readonly string[]) => lines.every((l) => !/^\s+at /.test(l));

describe("lineup command-line conventions", () => {
  it("covers every command of the table with a failure case", () => {
    expect(Object.keys(FAILURES).sort()).toEqual(Object.keys(COMMANDS).sort());
  });

  it("lineup --help, -h and help print the command list to stdout; --version prints the version; a bad option or command exits 2", async () => {
    for (const flag of ["--help", "-h", "help"]) {
      const io = capture();
      expect(await runCli([flag], io)).toBe(0);
      expect(io.lines[0]).toMatch(/^usage: lineup <command>/);
      for (const name of Object.keys(COMMANDS)) expect(io.lines.join("\n")).toContain(`  ${name} `);
      expect(io.errors).toEqual([]);
    }
    const version = capture();
    expect(await runCli(["--version"], version)).toBe(0);
    expect(version.lines).toEqual([expect.stringMatching(/^lineup \d+\.\d+\.\d+$/)]);
    const bad = capture();
    expect(await runCli(["--frobnicate"], bad)).toBe(2);
    expect(bad.errors[0]).toBe("lineup: unknown option --frobnicate");
    expect(bad.errors[1]).toMatch(/^usage: lineup <command>/);
  });

  for (const name of Object.keys(COMMANDS)) {
    describe(name, () => {
      it("--help and -h print its usage to stdout and exit 0", async () => {
        for (const flag of ["--help", "-h"]) {
          const io = capture();
          expect(await runCli([name, flag], io)).toBe(0);
          expect(io.lines.join("\n")).toBe(await usageOf(name));
          expect(io.lines[0]).toMatch(new RegExp(`^usage: lineup ${name}\\b`));
          expect(io.errors).toEqual([]);
        }
      });

      it("--version prints the version and exits 0", async () => {
        const io = capture();
        expect(await runCli([name, "--version"], io)).toBe(0);
        expect(io.lines).toEqual([expect.stringMatching(new RegExp(`^lineup ${name} \\d+\\.\\d+\\.\\d+$`))]);
      });

      it("an unknown flag prints one line, then the usage, and exits 2", async () => {
        const io = capture();
        expect(await runCli([name, "--no-such-flag"], io)).toBe(2);
        expect(io.errors[0]).toMatch(new RegExp(`^lineup ${name}: .*--no-such-flag`));
        expect(io.errors.slice(1).join("\n")).toBe(await usageOf(name));
        expect(io.lines).toEqual([]);
      });

      it(
        "a failure prints one line without a stack trace and exits 1",
        async () => {
          const [argv, says] = FAILURES[name]!();
          const io = capture();
          expect(await runCli(argv, io)).toBe(1);
          expect(io.errors).toHaveLength(1);
          expect(io.errors[0]).toMatch(says);
          expect(noStack(io.errors)).toBe(true);
        },
        20_000,
      );
    });
  }

  it("every subcommand answers --help and -h with its usage on stdout", async () => {
    for (const [name, sub] of SUBCOMMANDS) {
      for (const flag of ["--help", "-h"]) {
        const io = capture();
        expect(await runCli([name!, sub!, flag], io)).toBe(0);
        expect(io.lines.join("\n")).toBe(await usageOf(name!));
        expect(io.lines.join("\n")).toContain(sub);
      }
    }
  });

  it("a command whose code cannot be loaded (a broken install) fails in one line without a stack, and exits 1", async () => {
    const broken = { summary: "a command whose module is missing", load: () => import("./no-such-command-module.js" as string) as never };
    const io = capture();
    expect(await runCli(["broken", "--flag"], io, { ...COMMANDS, broken })).toBe(1);
    expect(io.errors).toHaveLength(1);
    expect(io.errors[0]).toMatch(/^lineup broken: cannot load the command: .*no-such-command-module/);
    expect(noStack(io.errors)).toBe(true);
    expect(io.lines).toEqual([]);
  });

  it("a value that begins with a dash is refused in one line that says how to pass it, and --flag=value passes it", async () => {
    const io = capture();
    expect(await runCli(["mcp", "--session", "new", "--url", "ws://127.0.0.1:9/rpc", "--token", "-dashed"], io)).toBe(2);
    expect(io.errors[0]).toMatch(/^lineup mcp: Option '--token' argument is ambiguous\..*'--token=-XYZ'/);
    expect(io.errors.slice(1).join("\n")).toBe(await usageOf("mcp"));
    const joined = capture();
    expect(await runCli(["dev", missing, "--key", missing, "--url", "ws://127.0.0.1:9/rpc", "--token=-dashed"], joined)).toBe(1);
    expect(joined.errors).toEqual([expect.stringMatching(/ENOENT/)]);
  });
});
