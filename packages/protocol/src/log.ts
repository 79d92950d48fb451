/**
 * The one log shape of LineUp's packages, pino's line format: one JSON object a line with pino's numeric
 * `level`, `time` (ms since the epoch) and `msg`, then the bindings of `child` loggers and the call's fields,
 * so pino's tools (pino-pretty, transports) read it as they read pino's own output. Platform-neutral: the
 * AppServer binds `pid` and `hostname` and writes to stderr; `lineup agent` and `lineup mcp` write the agent
 * SDK's diagnostics through it (`logDiagnostics`).
 */

export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** pino's numbers for the levels. */
export const LOG_LEVEL_VALUES: Readonly<Record<LogLevel, number>> = { debug: 20, info: 30, warn: 40, error: 50, silent: Infinity };

/** One line as written: pino's fields first, then bindings and the call's fields. */
export interface LogRecord {
  readonly level: number;
  readonly time: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

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
  /** Where each line goes (with its trailing newline). */
  readonly write: (line: string) => void;
  /** Fields on every line, after `time` (the AppServer's `pid` and `hostname`). */
  readonly bindings?: Record<string, unknown>;
  /** Default `Date.now`. */
  readonly now?: () => number;
}

export function createLogger(options: LoggerOptions): Logger {
  const threshold = LOG_LEVEL_VALUES[options.level ?? "info"];
  const now = options.now ?? Date.now;
  const make = (bindings: Record<string, unknown>): Logger => {
    const log = (level: Exclude<LogLevel, "silent">) => (message: string, fields?: Record<string, unknown>) => {
      if (LOG_LEVEL_VALUES[level] < threshold) return;
      options.write(`${JSON.stringify({ level: LOG_LEVEL_VALUES[level], time: now(), ...bindings, msg: message, ...fields })}\n`);
    };
    return {
      debug: log("debug"),
      info: log("info"),
      warn: log("warn"),
      error: log("error"),
      child: (more) => make({ ...bindings, ...more }),
      enabled: (level) => LOG_LEVEL_VALUES[level] >= threshold,
    };
  };
  return make({ ...options.bindings });
}

export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
  enabled: () => false,
};

/**
 * pino's `err` field for a thrown value: its type, first message line and LineUp code — never a stack, so a
 * log line handed to a user carries none.
 */
export function errorField(error: unknown): { readonly type: string; readonly message: string; readonly code?: string } {
  if (typeof error !== "object" || error === null) return { type: typeof error, message: String(error) };
  const type = error instanceof Error ? error.name : "Object";
  const raw = (error as { message?: unknown }).message;
  const message = (typeof raw === "string" ? raw : String(error)).split("\n", 1)[0] ?? "";
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? { type, message, code } : { type, message };
}

/**
 * The one diagnostic shape of LineUp's packages: what a package reports that it cannot throw to anyone (a
 * throwing listener, a dropped frame, a failed background write). `kind` is a stable snake_case word the
 * package documents, `message` one line for a person, `error` what was thrown, if anything. The agent SDK's
 * and the surface SDK's diagnostics are this shape; the Runtime's `(error, context)` sink becomes it through
 * its `logRuntimeDiagnostics`.
 */
export interface Diagnostic<Kind extends string = string> {
  readonly kind: Kind;
  readonly message: string;
  readonly error?: unknown;
}

/** Writes one diagnostic as one log line: `msg` is its message, then `kind` and pino's `err` field (never a stack). */
export function logDiagnostic(logger: Logger, level: Exclude<LogLevel, "silent">, diagnostic: Diagnostic): void {
  if (!logger.enabled(level)) return;
  logger[level](diagnostic.message, { kind: diagnostic.kind, ...(diagnostic.error === undefined ? {} : { err: errorField(diagnostic.error) }) });
}
