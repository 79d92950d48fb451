/**
 * `lineup server` and the `lineup-app-server` bin: starts the AppServer with the settings of config.ts
 * and drains it on SIGTERM or SIGINT (exit 0). Follows the command-line conventions of `runCommand`.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runCommand, UsageError, type CommandIo } from "@lineup/protocol";
import { SERVER_OPTIONS, resolveServerConfig, serverHelp } from "./config.js";
import { createLogger } from "./logger.js";
import { SERVER_VERSION, startAppServer } from "./server.js";
import { ADMIN_TOKEN_FILE, DEV_CREDENTIALS_FILE } from "./store/principals.js";

/** Resolves on the first SIGINT or SIGTERM, with its name. */
export function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve(signal);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/** Starts the server from a command line and runs it until SIGTERM or SIGINT; throws a `UsageError` for a bad one. */
export async function serveAppServer(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], options: SERVER_OPTIONS, allowPositionals: true });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const config = resolveServerConfig(values, env);
  mkdirSync(config.data, { recursive: true });
  const server = await startAppServer({
    dataDir: config.data,
    ...(config.db === undefined ? {} : { db: config.db }),
    host: config.host,
    port: config.port,
    limits: config.limits,
    heartbeatIntervalMs: config.heartbeat_interval_ms,
    logger: createLogger({ level: config.log_level }),
  });
  io.out(`LineUp AppServer listening on ${server.url} (health: ${server.httpUrl}/healthz, metrics: ${server.httpUrl}/metrics, data: ${config.data})`);
  if (server.devCredentials !== undefined) {
    io.out(`dev device token: ${server.devCredentials.device_token}`);
    io.out(`dev agent token:  ${server.devCredentials.agent_token}`);
    io.out(`(written to ${join(config.data, DEV_CREDENTIALS_FILE)})`);
  }
  if (server.adminToken !== undefined) io.out(`admin token written to ${join(config.data, ADMIN_TOKEN_FILE)} (lineup admin reads it there)`);
  const signal = await untilStopSignal();
  io.out(`${signal}: draining`);
  await server.close({ drainTimeoutMs: config.drain_timeout_ms });
  io.out("stopped");
  return 0;
}

/** Runs the server command line; returns the exit code once the server has drained. */
export function runServerCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: CommandIo, name = "lineup server"): Promise<number> {
  return runCommand({ name, version: SERVER_VERSION, usage: serverHelp, run: (args) => serveAppServer(args, env, io) }, argv, io);
}
