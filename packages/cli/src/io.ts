/** Where a command writes: injectable, so commands are tested without touching the process. */
export interface CliIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

export const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** A command returns its exit code: 0 done, 1 refused or failed, 2 usage. */
export type Command = (argv: readonly string[], io: CliIo) => Promise<number>;

/** Resolves on SIGINT or SIGTERM, for long-running commands. */
export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
