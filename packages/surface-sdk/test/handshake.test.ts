import { bridgeEvent, bridgeRequest, bridgeResult, LineUpError, type ToolCallID } from "@lineup/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { connectSurface, defineAgentTools, type Surface, type SurfaceDiagnostic } from "../src/index.js";
import { eventually, FakeHost, NONCE, sampleSnapshot, tick } from "./fake-host.js";

let host: FakeHost;
let surface: Surface | undefined;
afterEach(() => {
  surface?.disconnect();
  surface = undefined;
  host.close();
});

describe("handover and nonce", () => {
  it("takes the port and snapshot from the one window message and exposes the app context", async () => {
    host = new FakeHost();
    const connecting = connectSurface({ window: host.window, applyTheme: false });
    host.handover(sampleSnapshot({ route: "/boards/1", display_mode: "pip" }));
    surface = await connecting;
    expect(surface.app).toMatchObject({
      app_scope: "whiteboard",
      app_version: "1.0.0",
      instance_id: "inst-1",
      entrypoint: "canvas",
      route: "/boards/1",
      locale: "en-GB",
      timezone: "Europe/London",
      display_mode: "pip",
      kind: "installed",
      capabilities: [{ capability: "file.save", available: true }],
    });
    expect(surface.app.theme.effective_mode).toBe("dark");
    await surface.lifecycle.ready();
    expect(host.requestsOf("lifecycle.ready")).toHaveLength(1);
    expect(host.requests[0]!.nonce).toBe(NONCE);
  });

  it("ignores window messages without a port or without a bridge nonce, and any after the handover", async () => {
    host = new FakeHost();
    const drops: SurfaceDiagnostic[] = [];
    const connecting = connectSurface({ window: host.window, applyTheme: false, diagnostics: (d) => drops.push(d) });
    host.window.dispatchEvent(new MessageEvent("message", { data: bridgeEvent(NONCE, "host.snapshot", sampleSnapshot()) }));
    host.window.dispatchEvent(new MessageEvent("message", { data: { hello: 1 }, ports: [host.appPort as never] }));
    host.handover();
    surface = await connecting;
    expect(drops.filter((d) => d.kind === "frame_dropped")).toHaveLength(2);
    // A second handover with another port and nonce is never read.
    const impostor = new FakeHost("other-nonce-0123456789");
    impostor.handover();
    await tick(10);
    await surface.lifecycle.ready();
    expect(impostor.requests).toHaveLength(0);
    expect(host.requestsOf("lifecycle.ready")).toHaveLength(1);
    impostor.close();
  });

  it("accepts the snapshot as the first frame on a port handed over directly", async () => {
    host = new FakeHost();
    const connecting = connectSurface({ port: host.port, applyTheme: false });
    host.event("host.snapshot", sampleSnapshot({ locale: "zh-CN" }));
    surface = await connecting;
    expect(surface.app.locale).toBe("zh-CN");
  });

  it("refuses a handover whose first frame is not a valid snapshot", async () => {
    host = new FakeHost();
    const connecting = connectSurface({ port: host.port, applyTheme: false });
    host.event("theme.changed", { theme: sampleSnapshot().theme });
    await expect(connecting).rejects.toMatchObject({ code: "bridge_frame_invalid" });
  });

  it("times out when no host hands over", async () => {
    host = new FakeHost();
    await expect(connectSurface({ window: host.window, handoverTimeoutMs: 30 })).rejects.toMatchObject({ code: "request_timeout" });
  });

  it("drops frames with a wrong nonce unanswered and still serves the right one", async () => {
    host = new FakeHost();
    const drops: SurfaceDiagnostic[] = [];
    const connecting = connectSurface({ window: host.window, applyTheme: false, diagnostics: (d) => drops.push(d) });
    host.handover();
    surface = await connecting;
    const seen: string[] = [];
    surface.onLocaleChange(({ locale }) => seen.push(locale));
    host.send(bridgeEvent("wrong-nonce-0123456789", "locale.changed", { locale: "fr", timezone: "UTC" }));
    host.send(bridgeRequest("wrong-nonce-0123456789", 5, "tool.invoke", { call_id: "c1" as ToolCallID, method: "board.create", arguments: {} }));
    host.send({ bridge: "lineup.surface", v: 2, nonce: NONCE, kind: "event", name: "locale.changed", data: {} });
    host.event("locale.changed", { locale: "de", timezone: "Europe/Berlin" });
    await eventually(() => expect(seen).toEqual(["de"]));
    expect(surface.app.locale).toBe("de");
    expect(drops.filter((d) => d.kind === "frame_dropped").map((d) => (d as { code: string }).code)).toEqual(["bridge_bad_nonce", "bridge_bad_nonce", "bridge_protocol_mismatch"]);
    // Nothing was sent back for the forged request.
    expect(host.refusals).toEqual([]);
    expect(host.requests).toEqual([]);
  });

  it("answers a malformed tool.invoke with the decoder's code", async () => {
    host = new FakeHost();
    const connecting = connectSurface({ window: host.window, applyTheme: false });
    host.handover();
    surface = await connecting;
    const answer = host.invoke({ call_id: "c1", method: "Board!", arguments: {} } as never);
    await expect(answer).rejects.toMatchObject({ code: "invalid_params" });
  });

  it("answers the host's surface.ping heartbeat by itself, with no app code and while a tool call is still running", async () => {
    host = new FakeHost();
    const connecting = connectSurface({ window: host.window, applyTheme: false });
    host.handover();
    surface = await connecting;
    // The app serves no tools and has not even said it is ready: the heartbeat is the SDK's own.
    await expect(host.ping()).resolves.toEqual({});
    let release!: () => void;
    surface.tools.serve(
      defineAgentTools({
        "board.wait": { input_schema: { type: "object" }, output_schema: {}, handler: () => new Promise<object>((resolve) => (release = () => resolve({}))) },
      }),
    );
    const waiting = host.invoke({ call_id: "c1", method: "board.wait", arguments: {} } as never);
    await expect(host.ping()).resolves.toEqual({});
    expect(host.trace.filter((t) => t.startsWith("response"))).toHaveLength(2); // the two pings; the call is still out
    release();
    await expect(waiting).resolves.toMatchObject({ outcome: "completed" });
  });

  it("answers a malformed surface.ping with the decoder's code", async () => {
    host = new FakeHost();
    const connecting = connectSurface({ window: host.window, applyTheme: false });
    host.handover();
    surface = await connecting;
    await expect(host.ping({ extra: 1 })).rejects.toMatchObject({ code: "invalid_params" });
  });

  it("rejects pending requests when the host closes the port", async () => {
    host = new FakeHost();
    const connecting = connectSurface({ window: host.window, applyTheme: false });
    host.handover();
    surface = await connecting;
    host.on("artifact.read", () => undefined); // never answered
    const reading = surface.artifacts.read({ artifact_id: "a1" });
    await host.nextRequest("artifact.read").catch(() => {});
    host.close();
    await expect(reading).rejects.toBeInstanceOf(LineUpError);
    await expect(reading).rejects.toMatchObject({ code: "request_cancelled" });
  });

  it("times out a request the host never answers", async () => {
    host = new FakeHost();
    const connecting = connectSurface({ window: host.window, applyTheme: false, requestTimeoutMs: 40 });
    host.handover();
    surface = await connecting;
    host.on("surface.resize", () => undefined);
    await expect(surface.surface.resize(100)).rejects.toMatchObject({ code: "request_timeout" });
  });

  it("lets a capability request wait past the request timeout: the person, the system and the host take their time", async () => {
    host = new FakeHost();
    const connecting = connectSurface({ window: host.window, applyTheme: false, requestTimeoutMs: 40 });
    host.handover();
    surface = await connecting;
    let answer: ((result: unknown) => void) | undefined;
    host.on("capability.request", () => new Promise((resolve) => (answer = resolve)));
    const recording = surface.capabilities.request({ capability: "microphone.record", purpose: "a note", input: { max_ms: 5_000 } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    answer!({ status: "completed", value: { duration_ms: 5_000 } });
    await expect(recording).resolves.toMatchObject({ status: "completed" });
  });

  it("ends a request whose answer breaks the response frame (a result and an error) with bridge_frame_invalid, without waiting for a timeout", async () => {
    host = new FakeHost();
    const connecting = connectSurface({ window: host.window, applyTheme: false });
    host.handover();
    surface = await connecting;
    host.on("capability.request", () => new Promise(() => {}));
    const asking = surface.capabilities.request({ capability: "clipboard.write", purpose: "copy", input: { text: "x" } });
    const request = await host.nextRequest("capability.request");
    host.send({ ...bridgeResult(NONCE, request.id, "capability.request", { status: "completed", value: null }), error: { code: "internal_error", message: "both" } });
    await expect(asking).rejects.toMatchObject({ code: "bridge_frame_invalid" });
  });

  it("drops a response whose method is not the one its id asked (or none of the catalogue's): the request still waits for its own answer", async () => {
    host = new FakeHost();
    const diagnostics: SurfaceDiagnostic[] = [];
    const connecting = connectSurface({ window: host.window, applyTheme: false, diagnostics: (d) => diagnostics.push(d) });
    host.handover();
    surface = await connecting;
    host.on("artifact.get", () => new Promise(() => {}));
    let settled = false;
    const getting = surface.artifacts.get("a1").finally(() => (settled = true));
    const request = await host.nextRequest("artifact.get");
    host.send({ ...bridgeResult(NONCE, request.id, "artifact.get", {} as never), method: "not.a_method" });
    host.send(bridgeResult(NONCE, request.id, "artifact.list", { artifacts: [] }));
    await eventually(() => expect(diagnostics.map((d) => d.kind)).toEqual(["unexpected_response", "unexpected_response"]));
    expect(settled).toBe(false);
    const artifact = { artifact: { artifact_id: "a1" } };
    host.send(bridgeResult(NONCE, request.id, "artifact.get", artifact as never));
    await expect(getting).resolves.toEqual(artifact);
  });
});
