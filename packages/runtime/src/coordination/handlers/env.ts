import type { InstanceDirectory } from "../../app-lifecycle/instance-directory.js";
import type { AppPolicy, HostEnvironment } from "../../app-lifecycle/manager/pipeline.js";
import type { DisplayMode } from "@lineup/protocol";
import type { InventoryPolicy } from "../../tools/inventory.js";

/** What this host offers apps and what policy narrows: fixed for the life of a Runtime. */
export interface HostFacts extends HostEnvironment {
  /** Runtime SDK features this host implements (an app requiring more is not ready here). */
  readonly features: readonly string[];
  /** Capabilities the host provider can carry out. */
  readonly capabilities: readonly string[];
  /** Of those, the ones the system (the browser, the OS) has denied this host for now: not offered in the inventory. */
  readonly systemDenied?: readonly string[];
  /** Where the host shows app surfaces (`HostProvider.displayModes`); none when absent. */
  readonly displayModes?: readonly DisplayMode[];
  readonly appPolicy: AppPolicy;
  readonly inventoryPolicy: InventoryPolicy;
}

/** What transitions may consult besides state and reads: injected, deterministic in tests. */
export interface TransitionEnv {
  /** Overrides the ownership checks (tests); by default instances and operations come from the state. */
  readonly instances?: InstanceDirectory;
  readonly host: HostFacts;
  /** The injected clock's reading, ms. */
  now(): number;
  /** A fresh id (IdSource); the shell's only non-data input to a transition. */
  newId(prefix: string): string;
  /** Explicit-ack messages that may wait per app and conversation (`backlog.ts`). Default 1,000. */
  readonly maxPendingPerApp?: number;
  /** Instances that hold a surface at once (spec 4.4); past it the least recently used idle one in the background is suspended. Default 3. */
  readonly maxLiveSurfaces?: number;
  /** A background instance idle this long (ms) is suspended too (spec 4.4). Absent: only the bound suspends. */
  readonly suspendIdleMs?: number;
  /** Bytes of conversation artifacts read from the AppServer that the device keeps (`artifact.cache`). Default 256 MiB. */
  readonly keptArtifactBytes?: number;
}
