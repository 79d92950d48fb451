import type { AppDirectory } from "../../apps/core-app-registry.js";
import type { InstanceDirectory } from "../../apps/instance-directory.js";

/** What transitions may consult besides state and reads: injected, deterministic in tests. */
export interface TransitionEnv {
  readonly apps: AppDirectory;
  readonly instances: InstanceDirectory;
  /** The injected clock's reading, ms. */
  now(): number;
  /** A fresh id (IdSource); the shell's only non-data input to a transition. */
  newId(prefix: string): string;
}
