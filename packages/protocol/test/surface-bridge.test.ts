import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BRIDGE_EVENTS,
  BRIDGE_METHODS,
  BRIDGE_PROTOCOL,
  ERROR_CODES,
  bridgeError,
  bridgeEvent,
  bridgeRequest,
  bridgeResult,
  decodeBridgeMessage,
  isErrorCode,
  validators,
  type BridgeDirection,
  type BridgeHostSnapshot,
} from "@lineup/protocol";

const nonce = "nonce-wb1-7Qm2Zr8Kx4pL";
const toHost = { nonce, direction: "to_host" } as const;

const snapshot: BridgeHostSnapshot = {
  app_scope: "whiteboard",
  app_version: "1.0.0",
  instance_id: "wb-1",
  entrypoint: "canvas",
  route: "/",
  runtime_origin: "null",
  scope: {},
  theme: { mode: "light", effective_mode: "light", color_scheme_id: "default", css_variables: {} },
  locale: "en",
  timezone: "UTC",
  workspace: {},
  display_mode: "inline_card",
  capabilities: [],
  granted_permissions: [],
  sdk: { api_version: "1", features: ["app.lifecycle.v1"] },
} as unknown as BridgeHostSnapshot;

function codeOf(value: unknown, expect: { nonce: string; direction: BridgeDirection; maxBytes?: number }): string {
  const r = decodeBridgeMessage(value, expect);
  return r.ok ? "ok" : r.error.code;
}

describe("bridge catalogue", () => {
  it("gives every method body and event body its own generated validator", () => {
    const ids = new Set<string>();
    for (const m of Object.values(BRIDGE_METHODS)) {
      for (const schema of [m.params, m.result]) {
        expect(schema.$id, JSON.stringify(schema).slice(0, 80)).toMatch(/^urn:lineup:surface-bridge\./);
        expect(validators[schema.$id!], schema.$id).toBeTypeOf("function");
        ids.add(schema.$id!);
      }
    }
    for (const e of Object.values(BRIDGE_EVENTS)) {
      expect(validators[e.data.$id!], e.data.$id).toBeTypeOf("function");
      ids.add(e.data.$id!);
    }
    expect(ids.size).toBe(Object.keys(BRIDGE_METHODS).length * 2 + Object.keys(BRIDGE_EVENTS).length);
  });

  it("lets the host ask the app only for tool.invoke and the surface.ping heartbeat, and sends every event host → app", () => {
    const toApp = Object.entries(BRIDGE_METHODS).filter(([, m]) => m.direction === "to_app").map(([name]) => name);
    expect(toApp).toEqual(["tool.invoke", "surface.ping"]);
    expect(Object.values(BRIDGE_EVENTS).every((e) => e.direction === "to_app")).toBe(true);
    expect(Object.keys(BRIDGE_EVENTS)).toContain("host.snapshot");
  });
});

