import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LineUpError, type AppScope, type ConversationID } from "@lineup/protocol";
import { connectSurface, type Surface } from "../src/index.js";
import { eventually, FakeHost, sampleSnapshot, tick } from "./fake-host.js";

let host: FakeHost;
let surface: Surface;
beforeEach(async () => {
  host = new FakeHost();
  const connecting = connectSurface({ window: host.window, applyTheme: false });
  host.handover();
  surface = await connecting;
});
afterEach(() => {
  surface.disconnect();
  host.close();
});

describe("lifecycle", () => {
  it("reports transitions to their listeners; unsubscribe stops them", async () => {
    const seen: string[] = [];
    const offBg = surface.lifecycle.on("background", () => seen.push("background"));
    surface.lifecycle.on("foreground", () => seen.push("foreground"));
    host.event("lifecycle", { state: "background" });
    host.event("lifecycle", { state: "foreground" });
    await eventually(() => expect(seen).toEqual(["background", "foreground"]));
    expect(surface.lifecycle.state).toBe("foreground");
    offBg();
    host.event("lifecycle", { state: "background" });
    host.event("lifecycle", { state: "foreground" });
    await eventually(() => expect(seen).toEqual(["background", "foreground", "foreground"]));
  });

  it("ready() is sent once however often it is called", async () => {
    await Promise.all([surface.lifecycle.ready(), surface.lifecycle.ready()]);
    await surface.lifecycle.ready();
    expect(host.requestsOf("lifecycle.ready")).toHaveLength(1);
  });

  it("closing: the app flushes session data before closing_done, then the bridge closes", async () => {
    let closedWith = "";
    surface.onClosed((reason) => (closedWith = reason.code));
    surface.lifecycle.on("closing", async ({ flush_deadline_ms, signal }) => {
      expect(flush_deadline_ms).toBe(1_000);
      expect(signal.aborted).toBe(false);
      await surface.sessionData.replace({ data: { saved: true }, expected_revision: 0 });
    });
    host.event("lifecycle", { state: "closing", flush_deadline_ms: 1_000 });
    await host.nextRequest("lifecycle.closing_done");
    const order = host.requests.map((r) => r.method);
    expect(order.indexOf("session_data.replace")).toBeLessThan(order.indexOf("lifecycle.closing_done"));
    expect(host.session).toEqual({ data: { saved: true }, revision: 1 });
    await eventually(() => expect(closedWith).toBe("request_cancelled"));
    await expect(surface.sessionData.get()).rejects.toMatchObject({ code: "request_cancelled" });
  });

  it("closing: a flush that overruns the deadline is abandoned and its request rejected", async () => {
    host.on("session_data.replace", () => undefined); // the host never answers
    let flush: Promise<unknown> | undefined;
    surface.lifecycle.on("closing", () => {
      flush = surface.sessionData.replace({ data: { late: true }, expected_revision: 0 });
      return flush.then(() => undefined);
    });
    const started = Date.now();
    host.event("lifecycle", { state: "closing", flush_deadline_ms: 80 });
    await eventually(() => expect(flush).toBeDefined());
    await expect(flush).rejects.toMatchObject({ code: "request_cancelled" });
    expect(Date.now() - started).toBeLessThan(1_000);
    // Past the deadline the host tears down anyway; the app does not claim it flushed.
    await tick(20);
    expect(host.requestsOf("lifecycle.closing_done")).toHaveLength(0);
  });
});

