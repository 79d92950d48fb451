/** Manifests and registries the apps, tools and capabilities tests start from. */
import { RUNTIME_SDK_FEATURES, validateManifest, type AppManifest, type AppScope, type ToolDescriptor } from "@lineup/protocol";
import { createAppRegistryState, type AppRegistryState, type BundleCandidate, type HostEnvironment } from "../src/app-lifecycle/manager/index.js";

export const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);

/** A host offering every Runtime SDK feature. */
export const FULL_HOST: HostEnvironment = { features: Object.keys(RUNTIME_SDK_FEATURES) };

export function coreManifest(scope: "chat" | "app-registry" | "settings"): AppManifest {
  return {
    format: "lineup.app.v1",
    app_scope: scope as AppScope,
    version: "1.0.0",
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1"] },
    entrypoints: [{ id: "main", kind: "primary", default_eligible: scope === "chat" }],
  };
}

export function coreRegistry(now = T0): AppRegistryState {
  return createAppRegistryState([coreManifest("chat"), coreManifest("app-registry"), coreManifest("settings")], now);
}

export const boardCreate: ToolDescriptor = {
  method: "board.create",
  contract_version: "1",
  title: "Create a board",
  input_schema: { type: "object", properties: { title: { type: "string", maxLength: 80 } }, required: ["title"], additionalProperties: false },
  output_schema: { type: "object", properties: { board_id: { type: "string" } }, required: ["board_id"], additionalProperties: false },
  call_model: "command",
  activation_requirement: "app_ready",
};

export const boardSummary: ToolDescriptor = {
  method: "board.summary",
  contract_version: "1",
  input_schema: { type: "object" },
  output_schema: { type: "object" },
  call_model: "query",
  activation_requirement: "activation_not_required",
};

export function whiteboardManifest(version = "1.0.0", extra: Partial<AppManifest> = {}): AppManifest {
  return {
    format: "lineup.app.v1",
    app_scope: "whiteboard" as AppScope,
    version,
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1"] },
    entrypoints: [{ id: "canvas", kind: "primary", default_eligible: true }],
    tools: [structuredClone(boardCreate), structuredClone(boardSummary)],
    ...extra,
  };
}

/** The whiteboard with a new capability: an update to this waits for approval. */
export function whiteboardWithClipboard(version: string): AppManifest {
  const m = whiteboardManifest(version);
  return {
    ...m,
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", "capability.request.v1"] },
    capabilities: [{ name: "clipboard.write", purpose: "Copy the board's link." }],
  };
}

export const focusStart: ToolDescriptor = {
  method: "focus.start",
  contract_version: "1",
  title: "Start a focus session",
  input_schema: { type: "object", properties: { minutes: { type: "integer", minimum: 1, maximum: 120 } }, required: ["minutes"], additionalProperties: false },
  output_schema: {
    type: "object",
    properties: { outcome: { enum: ["completed", "interrupted"] }, operation_id: { type: "string" }, started_at: { type: "string" }, ends_at: { type: "string" }, ended_at: { type: "string" }, reason: { type: "string" } },
    required: ["outcome", "operation_id"],
    additionalProperties: false,
  },
  call_model: "operation",
  requires_foreground: true,
};

export const focusInterrupt: ToolDescriptor = {
  method: "focus.interrupt",
  contract_version: "1",
  input_schema: { type: "object", properties: { reason: { type: "string" } }, additionalProperties: false },
  output_schema: { type: "object", properties: { interrupted: { type: "boolean" } }, required: ["interrupted"], additionalProperties: false },
  call_model: "command",
  activation_requirement: "activation_not_required",
};

export function pomodoroManifest(version = "1.0.0"): AppManifest {
  return {
    format: "lineup.app.v1",
    app_scope: "pomodoro" as AppScope,
    version,
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1"] },
    entrypoints: [{ id: "timer", kind: "contextual" }],
    tools: [structuredClone(focusStart), structuredClone(focusInterrupt)],
  };
}

export function voiceManifest(version = "1.0.0"): AppManifest {
  return {
    format: "lineup.app.v1",
    app_scope: "voice" as AppScope,
    version,
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", "capability.request.v1"] },
    entrypoints: [{ id: "recorder", kind: "primary", default_eligible: true }],
    tools: [
      {
        method: "voice.request_recording",
        contract_version: "1",
        input_schema: { type: "object", properties: { max_seconds: { type: "integer", minimum: 1 } }, required: ["max_seconds"] },
        output_schema: { type: "object", properties: { artifact_id: { type: "string" } }, required: ["artifact_id"] },
        call_model: "interactive",
        requires_foreground: true,
        risk_level: "high",
        capabilities: ["microphone.record"],
      },
    ],
    capabilities: [{ name: "microphone.record", purpose: "Record the note the agent asked for." }],
  };
}

/** A bundle candidate as the verifier hands it over: its manifest checked (installed-app rules), or the refusal. */
export function candidate(manifest: unknown, digest = `sha256-${(manifest as { version?: string }).version ?? "x"}`): BundleCandidate {
  const checked = validateManifest(manifest);
  if (!checked.ok) return { manifest: undefined, bundle_digest: digest, verification: { ok: false, error: checked.error } };
  return { manifest: checked.value, bundle_digest: digest, verification: { ok: true } };
}
