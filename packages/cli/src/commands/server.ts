/** `lineup server [--data DIR] [--db postgres://…] [--port N] [--host H]`: the reference AppServer on SQLite, or on PostgreSQL. */
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { startAppServer, stderrLogger, type AppServerHandle } from "@lineup/app-server";
import { untilSignal, type Command } from "../io.js";

export const SERVER_USAGE = "usage: lineup server [--data DIR] [--db postgres://USER@HOST:PORT/DB] [--port N] [--host 127.0.0.1]";

export const serverCommand: Command = async (argv, io) => {
  let values: { data?: string; db?: string; port?: string; host?: string };
  try {
    ({ values } = parseArgs({ args: [...argv], options: { data: { type: "string" }, db: { type: "string" }, port: { type: "string" }, host: { type: "string" } } }));
  } catch (error) {
    io.err(`${(error as Error).message}\n${SERVER_USAGE}`);
    return 2;
  }
  const port = Number(values.port ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    io.err(`--port must be 0–65535\n${SERVER_USAGE}`);
    return 2;
  }
  let server: AppServerHandle;
  try {
    server = await startAppServer({ dataDir: resolve(values.data ?? ".lineup-data"), port, host: values.host ?? "127.0.0.1", logger: stderrLogger, ...(values.db === undefined ? {} : { db: values.db }) });
  } catch (error) {
    io.err(`the AppServer could not start: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  io.out(`AppServer listening on ${server.url} (health: ${server.httpUrl}/healthz)`);
  if (server.devCredentials !== undefined) {
    io.out(`dev device token: ${server.devCredentials.device_token}`);
    io.out(`dev agent token:  ${server.devCredentials.agent_token}`);
  }
  await untilSignal();
  await server.close();
  return 0;
};
