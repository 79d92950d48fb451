/**
 * The pure parts of the App Registry and Settings apps: byte and key-id formatting, step and
 * operation words (where a failed operation stopped, with its code and meaning), the activity order,
 * the app order, the pasted publisher key's checks and their codes, and the grant and storage order.
 */
import type { AppOperation } from "@lineup/runtime";
import { describe, expect, it } from "vitest";
import { sortApps } from "../src/core-apps/registry/app-order.js";
import { formatBytes, formatTime, shortKeyId } from "../src/core-apps/registry/format.js";
import { activityStatus, describeFailure, newestFirst, operationSummary, STEP_LABELS, stepLabel, unexpectedFailure } from "../src/core-apps/registry/operation-text.js";
import { isGrantChoice, sortGrants, sortUsage } from "../src/core-apps/settings/grant-order.js";
import { parsePublisherKey } from "../src/core-apps/settings/publisher-key.js";
import { refusalOf } from "../src/core-apps/settings/refusal.js";
import { LineUpError } from "@lineup/protocol";
import { loadUiLanguage, setUiLanguage, tIn } from "../src/i18n/index.js";

const KEY_ID = "d3948ed0".padEnd(60, "0") + "3004";
const PUBLIC_KEY = btoa(String.fromCharCode(...Array.from({ length: 32 }, (_, i) => i)));

function op(overrides: Partial<AppOperation>): AppOperation {
  return { operation_id: "op-1", kind: "install", app_scope: "whiteboard", status: "succeeded", requested_at: "2026-11-30T09:00:00.000Z", steps: [], ...overrides };
}

describe("formatBytes", () => {
  it.each([
    [0, "0 bytes"],
    [1, "1 byte"],
    [1023, "1,023 bytes"],
    [1024, "1 KB"],
    [1536, "1.5 KB"],
    [262144, "256 KB"],
    [1024 * 1024 - 1, "1 MB"],
    [1024 * 1024, "1 MB"],
    [12.34 * 1024 * 1024, "12.3 MB"],
    [-1, "unknown"],
    [Number.NaN, "unknown"],
  ])("%d → %s", (bytes, text) => expect(formatBytes(bytes)).toBe(text));
});

describe("shortKeyId and formatTime", () => {
  it("shortens a 64-digit key id to its first 8 and last 4 digits", () => {
    expect(shortKeyId(KEY_ID)).toBe("d3948ed0…3004");
    expect(shortKeyId("abc")).toBe("abc");
  });
  it("formats RFC 3339 in UTC the UI language's way, with seconds on request, and leaves other text alone", async () => {
    await loadUiLanguage("zh-CN");
    expect(formatTime("2026-11-30T09:00:05.123Z")).toBe("Nov 30, 2026, 09:00 UTC");
    expect(formatTime("2026-11-30T10:00:05+01:00", { seconds: true })).toBe("Nov 30, 2026, 09:00:05 UTC");
    setUiLanguage("zh-CN");
    expect(formatTime("2026-11-30T09:00:05.123Z")).toBe("2026年11月30日 UTC 09:00");
    setUiLanguage("en");
    expect(formatTime("yesterday")).toBe("yesterday");
  });
});

describe("operation words", () => {
  it("names every pipeline step in plain words", () => {
    for (const key of Object.values(STEP_LABELS)) expect(tIn("en", key)).toMatch(/^[A-Z][a-z]/);
    expect(stepLabel("verify")).toBe("Check the bundle and its signature");
    expect(stepLabel("something-new")).toBe("something-new");
  });

  it("says where a failed operation stopped, its code, message and meaning", () => {
    const failed = op({
      status: "failed",
      steps: [
        { name: "verify", status: "done" },
        { name: "projection", status: "done" },
        { name: "readiness", status: "failed", code: "app_host_incompatible" },
        { name: "authorization", status: "not_reached" },
      ],
      error: { code: "app_host_incompatible", message: "this host does not offer camera.v1" },
    });
    expect(describeFailure(failed)).toEqual({
      step: "Check this device can run it",
      code: "app_host_incompatible",
      message: "this host does not offer camera.v1",
      meaning: "Readiness failed: the app requires a Runtime SDK feature this host does not offer; nothing changed.",
    });
    expect(describeFailure(op({}))).toBeUndefined();
    expect(describeFailure(op({ status: "awaiting_approval" }))).toBeUndefined();
  });

  it("strips Markdown backticks from the code's meaning and copes with a failure without steps", () => {
    const failure = describeFailure(op({ status: "failed", error: { code: "bundle_missing_signature", message: "no signature" } }));
    expect(failure?.step).toBeUndefined();
    expect(failure?.meaning).toBe("The archive has no lineup.sig.json: an unsigned bundle never runs.");
  });

  it("turns a thrown error into a failed operation with internal_error", () => {
    const failed = unexpectedFailure(new Error("boom"), "remove", "notes", new Date("2026-11-30T09:00:00Z"));
    expect(describeFailure(failed)).toMatchObject({ code: "internal_error", message: "boom" });
    expect(failed.requested_at).toBe("2026-11-30T09:00:00.000Z");
  });

  it("summarises an operation in one line and calls a declined update declined", () => {
    expect(operationSummary(op({ kind: "update", from_version: "1.0.0", to_version: "1.1.0" }))).toBe("Update whiteboard 1.0.0 → 1.1.0");
    expect(operationSummary(op({ to_version: "1.0.0" }))).toBe("Install whiteboard 1.0.0");
    expect(operationSummary(op({ kind: "install", app_scope: "" }))).toBe("Install (unknown app)");
    expect(activityStatus(op({ kind: "approve_update", status: "failed", error: { code: "cancelled_by_user", message: "no" } }))).toEqual({ label: "declined", tone: "neutral" });
    expect(activityStatus(op({ kind: "disable", status: "failed", error: { code: "app_protected", message: "no" } }))).toEqual({ label: "failed", tone: "failed" });
    expect(activityStatus(op({ status: "awaiting_approval" }))).toEqual({ label: "waiting for approval", tone: "waiting" });
  });

  it("orders operations newest first, keeping the manager's order for equal times and unreadable times last", () => {
    const ops = [
      op({ operation_id: "a", requested_at: "2026-11-30T09:00:01Z" }),
      op({ operation_id: "b", requested_at: "2026-11-30T09:00:03Z" }),
      op({ operation_id: "c", requested_at: "not a time" }),
      op({ operation_id: "d", requested_at: "2026-11-30T09:00:03Z" }),
      op({ operation_id: "e", requested_at: "2026-11-30T09:00:02Z" }),
    ];
    expect(newestFirst(ops).map((o) => o.operation_id)).toEqual(["b", "d", "e", "a", "c"]);
  });
});

