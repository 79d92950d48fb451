/**
 * The server's one diagnostics sink: the protocol's pino-format logger (`level`, `time`, `msg`, bindings,
 * fields), with pino's `pid` and `hostname` on every line and stderr as the default destination.
 */
import { hostname } from "node:os";
import { createLogger as createLogLines, type Logger, type LogLevel } from "@lineup/protocol";

export { LOG_LEVELS, silentLogger, type Logger, type LogLevel } from "@lineup/protocol";

export interface LoggerOptions {
  readonly level?: LogLevel;
  /** Where each line goes; default stderr. */
  readonly write?: (line: string) => void;
}

const writeStderr = (line: string): void => void process.stderr.write(line);

export function createLogger(options: LoggerOptions = {}): Logger {
  return createLogLines({ level: options.level ?? "info", write: options.write ?? writeStderr, bindings: { pid: process.pid, hostname: hostname() } });
}

/** JSON lines on stderr at level info. */
export const stderrLogger: Logger = createLogger();

