/** Manifests the manifest tests start from; each test changes one thing. */
import type { AppManifest, AppScope, ToolDescriptor } from "@lineup/protocol";

/** The spec 9 example, verbatim. */
export const SPEC_9_EXAMPLE = {
  format: "lineup.app.v1",
  app_scope: "whiteboard" as AppScope,
  version: "1.0.0",
  runtime_sdk: {
    api_version: "1",
    required_features: ["app.lifecycle.v1", "app.tools.v1", "surface.state.v1", "app.session-data.v1"],
    optional_features: ["artifact.create.v1"],
  },
  entrypoints: [{ id: "canvas", kind: "contextual", default_eligible: false }],
  agent_subscriptions: [
    { type: "lineup.app.state.patch", scope: "instance" },
    { type: "lineup.tool.invoke", scope: "conversation" },
  ],
  tools: [
    {
      method: "board.create",
      contract_version: "1",
      handling: "direct",
      delivery: "miniapp_sdk",
      activation_requirement: "app_ready",
      input_schema: { type: "object", additionalProperties: false },
      output_schema: { type: "object", additionalProperties: false },
    },
  ],
} as const satisfies AppManifest;

export const recordTool: ToolDescriptor = {
  method: "voice.request_recording",
  contract_version: "1",
  title: "Record a voice note",
  input_schema: { type: "object", properties: { max_seconds: { type: "integer", minimum: 1 } }, required: ["max_seconds"] },
  output_schema: { type: "object", properties: { artifact_id: { type: "string" } }, required: ["artifact_id"] },
  call_model: "interactive",
  requires_foreground: true,
  risk_level: "high",
  capabilities: ["microphone.record"],
};

/** A voice app with one capability and one tool that uses it. */
export function voiceManifest(): AppManifest {
  return {
    format: "lineup.app.v1",
    app_scope: "voice" as AppScope,
    version: "1.0.0",
    name: "Voice",
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", "capability.request.v1"] },
    entrypoints: [{ id: "recorder", kind: "contextual" }],
    agent_subscriptions: [{ type: "lineup.tool.invoke", scope: "conversation" }],
    tools: [structuredClone(recordTool)],
    capabilities: [{ name: "microphone.record", purpose: "Record the note the agent asked for." }],
  };
}

/** A deep copy, so a test can change one field. */
export function copy<T>(value: T): T {
  return structuredClone(value) as T;
}
