/**
 * startup: how long `lineup` takes to be useful, as a person runs it (the CLI's compiled `dist/bin.js` in a new Node
 * process), each beside the least a Node program doing the same must do, in alternating runs:
 *
 * - `lineup --help` until it exits, beside a Node process that prints a line (`node -e`): the command table only;
 * - `lineup server` on an existing store until it logs that it listens, beside a Node process that opens a SQLite
 *   file (WAL, synchronous=FULL) with better-sqlite3 and listens for WebSockets with ws on 127.0.0.1, then prints a
 *   line. The first start on a new store (migrations, dev credentials) is reported beside it.
 *
 * The targets are the project's own (not PERFORMANCE.md's): a command loads only what it needs (packages/cli/src/
 * index.ts), and the server loads the `/mcp` endpoint's code with its first request (app-server/src/mcp-endpoint.ts).
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { machine, median, type BenchResult, type SuiteResult } from "../lib.js";

const repo = resolve(import.meta.dirname, "..", "..");
const BIN = join(repo, "packages/cli/dist/bin.js");
const ROUNDS = Number(process.env["LINEUP_BENCH_STARTUP_ROUNDS"] ?? 11);

/** Wall ms from spawning `node args` until its output matches `ready` (then it is stopped and awaited) or, without `ready`, until it exits 0. */
function timed(args: readonly string[], ready?: RegExp): Promise<number> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: repo, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let at: number | undefined;
    const seen = (chunk: Buffer) => {
      out += String(chunk);
      if (ready !== undefined && at === undefined && ready.test(out)) {
        at = performance.now() - started;
        child.kill("SIGTERM");
      }
    };
    child.stdout.on("data", seen);
    child.stderr.on("data", seen);
    child.once("exit", (code) => {
      if (ready === undefined && code === 0) return done(performance.now() - started);
      if (at !== undefined) return done(at);
      fail(new Error(`node ${args.join(" ")} exited ${code} before it was ready:\n${out}`));
    });
  });
}

/** The least server: a SQLite file opened as the AppServer opens its own, and a ws server listening on 127.0.0.1. */
const FLOOR_SERVER = `
import Database from "better-sqlite3";
import { createServer } from "node:http";
import { join } from "node:path";
import { WebSocketServer } from "ws";
const db = new Database(join(process.argv[1], "floor.sqlite"));
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
db.exec("CREATE TABLE IF NOT EXISTS events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (session_id, seq))");
const http = createServer((req, res) => res.end());
new WebSocketServer({ server: http, path: "/rpc" });
http.listen(0, "127.0.0.1", () => console.log("floor listening on " + http.address().port));
`;

export async function run(): Promise<SuiteResult> {
  // The CLI as it is installed: compiled (incremental: quick when nothing changed).
  execFileSync(join(repo, "node_modules/.bin/tsc"), ["-b", "packages/cli"], { cwd: repo, stdio: "inherit" });
  const dir = mkdtempSync(join(tmpdir(), "lineup-bench-startup-"));
  const results: BenchResult[] = [];
  try {
    const help: number[] = [];
    const helpFloor: number[] = [];
    const server: number[] = [];
    const serverFloor: number[] = [];
    const fresh: number[] = [];
    const ours = join(dir, "ours");
    const floorDir = mkdtempSync(join(dir, "floor-"));
    const serve = (data: string) => timed([BIN, "server", "--port", "0", "--data", data], /app server listening/);
    const serveFloor = () => timed(["--input-type=module", "-e", FLOOR_SERVER, floorDir], /floor listening/);
    // One start of each first: the stores exist, and the files are in the page cache.
    await serve(ours);
    await serveFloor();
    await timed([BIN, "--help"]);
    for (let round = 0; round < ROUNDS; round++) {
      help.push(await timed([BIN, "--help"]));
      helpFloor.push(await timed(["-e", "process.stdout.write('usage: lineup <command> [args]\\n')"]));
      server.push(await serve(ours));
      serverFloor.push(await serveFloor());
      fresh.push(await serve(join(dir, `new-${round}`)));
    }
    const ms = (v: number) => Number(v.toFixed(1));
    /** A row of ours beside its floor, the medians of the rounds. */
    const row = (metric: string, ours: readonly number[], baseline: string, floor: readonly number[], target: number, extra: Record<string, unknown>): BenchResult => ({
      metric,
      unit: "ms",
      value: ms(median(ours)),
      baseline,
      baseline_value: ms(median(floor)),
      ratio: Number((median(ours) / median(floor)).toFixed(3)),
      target_ratio: target,
      higher_is_better: false,
      rounds: ROUNDS,
      ...extra,
    });
    results.push(
      row("cli_help", help, "node_process_printing_a_line", helpFloor, 1.5, {
        notes: "`node packages/cli/dist/bin.js --help` from spawn to exit (median of the rounds), beside `node -e` printing one line. The command table names each command's summary and loads a command's module (and what only it needs) when that command runs.",
      }),
      row("app_server_ready", server, "node_process_opening_sqlite_and_listening_ws", serverFloor, 4, {
        new_store_ms: ms(median(fresh)),
        notes:
          "`lineup server --port 0 --data DIR` on an existing store, from spawn until it logs `app server listening` (median of the rounds), beside a Node process that opens a SQLite file with better-sqlite3 (WAL, synchronous=FULL, a table created if missing) and listens for WebSockets with ws on 127.0.0.1, then prints a line. new_store_ms: the same on a new data directory (migrations, dev credentials and the admin token written). The server loads the `/mcp` endpoint (the MCP SDK, the agent SDK) with its first request, the catalog's bundle checks from `@lineup/runtime/bundle` and the PostgreSQL client only for a PostgreSQL store; what is left before it listens is mostly @lineup/protocol's modules and the TypeBox declarations they build at import.",
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { suite: "startup", machine: machine(), results };
}
