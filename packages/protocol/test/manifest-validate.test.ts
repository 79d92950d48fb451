import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_TIMEOUT_MS,
  decodeManifest,
  launchEntrypoint,
  resolveToolDescriptor,
  validateCoreManifest,
  validateManifest,
  validateToolDescriptor,
  type AppManifest,
  type Result,
} from "@lineup/protocol";
import { copy, recordTool, SPEC_9_EXAMPLE, voiceManifest } from "./manifest-samples.js";

function errorOf(result: Result<unknown>) {
  if (result.ok) throw new Error("expected a refusal");
  return result.error;
}

describe("validateManifest", () => {
  it("accepts the spec 9 example and returns the very same object, without defaults filled in", () => {
    const manifest = copy(SPEC_9_EXAMPLE);
    const result = validateManifest(manifest);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.value).toBe(manifest);
    expect(manifest.tools[0]).not.toHaveProperty("call_model");
  });

  it("accepts the same manifest from text and from UTF-8 bytes", () => {
    const text = JSON.stringify(voiceManifest());
    expect(decodeManifest(text)).toEqual({ ok: true, value: voiceManifest() });
    expect(decodeManifest(new TextEncoder().encode(text))).toEqual({ ok: true, value: voiceManifest() });
    expect(errorOf(decodeManifest("{"))).toMatchObject({ code: "json_malformed" });
  });

  it("applies JSON limits before anything else", () => {
    const deep = copy(voiceManifest()) as AppManifest & { storage?: unknown };
    let nested: Record<string, unknown> = {};
    for (let i = 0; i < 70; i++) nested = { a: nested };
    const withDeepSchema = { ...deep, tools: [{ ...recordTool, output_schema: nested }] };
    expect(errorOf(validateManifest(withDeepSchema)).code).toBe("json_too_deep");
    expect(errorOf(decodeManifest(JSON.stringify(voiceManifest()), { maxBytes: 100 })).code).toBe("json_too_large");
  });

  it("separates installed and core rules", () => {
    const chat = { ...copy(SPEC_9_EXAMPLE), app_scope: "chat", tools: [{ ...copy(SPEC_9_EXAMPLE.tools[0]), delivery: "app_sdk" }] };
    expect(errorOf(validateManifest(chat)).code).toBe("manifest_reserved_scope");
    expect(validateCoreManifest(chat).ok).toBe(true);
    expect(errorOf(validateCoreManifest({ ...chat, app_scope: "runtime" })).code).toBe("manifest_reserved_scope");
    // A core manifest's tools default to in-process delivery; an installed one's to the sandboxed SDK.
    const { delivery: _delivery, ...toolWithoutDelivery } = copy(SPEC_9_EXAMPLE.tools[0]);
    const undeclared = { ...chat, tools: [toolWithoutDelivery] };
    expect(validateCoreManifest(undeclared).ok).toBe(true);
    expect(resolveToolDescriptor(undeclared.tools[0]!, "core").delivery).toBe("app_sdk");
    expect(resolveToolDescriptor(undeclared.tools[0]!).delivery).toBe("miniapp_sdk");
  });

  it("checks tool capabilities against the manifest's declarations", () => {
    const manifest = voiceManifest();
    manifest.capabilities = [];
    expect(errorOf(validateManifest(manifest))).toMatchObject({ code: "manifest_unknown_capability", path: "/tools/0/capabilities/0" });
  });

  it("never throws and never pollutes a prototype, whatever it is given", () => {
    const base = voiceManifest() as unknown as Record<string, unknown>;
    const keys = Object.keys(base);
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBigInt: true }), fc.constantFrom(...keys), (junk, key) => {
        for (const input of [junk, { ...base, [key]: junk }]) {
          const result = validateManifest(input);
          if (!result.ok) expect(typeof result.error.code).toBe("string");
        }
      }),
      { numRuns: 1_000 },
    );
    expect(errorOf(decodeManifest('{"format":"lineup.app.v1","constructor":{"prototype":{"polluted":1}}}')).code).toBe("json_forbidden_key");
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("refuses every manifest whose scope, version or feature is mutated to something unknown", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }), (junk) => {
        const feature = { ...copy(SPEC_9_EXAMPLE), runtime_sdk: { ...SPEC_9_EXAMPLE.runtime_sdk, required_features: [...SPEC_9_EXAMPLE.runtime_sdk.required_features, `x${junk}.v1`] } };
        expect(validateManifest(feature).ok).toBe(false);
        const version = { ...copy(SPEC_9_EXAMPLE), version: `${junk}` };
        if (!/^[0-9]+\.[0-9]+\.[0-9]+/.test(junk)) expect(validateManifest(version).ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe("validateToolDescriptor", () => {
  it("accepts a descriptor on its own, as defineAgentTools emits it", () => {
    expect(validateToolDescriptor(recordTool)).toEqual({ ok: true, value: recordTool });
    expect(validateToolDescriptor(SPEC_9_EXAMPLE.tools[0]).ok).toBe(true);
  });

  it("reports paths relative to the descriptor", () => {
    expect(errorOf(validateToolDescriptor({ ...recordTool, capabilities: ["mind.read"] }))).toMatchObject({ code: "manifest_unknown_capability", path: "/capabilities/0" });
    expect(errorOf(validateToolDescriptor({ ...recordTool, input_schema: { type: "object", properties: { a: { $ref: "http://x/y" } } } }))).toMatchObject({
      code: "manifest_invalid_tool_schema",
      path: "/input_schema/properties/a/$ref",
    });
    expect(errorOf(validateToolDescriptor({ ...recordTool, risk_level: "medium" }))).toMatchObject({ code: "manifest_invalid", path: "/risk_level" });
    expect(errorOf(validateToolDescriptor({ ...recordTool, method: "Record" }))).toMatchObject({ code: "manifest_invalid", path: "/method" });
  });

  it("applies the core delivery rule only when asked for core", () => {
    const inProcess = { ...recordTool, delivery: "app_sdk" };
    expect(errorOf(validateToolDescriptor(inProcess))).toMatchObject({ path: "/delivery" });
    expect(validateToolDescriptor(inProcess, { kind: "core" }).ok).toBe(true);
  });
});

describe("resolveToolDescriptor defaults", () => {
  const minimal = { method: "board.create", contract_version: "1", input_schema: { type: "object" }, output_schema: {} };

  it("fills the spec 9 minimal tool with conservative defaults", () => {
    expect(resolveToolDescriptor(minimal)).toEqual({
      ...minimal,
      title: "board.create",
      description: "",
      call_model: "command",
      handling: "direct",
      delivery: "miniapp_sdk",
      activation_requirement: "app_ready",
      launch_policy: "if_needed",
      requires_foreground: false,
      restore_focus: false,
      timeout_ms: 30_000,
      idempotent: false,
      risk_level: "low",
      capabilities: [],
    });
  });

  it("derives defaults from the call model, the foreground need and the capabilities", () => {
    expect(resolveToolDescriptor({ ...minimal, call_model: "query" })).toMatchObject({ idempotent: true, timeout_ms: DEFAULT_TIMEOUT_MS.query });
    expect(resolveToolDescriptor({ ...minimal, call_model: "interactive" })).toMatchObject({ activation_requirement: "foreground_required", restore_focus: true, timeout_ms: 300_000 });
    expect(resolveToolDescriptor({ ...minimal, call_model: "operation" })).toMatchObject({ handling: "operation", timeout_ms: 3_600_000 });
    expect(resolveToolDescriptor({ ...minimal, requires_foreground: true })).toMatchObject({ activation_requirement: "foreground_required" });
    expect(resolveToolDescriptor({ ...minimal, activation_requirement: "activation_not_required" })).toMatchObject({ launch_policy: "never" });
    expect(resolveToolDescriptor({ ...minimal, capabilities: ["notification.show", "file.save"] })).toMatchObject({ risk_level: "medium" });
  });

  it("never produces a descriptor the validator would refuse", () => {
    const callModel = fc.constantFrom(undefined, "query", "command", "interactive", "operation");
    const activation = fc.constantFrom(undefined, "app_ready", "foreground_required", "activation_not_required");
    fc.assert(
      fc.property(callModel, activation, fc.boolean(), fc.subarray(["notification.show", "file.save", "microphone.record"]), (call_model, activation_requirement, requires_foreground, capabilities) => {
        const tool: Record<string, unknown> = { ...minimal, requires_foreground, capabilities };
        if (call_model !== undefined) tool["call_model"] = call_model;
        if (activation_requirement !== undefined) tool["activation_requirement"] = activation_requirement;
        if (validateToolDescriptor(tool).ok) {
          // Writing every default out explicitly must still be valid.
          expect(validateToolDescriptor(resolveToolDescriptor(tool as never))).toMatchObject({ ok: true });
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("launchEntrypoint", () => {
  const tool = { method: "a.b", contract_version: "1", input_schema: { type: "object" }, output_schema: {} };
  const manifest = (entrypoints: AppManifest["entrypoints"]): AppManifest => ({ ...voiceManifest(), entrypoints });

  it("opens the tool's own entrypoint, else the first primary, else the first shown one", () => {
    const all: AppManifest["entrypoints"] = [
      { id: "ticker", kind: "background" },
      { id: "card", kind: "contextual" },
      { id: "main", kind: "primary" },
    ];
    expect(launchEntrypoint(manifest(all), { ...tool, entrypoint: "card" }).id).toBe("card");
    expect(launchEntrypoint(manifest(all), tool).id).toBe("main");
    expect(launchEntrypoint(manifest(all.slice(0, 2)), tool).id).toBe("card");
    expect(launchEntrypoint(manifest(all.slice(0, 1)), tool).id).toBe("ticker");
  });
});
