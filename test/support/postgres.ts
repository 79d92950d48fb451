/**
 * A throwaway PostgreSQL cluster for tests and benches: `initdb` into a temp dir, `pg_ctl start` on a
 * free port on 127.0.0.1 (and a socket in the same dir), stopped and deleted by `stop()`. PostgreSQL
 * refuses to run as root: as root the cluster runs as the `postgres` user that Debian's `postgresql`
 * package creates (`runuser`). Binaries: `LINEUP_PG_BIN`, else the newest `/usr/lib/postgresql/N/bin`.
 */
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

export interface PostgresCluster {
  readonly port: number;
  /** The URL of a database on the cluster (the superuser `lineup`, no password: trust on loopback). */
  url(database?: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(prefix?: string): Promise<string>;
  /** The postmaster's pid (its backends are its children), for CPU accounting. */
  postmasterPid(): number;
  stop(): Promise<void>;
}

let databases = 0;

/** Creates an empty database on the cluster of `adminUrl` (a superuser's URL) and returns its URL. */
export async function createDatabase(adminUrl: string, prefix = "t"): Promise<string> {
  const name = `${prefix}_${process.pid}_${++databases}_${Math.random().toString(36).slice(2, 8)}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export function postgresBinDir(): string {
  const fromEnv = process.env["LINEUP_PG_BIN"];
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => join(root, v, "bin")).find((dir) => existsSync(join(dir, "pg_ctl")));
  if (found === undefined) throw new Error("PostgreSQL is not installed: apt-get install postgresql (or set LINEUP_PG_BIN)");
  return found;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a cluster. `durable: false` (tests) turns fsync off — the server processes under test are
 * killed, never the cluster — and finds deadlocks after 50 ms instead of 1 s; benches keep
 * PostgreSQL's defaults.
 */
export async function startPostgresCluster(options: { readonly durable?: boolean } = {}): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), "lineup-pg-"));
  const data = join(dir, "data");
  const asRoot = userInfo().uid === 0;
  const as = (command: string, args: string[]) => (asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, command), ...args]) : run(join(bin, command), args));
  if (asRoot) chownSync(dir, Number((await run("id", ["-u", "postgres"])).stdout.trim()), Number((await run("id", ["-g", "postgres"])).stdout.trim()));
  await as("initdb", ["-D", data, "-U", "lineup", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"]);
  const settings = ["-c listen_addresses=127.0.0.1", `-k ${dir}`, "-c max_connections=300", "-c shared_buffers=64MB"];
  if (options.durable === false) settings.push("-c fsync=off", "-c full_page_writes=off", "-c deadlock_timeout=50ms");
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      await as("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-w", "-t", "60", "-o", `-p ${port} ${settings.join(" ")}`, "start"]);
      break;
    } catch (error) {
      // Another process took the port between the probe and the start: another port.
      if (attempt >= 3) {
        const log = existsSync(join(dir, "log")) ? readFileSync(join(dir, "log"), "utf8").slice(-2000) : "";
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`pg_ctl start failed: ${error instanceof Error ? error.message : String(error)}\n${log}`, { cause: error });
      }
    }
  }
  const url = (database = "postgres") => `postgres://lineup@127.0.0.1:${port}/${database}`;
  let stopped = false;
  return {
    port,
    url,
    createDatabase: (prefix) => createDatabase(url(), prefix),
    postmasterPid: () => Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]),
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        await as("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
