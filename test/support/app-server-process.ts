/**
 * The AppServer in a process of its own (packages/app-server/src/bin.ts), for tests and benches that
 * kill it with SIGKILL or run several: on `dataDir`'s SQLite file, or on the PostgreSQL database `db`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Starts the process; resolves with its URL once it listens. */
export async function spawnAppServer(options: { readonly dataDir: string; readonly db: string | undefined }): Promise<{ child: ChildProcess; url: string }> {
  const bin = join(repoRoot, "packages", "app-server", "src", "bin.ts");
  const args = ["--conditions=source", "--import", "tsx", bin, "--data", options.dataDir, ...(options.db === undefined ? [] : ["--db", options.db]), "--port", "0"];
  const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr.slice(-2000)}`)), 30_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (ws:\/\/\S+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolveUrl(m[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${stderr.slice(-2000)}`)));
  });
  return { child, url };
}

/** Resolves once the process has exited. */
export function exited(child: ChildProcess): Promise<void> {
  return new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once("exit", () => r())));
}
