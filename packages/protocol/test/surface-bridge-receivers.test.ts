/**
 * Each end's decoder against the full one (`decodeBridgeMessage`), on every golden fixture of the
 * bridge: the host's (`decodeBridgeMessageInHost`) gives the same verdict on everything an app
 * sends; the app's (`decodeBridgeMessageInApp`) the same verdict on what the host sends, except that
 * a body the host writes (a result, an event's data) is not checked against its schema on the page,
 * and a response's method is matched by the page's pending requests rather than the catalogue.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BRIDGE_EVENTS, BRIDGE_METHODS, bridgeEvent, bridgeRequest, bridgeResult, decodeBridgeMessage, decodeBridgeMessageInApp, decodeBridgeMessageInHost } from "@lineup/protocol";
import { bridgeExpectationOf, bridgeValueOf } from "./bridge-fixture-expectation.js";
import { fixtureText, type Fixture } from "./fixture-decoders.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "surface-bridge");
const fixtures = ["valid", "invalid"].flatMap((kind) =>
  readdirSync(join(root, kind))
    .filter((n) => n.endsWith(".json"))
    .map((n): [string, Fixture] => [`${kind}/${n}`, JSON.parse(readFileSync(join(root, kind, n), "utf8")) as Fixture]),
);
const toApp = fixtures.filter(([, f]) => f["direction"] === "to_app");
const toHost = fixtures.filter(([, f]) => f["direction"] === "to_host");

describe("decodeBridgeMessageInHost", () => {
  it("has to_host fixtures to compare on", () => {
    expect(toHost.length).toBeGreaterThan(10);
  });

  it.each(toHost)("%s: gives the full decoder's verdict, body checks included", (_name, fixture) => {
    const value = bridgeValueOf(fixture, fixtureText(fixture));
    if (!value.ok) throw new Error(value.error.message);
    const expectation = bridgeExpectationOf(fixture);
    expect(decodeBridgeMessageInHost(value.value, expectation)).toEqual(decodeBridgeMessage(value.value, expectation));
  });

  it("checks the app's answers to the host's requests, and reads messages to the host only", () => {
    const host = { nonce: "nonce-wb1-7Qm2Zr8Kx4pL", direction: "to_host" } as const;
    const outcome = bridgeResult(host.nonce, 1, "tool.invoke", { outcome: "completed", result: null });
    expect(decodeBridgeMessageInHost(outcome, host)).toEqual({ ok: true, value: outcome });
    expect(decodeBridgeMessageInHost({ ...outcome, result: { outcome: "completed" } }, host)).toMatchObject({ ok: false, error: { code: "bridge_result_invalid", path: "/result/result" } });
    expect(decodeBridgeMessageInHost(bridgeEvent(host.nonce, "theme.changed", {} as never), host)).toMatchObject({ ok: false, error: { code: "method_not_found" } });
    expect(decodeBridgeMessageInHost(outcome, { ...host, direction: "to_app" })).toMatchObject({ ok: false });
  });
});
const nonce = "nonce-wb1-7Qm2Zr8Kx4pL";
const expectation = { nonce, direction: "to_app" } as const;

describe("decodeBridgeMessageInApp", () => {
  it("has to_app fixtures of every kind to compare on", () => {
    expect(toApp.length).toBeGreaterThan(10);
  });

  it.each(toApp)("%s: gives the full decoder's verdict, except on the bodies the host writes", (_name, fixture) => {
    const value = bridgeValueOf(fixture, fixtureText(fixture));
    if (!value.ok) throw new Error(value.error.message);
    const expect_ = { ...bridgeExpectationOf(fixture), direction: "to_app" as const };
    const full = decodeBridgeMessage(value.value, expect_);
    const inApp = decodeBridgeMessageInApp(value.value, expect_);
    const kind = (value.value as { kind?: unknown } | null)?.kind;
    const hostBody = !full.ok && ((kind === "response" && full.error.code === "bridge_result_invalid") || (kind === "event" && full.error.code === "invalid_params"));
    if (hostBody) expect(inApp).toEqual({ ok: true, value: value.value });
    else expect(inApp).toEqual(full);
  });

  it("checks the params of the host's requests, which the app acts on", () => {
    const invoke = bridgeRequest(nonce, 1, "tool.invoke", { call_id: "c1", method: "board.create", arguments: {} } as never);
    expect(decodeBridgeMessageInApp(invoke, expectation).ok).toBe(decodeBridgeMessage(invoke, expectation).ok);
    expect(decodeBridgeMessageInApp({ ...invoke, params: { call_id: "c1" } }, expectation)).toMatchObject({ ok: false, error: { code: "invalid_params", path: "/params/method" } });
    expect(decodeBridgeMessageInApp(bridgeRequest(nonce, 2, "surface.ping", { extra: 1 } as never), expectation)).toMatchObject({ ok: false, error: { code: "invalid_params" } });
  });

  it("refuses what the catalogue does not send an app: an app → host request, an answer to a host request, an unknown event", () => {
    expect(decodeBridgeMessageInApp(bridgeRequest(nonce, 3, "session_data.get", {}), expectation)).toMatchObject({ ok: false, error: { code: "method_not_found" } });
    expect(decodeBridgeMessageInApp(bridgeResult(nonce, 4, "tool.invoke", { outcome: "pending" }), expectation)).toMatchObject({ ok: false, error: { code: "method_not_found" } });
    expect(decodeBridgeMessageInApp({ ...bridgeEvent(nonce, "theme.changed", {} as never), name: "not.an.event" }, expectation)).toMatchObject({ ok: false, error: { code: "method_not_found" } });
  });

  it("leaves a response's method to the app's pending requests: one outside the catalogue passes the page's decoder", () => {
    const answer = bridgeResult(nonce, 6, "session_data.get", { data: null, revision: 0 });
    const unknown = { ...answer, method: "not.a_method" };
    expect(decodeBridgeMessage(unknown, expectation)).toMatchObject({ ok: false, error: { code: "method_not_found", path: "/method" } });
    expect(decodeBridgeMessageInApp(unknown, expectation)).toEqual({ ok: true, value: unknown });
    // The frame is still checked whole, and a request may still name only the host's own methods.
    expect(decodeBridgeMessageInApp({ ...unknown, method: "Not A Method" }, expectation)).toMatchObject({ ok: false, error: { code: "bridge_frame_invalid", path: "/method" } });
    expect(decodeBridgeMessageInApp(bridgeRequest(nonce, 7, "not.a_method" as never, {} as never), expectation)).toEqual(decodeBridgeMessage(bridgeRequest(nonce, 7, "not.a_method" as never, {} as never), expectation));
  });

  it("knows every method and event of the catalogue with its direction", () => {
    for (const [name, spec] of Object.entries(BRIDGE_METHODS)) {
      const request = bridgeRequest(nonce, 5, name as never, {} as never);
      const refused = decodeBridgeMessageInApp(request, expectation);
      if (spec.direction === "to_host") expect(refused, name).toMatchObject({ ok: false, error: { code: "method_not_found" } });
      else expect(refused.ok || refused.error.code === "invalid_params", name).toBe(true);
    }
    for (const name of Object.keys(BRIDGE_EVENTS)) expect(decodeBridgeMessageInApp(bridgeEvent(nonce, name as never, {} as never), expectation).ok, name).toBe(true);
  });
});