describe("context changes", () => {
  it("theme, locale and display mode changes update app and reach their listeners", async () => {
    const themes: string[] = [];
    const modes: string[] = [];
    surface.onThemeChange((t) => themes.push(t.effective_mode));
    surface.onDisplayModeChange((m) => modes.push(m));
    const light = { ...sampleSnapshot().theme, effective_mode: "light" as const };
    host.event("theme.changed", { theme: light });
    host.event("display_mode.changed", { display_mode: "inline_card" });
    await eventually(() => expect([themes, modes]).toEqual([["light"], ["inline_card"]]));
    expect(surface.app.theme.effective_mode).toBe("light");
    expect(surface.app.display_mode).toBe("inline_card");
  });

  it("followDisplayMode starts from the current mode (a change that came before the listener), then follows", async () => {
    host.event("display_mode.changed", { display_mode: "pip" });
    await eventually(() => expect(surface.app.display_mode).toBe("pip"));
    const modes: string[] = [];
    const off = surface.followDisplayMode((m) => modes.push(m));
    expect(modes).toEqual(["pip"]);
    host.event("display_mode.changed", { display_mode: "foreground" });
    await eventually(() => expect(modes).toEqual(["pip", "foreground"]));
    off();
  });

  it("followLocale starts from the current locale, then follows", async () => {
    const locales: string[] = [];
    const off = surface.followLocale((l) => locales.push(l));
    expect(locales).toEqual([surface.app.locale]);
    host.event("locale.changed", { locale: "zh-CN", timezone: "Asia/Shanghai" });
    await eventually(() => expect(locales).toEqual([locales[0], "zh-CN"]));
    off();
  });

  it("applies theme variables to a target document root", async () => {
    const props = new Map<string, string>();
    const attrs = new Map<string, string>();
    const root = {
      style: { setProperty: (n: string, v: string) => void props.set(n, v), removeProperty: (n: string) => (props.delete(n), "") },
      setAttribute: (n: string, v: string) => void attrs.set(n, v),
    };
    const { applyThemeVariables } = await import("../src/index.js");
    applyThemeVariables(sampleSnapshot().theme, root);
    expect(props.get("--lineup-color-bg")).toBe("#111");
    expect(attrs.get("data-theme")).toBe("dark");
    applyThemeVariables({ ...sampleSnapshot().theme, effective_mode: "light", css_variables: { "--lineup-color-fg": "#000" } }, root);
    expect(props.has("--lineup-color-bg")).toBe(false);
    expect(props.get("color-scheme")).toBe("light");
  });
});

describe("requests to the host", () => {
  it("events, capabilities, artifacts, apps and resize travel as catalogue requests", async () => {
    host.on("capability.request", () => ({ status: "permission_denied", code: "permission_denied", message: "no" }));
    host.on("artifact.create", ({ name, mime_type }) => ({ artifact: { artifact_id: "art-1", name, mime_type, size: 3, sha256: "a".repeat(64) } }));
    host.on("app.launch", ({ app_scope }) => ({ app_scope, instance_id: "inst-9" }));
    await surface.events.emit("board.changed", { items: 2 });
    expect(await surface.capabilities.request({ capability: "file.save", purpose: "Save the board", input: { name: "b.png" } })).toEqual({
      status: "permission_denied",
      code: "permission_denied",
      message: "no",
    });
    const artifact = await surface.artifacts.create({ name: "b.png", mime_type: "image/png", content: { encoding: "base64", data: "AAAA" } });
    expect(artifact.artifact_id).toBe("art-1");
    expect(await surface.apps.launch({ app_scope: "pomodoro" as AppScope })).toEqual({ app_scope: "pomodoro", instance_id: "inst-9" });
    await surface.apps.close();
    await surface.surface.resize(240.6);
    expect(host.requestsOf("surface.resize")[0]!.params).toEqual({ height: 241 });
    expect(host.requestsOf("app.close")[0]!.params).toEqual({});
    expect(host.refusals).toEqual([]);
  });

  it("a refusal from the host rejects with its code", async () => {
    await expect(surface.events.emit("Not An Event", null)).rejects.toMatchObject({ code: "invalid_params", path: "/params/name" });
    expect(host.refusals).toEqual(["invalid_params"]);
  });
});

