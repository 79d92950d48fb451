/**
 * The Runtime's app-manager and settings interfaces (packages/runtime/src/app-lifecycle/app-manager-api.ts),
 * gathered under the names the App Registry and Settings apps use. `@lineup/runtime`'s own
 * `AppRecord` export is the app directory's record, so the manager's is named `ManagedAppRecord` here.
 */
import type { AppDetails } from "@lineup/runtime";

export type {
  AppDetails,
  AppOperation,
  AppOperationStep,
  AppOperationStepName,
  CapabilityGrant,
  InstallOptions,
  RuntimeAppManager,
  RuntimeSettings,
  TrustedPublisher,
  ViewGrant,
} from "@lineup/runtime";

/** The App Manager's record of one app (spec 4.3). */
export type ManagedAppRecord = AppDetails["record"];