describe("sortApps", () => {
  it("lists chat, then the other core apps, then installed apps by name", () => {
    const apps = [
      { app_scope: "zebra", kind: "installed" as const, name: "zebra notes" },
      { app_scope: "settings", kind: "core" as const, name: "Settings" },
      { app_scope: "whiteboard", kind: "installed" as const, name: "Whiteboard" },
      { app_scope: "app-registry", kind: "core" as const, name: "Apps" },
      { app_scope: "chat", kind: "core" as const, name: "Chat" },
      { app_scope: "alpha", kind: "installed" as const, name: "whiteboard" },
    ];
    expect(sortApps(apps).map((a) => a.app_scope)).toEqual(["chat", "app-registry", "settings", "alpha", "whiteboard", "zebra"]);
  });
});

describe("parsePublisherKey", () => {
  it("accepts publisher.pub.json as keygen writes it, with an optional trimmed label", () => {
    const pasted = `\n${JSON.stringify({ key_id: KEY_ID, public_key: PUBLIC_KEY }, null, 2)}\n`;
    expect(parsePublisherKey(pasted)).toEqual({ ok: true, value: { key_id: KEY_ID, public_key: PUBLIC_KEY } });
    expect(parsePublisherKey(pasted, "  Example Apps  ")).toEqual({ ok: true, value: { key_id: KEY_ID, public_key: PUBLIC_KEY, label: "Example Apps" } });
  });

  it.each([
    ["", "invalid_params", undefined],
    ["{ key_id: 1", "json_malformed", undefined],
    ['{"__proto__": {}}', "json_forbidden_key", "/__proto__"],
    ["[]", "invalid_params", undefined],
    ['{"public_key": "x"}', "invalid_params", "/key_id"],
    [`{"key_id": "${KEY_ID.toUpperCase()}", "public_key": "${PUBLIC_KEY}"}`, "invalid_params", "/key_id"],
    [`{"key_id": "${KEY_ID}"}`, "invalid_params", "/public_key"],
    [`{"key_id": "${KEY_ID}", "public_key": "AAAA"}`, "invalid_params", "/public_key"],
    [`{"key_id": "${KEY_ID}", "public_key": "not base64!"}`, "invalid_params", "/public_key"],
  ])("refuses %j with %s", (text, code, path) => {
    const result = parsePublisherKey(text);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe(code);
      expect(result.error.path).toBe(path);
    }
  });

  it("refuses an over-long label and a paste larger than a key file", () => {
    const json = JSON.stringify({ key_id: KEY_ID, public_key: PUBLIC_KEY });
    expect(parsePublisherKey(json, "x".repeat(81))).toMatchObject({ ok: false, error: { code: "invalid_params", path: "/label" } });
    expect(parsePublisherKey(`${json}${" ".repeat(5000)}x`)).toMatchObject({ ok: false, error: { code: "json_too_large" } });
  });
});

describe("grants, storage and refusals", () => {
  it("sorts grants by app then capability, and knows the three choices", () => {
    const grants = [
      { app_scope: "notes", capability: "link.open", decision: "denied" as const, decided_at: "" },
      { app_scope: "board", capability: "file.save", decision: "granted" as const, decided_at: "" },
      { app_scope: "notes", capability: "clipboard.write", decision: "granted" as const, decided_at: "" },
    ];
    expect(sortGrants(grants).map((g) => `${g.app_scope}/${g.capability}`)).toEqual(["board/file.save", "notes/clipboard.write", "notes/link.open"]);
    expect(["granted", "denied", "ask", "maybe"].filter(isGrantChoice)).toEqual(["granted", "denied", "ask"]);
  });

  it("sorts storage largest first, then by scope", () => {
    const rows = [
      { app_scope: "b", bytes: 10 },
      { app_scope: "a", bytes: 10 },
      { app_scope: "c", bytes: 99 },
    ];
    expect(sortUsage(rows).map((r) => r.app_scope)).toEqual(["c", "a", "b"]);
  });

  it("reads a refusal's code from a LineUpError or a ProtocolError, else internal_error", () => {
    expect(refusalOf(new LineUpError("invalid_params", "key_id is not the SHA-256 of public_key"))).toEqual({ code: "invalid_params", message: "key_id is not the SHA-256 of public_key" });
    expect(refusalOf({ code: "bundle_untrusted_key", message: "" })).toEqual({ code: "bundle_untrusted_key", message: "The change was refused." });
    expect(refusalOf({ code: "made_up", message: "x" })).toEqual({ code: "internal_error", message: "[object Object]" });
    expect(refusalOf(new Error("store gone"))).toEqual({ code: "internal_error", message: "store gone" });
  });
});
