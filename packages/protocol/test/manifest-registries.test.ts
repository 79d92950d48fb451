import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  CAPABILITIES,
  CAPABILITY_NAME_PATTERN,
  CAPABILITY_RESULT_STATUSES,
  FEATURE_NAME_PATTERN,
  RUNTIME_SDK_API_VERSIONS,
  RUNTIME_SDK_FEATURES,
  capabilityCompleted,
  capabilityRefused,
  checkCapabilityResult,
  isCapabilityName,
  isErrorCode,
  isRuntimeSdkFeature,
  isSupportedApiVersion,
  maxRisk,
} from "@lineup/protocol";

const docs = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "docs", "manifest.md"), "utf8");

describe("runtime SDK feature registry", () => {
  it("offers every feature of Runtime SDK v1", () => {
    const expected = [
      "app.lifecycle.v1",
      "app.tools.v1",
      "app.state.v1",
      "app.agent-messages.v1",
      "app.actions.v1",
      "app.navigation.v1",
      "surface.state.v1",
      "surface.events.v1",
      "app.session-data.v1",
      "artifact.create.v1",
      "artifact.read.v1",
      "capability.request.v1",
      "app.agent-task.v1",
      "app.storage.v1",
      "app.backend.v1",
      "app.workflow.v1",
      "app.diagnostics.v1",
    ];
    for (const name of expected) expect(isRuntimeSdkFeature(name), name).toBe(true);
    expect(Object.keys(RUNTIME_SDK_FEATURES).sort()).toEqual([...expected].sort());
  });

  it("names every feature by the feature grammar and describes it", () => {
    const grammar = new RegExp(FEATURE_NAME_PATTERN, "u");
    for (const [name, info] of Object.entries(RUNTIME_SDK_FEATURES)) {
      expect(grammar.test(name), name).toBe(true);
      expect(info.description.length).toBeGreaterThan(10);
    }
    expect(grammar.test("app.tools")).toBe(false);
    expect(grammar.test("App.tools.v1")).toBe(false);
  });

  it("supports api version 1 only", () => {
    expect(RUNTIME_SDK_API_VERSIONS).toEqual(["1"]);
    expect(isSupportedApiVersion("1")).toBe(true);
    expect(isSupportedApiVersion("2")).toBe(false);
    expect(isSupportedApiVersion(1)).toBe(false);
  });

  it("is documented in docs/manifest.md, every feature", () => {
    for (const name of Object.keys(RUNTIME_SDK_FEATURES)) expect(docs, name).toContain(`| \`${name}\` |`);
  });
});

describe("capability registry", () => {
  it("names each capability by the grammar, with a risk, foreground need and confirmation default", () => {
    const grammar = new RegExp(CAPABILITY_NAME_PATTERN, "u");
    for (const [name, info] of Object.entries(CAPABILITIES)) {
      expect(grammar.test(name), name).toBe(true);
      expect(["low", "medium", "high"]).toContain(info.risk);
      expect(typeof info.requires_foreground).toBe("boolean");
      expect(typeof info.requires_confirmation).toBe("boolean");
    }
  });

  it("asks the user before every high-risk capability", () => {
    for (const [name, info] of Object.entries(CAPABILITIES)) {
      if (info.risk === "high") expect(info.requires_confirmation, name).toBe(true);
    }
    expect(CAPABILITIES["microphone.record"]).toMatchObject({ risk: "high", requires_foreground: true, requires_confirmation: true });
  });

  it("lets background apps notify and ask for attention, but not record or pick files", () => {
    expect(CAPABILITIES["notification.show"].requires_foreground).toBe(false);
    expect(CAPABILITIES["window.attention"].requires_foreground).toBe(false);
    expect(CAPABILITIES["file.pick"].requires_foreground).toBe(true);
    expect(CAPABILITIES["microphone.record"].requires_foreground).toBe(true);
  });

  it("knows only registered names", () => {
    expect(isCapabilityName("file.pick")).toBe(true);
    expect(isCapabilityName("camera.capture")).toBe(false);
    expect(isCapabilityName("constructor")).toBe(false);
  });

  it("orders risks", () => {
    expect(maxRisk("low", "high")).toBe("high");
    expect(maxRisk("medium", "low")).toBe("medium");
  });

  it("is documented in docs/manifest.md with its risk", () => {
    for (const [name, info] of Object.entries(CAPABILITIES)) {
      const row = docs.split("\n").find((line) => line.startsWith(`| \`${name}\` |`));
      expect(row, name).toBeDefined();
      expect(row).toContain(`| ${info.risk} |`);
    }
  });
});

describe("capability results", () => {
  it("has exactly the outcomes of spec 6.3, and every refusal is an error code", () => {
    expect([...CAPABILITY_RESULT_STATUSES].sort()).toEqual(
      ["completed", "cancelled_by_user", "permission_denied", "unsupported_on_host", "policy_denied", "expired", "failed"].sort(),
    );
    for (const status of CAPABILITY_RESULT_STATUSES) if (status !== "completed") expect(isErrorCode(status), status).toBe(true);
  });

  it("accepts a completed value and a refusal with a precise code", () => {
    expect(checkCapabilityResult(capabilityCompleted({ artifact_id: "a1" }))).toEqual({ ok: true, value: { status: "completed", value: { artifact_id: "a1" } } });
    const refusal = capabilityRefused("permission_denied", "not declared", "capability_not_declared");
    expect(refusal).toEqual({ status: "permission_denied", code: "capability_not_declared", message: "not declared" });
    expect(checkCapabilityResult(refusal).ok).toBe(true);
    expect(capabilityRefused("expired", "too late")).toEqual({ status: "expired", code: "expired", message: "too late" });
  });

  it("treats a malformed host answer as the host failing", () => {
    for (const bad of [
      { status: "completed" },
      { status: "completed", value: 1, code: "failed" },
      { status: "denied", code: "failed", message: "x" },
      { status: "failed", message: "no code" },
      { status: "failed", code: "no_such_code", message: "x" },
      { status: "cancelled_by_user", code: "cancelled_by_user", message: "x", path: "/secret/file" },
      null,
    ]) {
      const result = checkCapabilityResult(bad);
      expect(result.ok, JSON.stringify(bad)).toBe(false);
      if (!result.ok) expect(result.error.code).toBe("failed");
    }
  });
});
