/** The server's one diagnostics sink. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const line = (level: string, message: string, fields?: Record<string, unknown>) =>
  `${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`;

/** JSON lines on stderr. */
export const stderrLogger: Logger = {
  info: (m, f) => void process.stderr.write(line("info", m, f)),
  warn: (m, f) => void process.stderr.write(line("warn", m, f)),
  error: (m, f) => void process.stderr.write(line("error", m, f)),
};

export const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
