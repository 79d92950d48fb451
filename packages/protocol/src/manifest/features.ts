/**
 * The registry of Runtime SDK features (spec 6, 9).
 *
 * A manifest names the SDK features it needs in `runtime_sdk.required_features` and the ones it
 * can do without in `optional_features`. The Runtime checks the required set at install, enable
 * and launch: an app that needs a feature this Runtime (or its host) does not offer never enters
 * the inventory, never gets an instance and never receives a tool call. Unknown *optional*
 * features are ignored, so an app built for a newer Runtime still runs here without them.
 *
 * Feature names are `<area>.<name>.v<major>`; a breaking change to a feature is a new name
 * (`app.tools.v2`), never a silent change to an old one.
 */

export interface RuntimeSdkFeatureInfo {
  /** The member of `LineUpAppRuntimeSDK` (spec 6) or of the Surface Bridge SDK the feature unlocks. */
  readonly sdk: string;
  readonly description: string;
}

const table = {
  "app.lifecycle.v1": { sdk: "lifecycle", description: "Lifecycle callbacks: start, foreground, background, suspend, restore, closing." },
  "app.tools.v1": { sdk: "tools", description: "Receive the agent tool calls the manifest declares; report progress, a result or an error per call_id." },
  "app.state.v1": { sdk: "state", description: "Read and subscribe to the app's scoped view model of Runtime state." },
  "app.agent-messages.v1": { sdk: "agentMessages", description: "List, subscribe to and acknowledge the agent messages the manifest subscribes to (the app inbox)." },
  "app.actions.v1": { sdk: "actions", description: "Dispatch declarative user actions to the Runtime and get a command receipt." },
  "app.navigation.v1": { sdk: "apps", description: "List available apps and ask the Runtime to launch, focus or close instances or open the default app." },
  "surface.state.v1": { sdk: "surface", description: "Sandboxed surface: receive state patches for the instance over the Surface Bridge." },
  "surface.events.v1": { sdk: "surface", description: "Sandboxed surface: emit the events the manifest declares over the Surface Bridge." },
  "app.session-data.v1": { sdk: "sessionData", description: "Per app session JSON data with revisions: get, replace with expected_revision, subscribe." },
  "artifact.create.v1": { sdk: "artifacts", description: "Create artifacts (files the Runtime stores, references in conversations)." },
  "artifact.read.v1": { sdk: "artifacts", description: "Read artifacts shared with the app's conversation through restricted handles." },
  "capability.request.v1": { sdk: "capabilities", description: "Request declared device capabilities through the Capability Gateway." },
  "app.agent-task.v1": { sdk: "agent", description: "Start agent tasks from the app's UI (the entries `agent_tasks` declares), follow their events, cancel, retry, resubmit, accept or reject their results." },
  "app.storage.v1": { sdk: "storage", description: "The app's own storage namespace: the collections its manifest declares, with their schema, migrations, quota and provenance." },
  "app.backend.v1": { sdk: "backend", description: "Call the back-ends the manifest declares (wasm, stdio-jsonrpc, remote-http), which the host starts and supervises." },
  "app.workflow.v1": { sdk: "workflow", description: "Start, follow and cancel the durable workflows the manifest declares." },
  "app.diagnostics.v1": { sdk: "diagnostics", description: "Write structured diagnostics (logs, errors) to the Runtime's diagnostics sink." },
} as const satisfies Record<string, RuntimeSdkFeatureInfo>;

export type RuntimeSdkFeature = keyof typeof table;

/** Every feature this Runtime implements, with what it unlocks. */
export const RUNTIME_SDK_FEATURES: Readonly<Record<RuntimeSdkFeature, RuntimeSdkFeatureInfo>> = table;

/** The `runtime_sdk.api_version` values this Runtime implements. */
export const RUNTIME_SDK_API_VERSIONS = ["1"] as const;
export type RuntimeSdkApiVersion = (typeof RUNTIME_SDK_API_VERSIONS)[number];

/** The grammar every feature name follows, known or not: `app.session-data.v1`. */
export const FEATURE_NAME_PATTERN = "^[a-z][a-z0-9-]*(?:\\.[a-z][a-z0-9-]*)*\\.v[1-9][0-9]*$";

export function isRuntimeSdkFeature(value: unknown): value is RuntimeSdkFeature {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(table, value);
}

export function isSupportedApiVersion(value: unknown): value is RuntimeSdkApiVersion {
  return typeof value === "string" && (RUNTIME_SDK_API_VERSIONS as readonly string[]).includes(value);
}
