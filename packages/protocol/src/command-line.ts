/**
 * The conventions every LineUp command line follows (the `lineup` command, the AppServer's and the
 * agent SDK's bins): `--help`/`-h` print the usage to stdout and exit 0; `--version` prints the version
 * and exits 0; a usage error prints one line and the usage to stderr and exits 2; any other failure
 * prints one line, without a stack trace, and exits 1. Pure: the caller passes where lines go.
 */

/** Where a command writes, one line at a time. */
export interface CommandIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

/** Thrown by a command for a command line it cannot run: `runCommand` prints it with the usage and exits 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** `node:util` parseArgs reports an unknown flag, a missing value or a stray positional with these codes. */
const PARSE_ARGS_CODES = new Set(["ERR_PARSE_ARGS_UNKNOWN_OPTION", "ERR_PARSE_ARGS_INVALID_OPTION_VALUE", "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL"]);

export function isUsageError(error: unknown): error is Error {
  if (error instanceof UsageError) return true;
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && PARSE_ARGS_CODES.has(code);
}

/**
 * The one line a failure prints, never a stack: the message's first line, or for a command-line parse
 * error its whole message joined on one line (its later lines say how to mend it, e.g. `--token=-x…` for
 * a value that begins with a dash).
 */
export function failureLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = isUsageError(error) ? message.split("\n").map((part) => part.trim()).filter(Boolean).join(" ") : (message.split("\n", 1)[0] ?? "").trim();
  return line || (error instanceof Error ? error.name : "failed");
}

/** True when the arguments ask for help (`--help` or `-h` before a `--`). */
export function asksForHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h") return true;
  }
  return false;
}

export interface CommandSpec {
  /** Shown in messages: `lineup server`. */
  readonly name: string;
  readonly version: string;
  /** The usage for these arguments (a command with subcommands shows the one named). */
  readonly usage: (argv: readonly string[]) => string;
  /** Runs the command; returns its exit code, throws `UsageError` (or a parseArgs error) for a bad command line. */
  readonly run: (argv: readonly string[]) => Promise<number>;
}

/** Runs a command under the conventions above; returns the exit code. */
export async function runCommand(spec: CommandSpec, argv: readonly string[], io: CommandIo): Promise<number> {
  if (asksForHelp(argv)) {
    io.out(spec.usage(argv));
    return 0;
  }
  if (argv[0] === "--version") {
    io.out(`${spec.name} ${spec.version}`);
    return 0;
  }
  try {
    return await spec.run(argv);
  } catch (error) {
    if (isUsageError(error)) {
      io.err(`${spec.name}: ${failureLine(error)}`);
      io.err(spec.usage(argv));
      return 2;
    }
    io.err(`${spec.name}: ${failureLine(error)}`);
    return 1;
  }
}
