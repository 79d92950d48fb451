/** Where a command writes: injectable, so commands are tested without touching the process. */
import type { CommandIo } from "@lineup/protocol";

export type CliIo = CommandIo;

export const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/**
 * A command returns its exit code: 0 done, 1 refused or failed. It throws `UsageError` (or lets
 * parseArgs throw) for a command line it cannot run, and throws any other failure: `runCli` prints
 * either as one line and exits 2 or 1.
 */
export type Command = (argv: readonly string[], io: CliIo) => Promise<number>;

/** A command's code, loaded when it runs. */
export interface LoadedCommand {
  readonly run: Command;
  /** What `lineup NAME --help` prints (and a usage error after its one line). */
  readonly usage: string;
}

/** One row of the command table. */
export interface CommandEntry {
  /** One line for `lineup --help`. */
  readonly summary: string;
  /** Imports the command's module (and what it needs) on first use. */
  readonly load: () => Promise<LoadedCommand>;
}