describe("decodeBridgeMessage", () => {
  it("accepts what the builders build, in the builder's direction only", () => {
    const cases: Array<[unknown, BridgeDirection]> = [
      [bridgeEvent(nonce, "host.snapshot", snapshot), "to_app"],
      [bridgeEvent(nonce, "lifecycle", { state: "closing", flush_deadline_ms: 2000 }), "to_app"],
      [bridgeRequest(nonce, 1, "session_data.replace", { data: { a: 1 }, expected_revision: 0 }), "to_host"],
      [bridgeResult(nonce, 1, "session_data.replace", { revision: 1 }), "to_app"],
      [bridgeError(nonce, 2, "session_data.replace", { code: "revision_conflict", message: "stale", path: "/expected_revision" }), "to_app"],
      [bridgeRequest(nonce, 3, "tool.invoke", { call_id: "call-1" as never, method: "board.create", arguments: {} }), "to_app"],
      [bridgeResult(nonce, 3, "tool.invoke", { outcome: "completed", result: null }), "to_host"],
      [bridgeRequest(nonce, 4, "surface.ping", {}), "to_app"],
      [bridgeResult(nonce, 4, "surface.ping", {}), "to_host"],
      [bridgeRequest(nonce, 5, "agent.cancel_turn", {}), "to_host"],
      [bridgeResult(nonce, 5, "agent.cancel_turn", { receipt_id: "rcpt-1", conversation_id: "conv-1" as never, accepted_at: "2026-12-02T09:30:00.000Z", status: "queued" }), "to_app"],
      [bridgeError(nonce, 6, "agent.cancel_turn", { code: "foreground_required", message: "the app is not in front" }), "to_app"],
    ];
    for (const [message, direction] of cases) {
      const r = decodeBridgeMessage(message, { nonce, direction });
      expect(r, JSON.stringify(message)).toEqual({ ok: true, value: message });
      if (r.ok) expect(r.value).toBe(message);
      const other = direction === "to_host" ? "to_app" : "to_host";
      expect(codeOf(message, { nonce, direction: other })).toBe("method_not_found");
    }
  });

  it("refuses every message when the receiver's own nonce is empty", () => {
    const message = { ...bridgeRequest("", 1, "lifecycle.ready", {}) };
    expect(codeOf(message, { nonce: "", direction: "to_host" })).toBe("bridge_bad_nonce");
  });

  it("checks the nonce before the frame, so a spoofed message learns nothing else", () => {
    const spoof = { bridge: BRIDGE_PROTOCOL, v: 1, nonce: "x".repeat(20), kind: "request", id: -1, method: "NOPE", params: 1 };
    const r = decodeBridgeMessage(spoof, toHost);
    expect(r.ok ? "ok" : r.error).toEqual({ code: "bridge_bad_nonce", message: expect.any(String) as string, path: "/nonce" });
  });

  it("refuses structured-clone values that are not JSON", () => {
    const base = bridgeRequest(nonce, 1, "event.emit", { name: "x", data: null });
    const notJson: unknown[] = [
      { ...base, params: { name: "x", data: undefined } },
      { ...base, params: { name: "x", data: new Date(0) } },
      { ...base, params: { name: "x", data: new Map() } },
      { ...base, params: { name: "x", data: Number.NaN } },
      { ...base, params: { name: "x", data: 10n } },
      { ...base, params: { name: "x", data: () => 1 } },
    ];
    for (const value of notJson) expect(codeOf(value, toHost)).toBe("json_malformed");
  });

  it("refuses a message one byte over the size limit and accepts one at it", () => {
    const at = (data: string) => bridgeRequest(nonce, 1, "event.emit", { name: "x", data });
    const size = JSON.stringify(at("")).length;
    expect(codeOf(at("a".repeat(100)), { ...toHost, maxBytes: size + 100 })).toBe("ok");
    expect(codeOf(at("a".repeat(101)), { ...toHost, maxBytes: size + 100 })).toBe("json_too_large");
  });

  it("refuses a 100,000-deep value without overflowing the stack", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(codeOf(bridgeRequest(nonce, 1, "event.emit", { name: "x", data: deep as never }), toHost)).toBe("json_too_deep");
  });

  it("never throws on fuzzed input and refuses only with table codes", () => {
    const valid = [
      bridgeRequest(nonce, 1, "session_data.get", {}),
      bridgeRequest(nonce, 2, "capability.request", { capability: "file.pick", purpose: "p", input: null }),
      bridgeResult(nonce, 3, "tool.invoke", { outcome: "pending" }),
      bridgeEvent(nonce, "theme.changed", { theme: snapshot.theme }),
    ] as unknown as Record<string, unknown>[];
    const keys = ["bridge", "v", "nonce", "kind", "id", "method", "name", "params", "result", "error", "data", "extra"];
    const mutated = fc.record({
      index: fc.nat({ max: valid.length - 1 }),
      key: fc.constantFrom(...keys),
      value: fc.oneof(fc.anything(), fc.constantFrom(nonce, "request", "response", "event", "tool.invoke", "session_data.get", 1)),
    });
    fc.assert(
      fc.property(mutated, fc.constantFrom<BridgeDirection>("to_host", "to_app"), ({ index, key, value }, direction) => {
        const r = decodeBridgeMessage({ ...valid[index]!, [key]: value }, { nonce, direction });
        if (!r.ok) expect(Object.prototype.hasOwnProperty.call(ERROR_CODES, r.error.code)).toBe(true);
      }),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const r = decodeBridgeMessage(value, toHost);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(isErrorCode(r.error.code)).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });
});
