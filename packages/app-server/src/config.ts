/**
 * The AppServer's settings: one table, read from a JSON file (`--config FILE` or `LINEUP_CONFIG`),
 * the environment and the command line, the later overriding the earlier. `lineup server --help`
 * prints the table, so every setting an operator can give is listed there.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { DEFAULT_HEARTBEAT_INTERVAL_MS, DEFAULT_SERVER_LIMITS, UsageError, decodeJson, type ServerLimits } from "@lineup/protocol";
import { LOG_LEVELS, type LogLevel } from "./logger.js";

/**
 * The one data-directory default of every server entry point: `LINEUP_DATA_DIR`, else the per-user
 * `$XDG_DATA_HOME/lineup` (`~/.local/share/lineup`).
 */
export function defaultDataDir(env: Readonly<Record<string, string | undefined>>): string {
  const explicit = env["LINEUP_DATA_DIR"];
  if (explicit !== undefined && explicit !== "") return resolve(explicit);
  const dataHome = env["XDG_DATA_HOME"];
  return join(dataHome !== undefined && dataHome !== "" ? dataHome : join(homedir(), ".local", "share"), "lineup");
}

export interface ServerConfig {
  readonly data: string;
  /** A postgres:// URL, or undefined for SQLite in `data`. */
  readonly db: string | undefined;
  readonly host: string;
  readonly port: number;
  readonly log_level: LogLevel;
  readonly heartbeat_interval_ms: number;
  readonly drain_timeout_ms: number;
  readonly limits: ServerLimits;
}

type Kind = "string" | "port" | "count" | "level";

interface Setting {
  /** The key in the config file; the flag is it in kebab case, the variable `LINEUP_` and it in capitals. */
  readonly key: string;
  readonly kind: Kind;
  readonly describe: string;
  /** Shown in the help; the value used when nothing sets it. */
  readonly fallback: string | number;
  readonly env?: string;
}

const LIMIT_DESCRIPTIONS: Record<keyof ServerLimits, string> = {
  max_message_bytes: "largest JSON-RPC frame accepted, bytes",
  max_json_depth: "deepest JSON nesting accepted",
  max_batch: "most requests in one batch",
  send_queue_limit_frames: "frames queued to one connection before it is saturated",
  send_queue_limit_bytes: "bytes buffered to one connection before it is saturated",
  slow_consumer_timeout_ms: "a connection saturated this long is closed (4008)",
  max_page_events: "most events in one page",
  max_chunk_bytes: "largest artifact chunk, bytes",
  max_artifact_bytes: "largest artifact, bytes",
};

/** Every setting, in the order `--help` lists them. */
export const SERVER_SETTINGS: readonly Setting[] = [
  { key: "data", kind: "string", describe: "data directory (the SQLite log, dev credentials)", fallback: "$XDG_DATA_HOME/lineup", env: "LINEUP_DATA_DIR" },
  { key: "db", kind: "string", describe: "the store: a postgres:// URL puts it on PostgreSQL (several servers may share one); unset, SQLite in the data directory", fallback: "" },
  { key: "host", kind: "string", describe: "address to listen on", fallback: "127.0.0.1" },
  { key: "port", kind: "port", describe: "port to listen on (0: any free port)", fallback: 8787 },
  { key: "log_level", kind: "level", describe: `least level logged (${LOG_LEVELS.join(", ")})`, fallback: "info" },
  { key: "heartbeat_interval_ms", kind: "count", describe: "ping each connection this often; one silent for two pings is closed", fallback: DEFAULT_HEARTBEAT_INTERVAL_MS },
  { key: "drain_timeout_ms", kind: "count", describe: "on SIGTERM, wait this long for clients to close", fallback: 10_000 },
  ...(Object.keys(DEFAULT_SERVER_LIMITS) as Array<keyof ServerLimits>).map((key): Setting => ({ key, kind: "count", describe: LIMIT_DESCRIPTIONS[key], fallback: DEFAULT_SERVER_LIMITS[key] })),
];

export const settingFlag = (setting: Setting): string => setting.key.replace(/_/g, "-");
export const settingEnv = (setting: Setting): string => setting.env ?? `LINEUP_${setting.key.toUpperCase()}`;

/** The config file's variable, beside the settings'. */
export const CONFIG_ENV = "LINEUP_CONFIG";

