/**
 * The Surface Bridge host snapshot (the first frame a host sends an app) for tests and benches: one
 * valid `BridgeHostSnapshot` with fixed defaults (light theme, foreground, conversation `conv-1`, no
 * capabilities, the lifecycle and session-data features), overridden field by field.
 */
import type { BridgeHostSnapshot } from "@lineup/protocol";

/** The SDK features of an app that also takes tool calls and creates artifacts (the whiteboard). */
export const TOOL_APP_FEATURES: string[] = ["app.lifecycle.v1", "app.tools.v1", "app.session-data.v1", "artifact.create.v1"];

/** Fields a test may replace; ids are plain strings here (the wire type brands them). */
export type SnapshotOverrides = Partial<Omit<BridgeHostSnapshot, "app_scope" | "instance_id" | "scope">> & {
  readonly app_scope?: string;
  readonly instance_id?: string;
  readonly scope?: { readonly conversation_id?: string; readonly operation_id?: string; readonly parent_instance_id?: string };
};

/** A valid snapshot; every top-level field in `overrides` replaces the default one whole. */
export function testSnapshot(overrides: SnapshotOverrides = {}): BridgeHostSnapshot {
  const snapshot = {
    app_scope: "app",
    app_version: "1.0.0",
    instance_id: "app-1",
    entrypoint: "main",
    route: "/",
    runtime_origin: "null",
    scope: { conversation_id: "conv-1" },
    theme: { mode: "light", effective_mode: "light", color_scheme_id: "lineup-default", css_variables: {} },
    locale: "en",
    timezone: "UTC",
    workspace: {},
    display_mode: "foreground",
    capabilities: [],
    granted_permissions: [],
    sdk: { api_version: "1", features: ["app.lifecycle.v1", "app.session-data.v1"] },
    ...overrides,
  };
  return snapshot as BridgeHostSnapshot;
}
