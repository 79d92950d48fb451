/**
 * The server's one diagnostics sink. `createLogger` writes pino's line format — one JSON object a line
 * with pino's numeric `level`, `time` (ms since the epoch), `pid`, `hostname` and `msg`, then the
 * bindings of `child` loggers (`connection`, `request_id`) and the call's fields — so pino's tools
 * (pino-pretty, transports) read it as they read pino's own output.
 */
import { hostname } from "node:os";

export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** pino's numbers for the levels. */
const LEVEL_VALUES: Record<LogLevel, number> = { debug: 20, info: 30, warn: 40, error: 50, silent: Infinity };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger whose every line also carries `bindings` (a connection's id, a request's id). */
  child(bindings: Record<string, unknown>): Logger;
  /** True when `level` is logged: skip building fields for a line nobody reads. */
  enabled(level: Exclude<LogLevel, "silent">): boolean;
}

export interface LoggerOptions {
  readonly level?: LogLevel;
  /** Where each line goes; default stderr. */
  readonly write?: (line: string) => void;
}

const writeStderr = (line: string): void => void process.stderr.write(line);

export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = LEVEL_VALUES[options.level ?? "info"];
  const write = options.write ?? writeStderr;
  const base = { pid: process.pid, hostname: hostname() };
  const make = (bindings: Record<string, unknown>): Logger => {
    const log = (level: Exclude<LogLevel, "silent">) => (message: string, fields?: Record<string, unknown>) => {
      if (LEVEL_VALUES[level] < threshold) return;
      write(`${JSON.stringify({ level: LEVEL_VALUES[level], time: Date.now(), ...base, ...bindings, msg: message, ...fields })}\n`);
    };
    return {
      debug: log("debug"),
      info: log("info"),
      warn: log("warn"),
      error: log("error"),
      child: (more) => make({ ...bindings, ...more }),
      enabled: (level) => LEVEL_VALUES[level] >= threshold,
    };
  };
  return make({});
}

/** JSON lines on stderr at level info. */
export const stderrLogger: Logger = createLogger();

export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
  enabled: () => false,
};