describe("agent messages and state patches", () => {
  it("list() asks the host for one page of the inbox and resolves with it; a refusal rejects with its code", async () => {
    const message = { message_id: "conv-1:4", type: "lineup.message", conversation_id: "conv-1", sender: { kind: "agent" as const, id: "agent-1" }, timestamp: "2026-08-06T08:00:00Z", payload: { text: "while you were away" }, requires_ack: false };
    host.on("agent_message.list", (params) => {
      if (params.after === "bad") throw new LineUpError("invalid_params", "not a cursor");
      return { messages: [message], next_cursor: "conv-1:4" };
    });
    expect(await surface.agentMessages.list({ limit: 1 })).toEqual({ messages: [message], next_cursor: "conv-1:4" });
    expect(host.requestsOf("agent_message.list").map((r) => r.params)).toEqual([{ limit: 1 }]);
    await expect(surface.agentMessages.list({ after: "bad" })).rejects.toMatchObject({ code: "invalid_params" });
  });


  it("subscribes once with the filter, delivers projected messages, acks, and unsubscribes with the last listener", async () => {
    const a: string[] = [];
    const b: string[] = [];
    const offA = surface.agentMessages.subscribe((m) => a.push(m.message_id), { types: ["lineup.message"], include_pending: true });
    const offB = surface.agentMessages.subscribe((m) => b.push(m.message_id));
    await eventually(() => expect(host.requestsOf("agent_message.subscribe")).toHaveLength(1));
    expect(host.requestsOf("agent_message.subscribe")[0]!.params).toEqual({ types: ["lineup.message"], include_pending: true });
    host.event("agent.message", {
      message_id: "m1",
      type: "lineup.message",
      conversation_id: "conv-1" as ConversationID,
      sender: { kind: "agent", id: "agent-1" },
      timestamp: "2026-08-06T08:00:00Z",
      payload: { text: "hi" },
      requires_ack: true,
    });
    await eventually(() => expect([a, b]).toEqual([["m1"], ["m1"]]));
    host.on("agent_message.ack", () => ({}));
    await surface.agentMessages.ack("m1");
    expect(host.requestsOf("agent_message.ack")[0]!.params).toEqual({ message_id: "m1" });
    offA();
    expect(host.requestsOf("agent_message.unsubscribe")).toHaveLength(0);
    offB();
    await eventually(() => expect(host.requestsOf("agent_message.unsubscribe")).toHaveLength(1));
  });

  it("delivers state patches", async () => {
    const patches: unknown[] = [];
    surface.agentMessages.onStatePatch((p) => patches.push(p.patch));
    host.event("state.patch", { message_id: "p1", patch: { zoom: 2 } });
    await eventually(() => expect(patches).toEqual([{ zoom: 2 }]));
  });

  it("listening for state patches asks the host for them, waiting ones included; with a message filter, for the union; the last listener ends it", async () => {
    const offPatches = surface.agentMessages.onStatePatch(() => undefined);
    await eventually(() => expect(host.requestsOf("agent_message.subscribe")).toHaveLength(1));
    expect(host.requestsOf("agent_message.subscribe")[0]!.params).toEqual({ types: ["lineup.app.state.patch"], include_pending: true });

    const offMessages = surface.agentMessages.subscribe(() => undefined, { types: ["lineup.message"] });
    await eventually(() => expect(host.requestsOf("agent_message.subscribe")).toHaveLength(2));
    expect(host.requestsOf("agent_message.subscribe")[1]!.params).toEqual({ types: ["lineup.message", "lineup.app.state.patch"], include_pending: true });

    // Only the message listener is left: its own filter, as it asked.
    offPatches();
    await eventually(() => expect(host.requestsOf("agent_message.subscribe")).toHaveLength(3));
    expect(host.requestsOf("agent_message.subscribe")[2]!.params).toEqual({ types: ["lineup.message"] });
    offPatches();
    offMessages();
    await eventually(() => expect(host.requestsOf("agent_message.unsubscribe")).toHaveLength(1));
    expect(host.requestsOf("agent_message.subscribe")).toHaveLength(3);
  });
});
