/** Manifests the app SDK's tests install into a test runtime, and the runtime they share (stopped after each test). */
import { afterEach } from "vitest";
import type { AppManifest, AppScope, ToolDescriptor } from "@lineup/protocol";
import { createTestRuntime, type TestRuntime, type TestRuntimeOptions } from "../src/testkit/index.js";

const anyObject = { type: "object" } as const;

/** `notes`: direct tools (no instance needed) and one that needs the app ready (an instance). */
export function notesManifest(): AppManifest {
  const tools: ToolDescriptor[] = [
    {
      method: "notes.count",
      contract_version: "1",
      input_schema: { type: "object", properties: { prefix: { type: "string" } }, additionalProperties: false },
      output_schema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"], additionalProperties: false },
      call_model: "query",
      activation_requirement: "activation_not_required",
    },
    { method: "notes.do", contract_version: "1", input_schema: anyObject, output_schema: anyObject, call_model: "command", activation_requirement: "activation_not_required" },
    { method: "notes.unserved", contract_version: "1", input_schema: anyObject, output_schema: anyObject, call_model: "query", activation_requirement: "activation_not_required" },
    { method: "notes.edit", contract_version: "1", input_schema: anyObject, output_schema: anyObject, call_model: "command", activation_requirement: "app_ready" },
  ];
  return {
    format: "lineup.app.v1",
    app_scope: "notes" as AppScope,
    version: "1.0.0",
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", "app.session-data.v1"] },
    entrypoints: [{ id: "main", kind: "primary", default_eligible: true }],
    tools,
  };
}

/** `timer`: a runtime-owned operation (the pomodoro shape of spec 6.3). */
export function timerManifest(): AppManifest {
  return {
    format: "lineup.app.v1",
    app_scope: "timer" as AppScope,
    version: "1.0.0",
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", "app.session-data.v1"] },
    entrypoints: [{ id: "timer", kind: "contextual" }],
    tools: [
      {
        method: "focus.start",
        contract_version: "1",
        input_schema: { type: "object", properties: { minutes: { type: "integer", minimum: 1, maximum: 120 } }, required: ["minutes"], additionalProperties: false },
        output_schema: {
          type: "object",
          properties: { outcome: { enum: ["completed", "interrupted"] }, operation_id: { type: "string" }, started_at: { type: "string" }, ends_at: { type: "string" }, ended_at: { type: "string" }, reason: { type: "string" } },
          required: ["outcome", "operation_id"],
          additionalProperties: false,
        },
        call_model: "operation",
        requires_foreground: true,
      },
    ],
  };
}

/**
 * For a test file: `start(options)` creates a test runtime with `options`, else `defaults` (by default
 * notes and timer installed and the test playing the host: no automatic ready reports); an `afterEach`
 * stops the latest one started.
 */
export function useTestRuntime(defaults: TestRuntimeOptions = { apps: [{ manifest: notesManifest() }, { manifest: timerManifest() }], autoReady: false }): (options?: TestRuntimeOptions) => Promise<TestRuntime> {
  let kit: TestRuntime | undefined;
  afterEach(async () => {
    await kit?.stop();
    kit = undefined;
  });
  return async (options = defaults) => {
    kit = await createTestRuntime(options);
    return kit;
  };
}

/** Waits, a macrotask at a time, until `predicate` holds; throws after 3 s. */
export async function until(predicate: () => boolean): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