/** `parseArgs` options for every setting, and `--config`. */
export const SERVER_OPTIONS = Object.fromEntries([["config", { type: "string" as const }], ...SERVER_SETTINGS.map((s) => [settingFlag(s), { type: "string" as const }])]) as Record<string, { type: "string" }>;

export function serverHelp(): string {
  const rows = SERVER_SETTINGS.map((s) => [`--${settingFlag(s)}`, settingEnv(s), String(s.fallback), s.describe]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  return [
    "usage: lineup server [--config FILE] [--SETTING VALUE …]",
    "",
    "Runs the reference AppServer. Each setting comes from its flag, else its environment variable, else the",
    `config file (JSON: {"port": 8787, "log_level": "debug", …}; --config FILE or ${CONFIG_ENV}), else its default.`,
    "SIGTERM drains: no new connections, queued writes commit, clients are closed with 1001, exit 0.",
    "",
    ...rows.map((r) => `  ${r[0]!.padEnd(widths[0]!)}  ${r[1]!.padEnd(widths[1]!)}  ${r[2]!.padEnd(widths[2]!)}  ${r[3]}`),
  ].join("\n");
}

function parseValue(setting: Setting, raw: unknown, source: string): string | number {
  const fail = (what: string): never => {
    throw new UsageError(`${source}: ${setting.key} must be ${what}, not ${JSON.stringify(raw)}`);
  };
  switch (setting.kind) {
    case "string":
      return typeof raw === "string" && raw !== "" ? raw : fail("a non-empty string");
    case "level":
      return typeof raw === "string" && (LOG_LEVELS as readonly string[]).includes(raw) ? raw : fail(`one of ${LOG_LEVELS.join(", ")}`);
    case "port":
    case "count": {
      const n = typeof raw === "number" ? raw : typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : NaN;
      const max = setting.kind === "port" ? 65_535 : Number.MAX_SAFE_INTEGER;
      const min = setting.kind === "port" ? 0 : 1;
      return Number.isSafeInteger(n) && n >= min && n <= max ? n : fail(`an integer ${min}…${max}`);
    }
  }
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`cannot read the config file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
  const decoded = decodeJson(text);
  if (!decoded.ok) throw new Error(`the config file ${file} is not valid JSON: ${decoded.error.message}`);
  const value = decoded.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`the config file ${file} must hold a JSON object`);
  const known = new Set(SERVER_SETTINGS.map((s) => s.key));
  const unknown = Object.keys(value).filter((k) => !known.has(k));
  if (unknown.length > 0) throw new UsageError(`the config file ${file} has unknown settings: ${unknown.join(", ")} (lineup server --help lists them)`);
  return value;
}

/** Resolves every setting from the flags parsed with SERVER_OPTIONS, the environment and the config file. */
export function resolveServerConfig(flags: Readonly<Record<string, string | undefined>>, env: Readonly<Record<string, string | undefined>>): ServerConfig {
  const configFile = flags["config"] ?? env[CONFIG_ENV];
  const file = configFile === undefined || configFile === "" ? {} : readConfigFile(configFile);
  const values: Record<string, string | number> = Object.fromEntries(SERVER_SETTINGS.map((s) => [s.key, s.fallback]));
  let data: string | undefined;
  for (const setting of SERVER_SETTINGS) {
    const flag = flags[settingFlag(setting)];
    const fromEnv = env[settingEnv(setting)];
    let value: string | number | undefined;
    if (flag !== undefined) value = parseValue(setting, flag, `--${settingFlag(setting)}`);
    else if (fromEnv !== undefined && fromEnv !== "") value = parseValue(setting, fromEnv, settingEnv(setting));
    else if (file[setting.key] !== undefined) value = parseValue(setting, file[setting.key], configFile!);
    if (value === undefined) continue;
    values[setting.key] = value;
    if (setting.key === "data") data = resolve(value as string);
  }
  const limits = Object.fromEntries(Object.keys(DEFAULT_SERVER_LIMITS).map((key) => [key, values[key]])) as unknown as ServerLimits;
  return {
    data: data ?? defaultDataDir(env),
    db: values["db"] === "" ? undefined : (values["db"] as string),
    host: values["host"] as string,
    port: values["port"] as number,
    log_level: values["log_level"] as LogLevel,
    heartbeat_interval_ms: values["heartbeat_interval_ms"] as number,
    drain_timeout_ms: values["drain_timeout_ms"] as number,
    limits,
  };
}
