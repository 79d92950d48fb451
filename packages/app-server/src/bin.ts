/**
 * `node --conditions=source --import tsx packages/app-server/src/bin.ts --data DIR [--db postgres://…] [--port N] [--host H]`
 * Starts the AppServer; on a fresh data directory prints the dev tokens (also in DIR/dev-credentials.json).
 * Stops on SIGINT/SIGTERM after committing queued writes.
 */
import { parseArgs } from "node:util";
import { startAppServer } from "./server.js";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: ".lineup-data/app-server" },
    port: { type: "string", default: "8787" },
    host: { type: "string", default: "127.0.0.1" },
    db: { type: "string" },
  },
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`--port must be an integer 0…65535, not ${values.port}\n`);
  process.exit(2);
}

const server = await startAppServer({ dataDir: values.data, host: values.host, port, ...(values.db === undefined ? {} : { db: values.db }) });
process.stdout.write(`LineUp AppServer listening on ${server.url} (health: ${server.httpUrl}/healthz)\n`);
if (server.devCredentials !== undefined) {
  process.stdout.write(`dev device token: ${server.devCredentials.device_token}\n`);
  process.stdout.write(`dev agent token:  ${server.devCredentials.agent_token}\n`);
  process.stdout.write(`(written to ${values.data}/dev-credentials.json)\n`);
}

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`${signal}: stopping\n`);
  server.close().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`close failed: ${String(error)}\n`);
      process.exit(1);
    },
  );
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
