/**
 * The apps layer inside the running Runtime (spec 4, 7; issue 5): installing a signed bundle through
 * the loop, publishing the inventory through the outbox, an agent's tool calls reaching the app's
 * handler (directly, or by launching the app and waiting for it), one terminal output per call_id,
 * disable and remove, and everything surviving a restart.
 */
import { describe, expect, it } from "vitest";
import type { JsonObject } from "@lineup/protocol";
import { RUNTIME_COLLECTIONS } from "../src/index.js";
import { whiteboardManifest, whiteboardWithClipboard } from "./apps-fixtures.js";
import { agentInvokes, device, onlineDevice, publishedInventories, publisherKey, serve, signedBundle, toolOutputs } from "./helpers/apps-harness.js";
import { createFakeClock, createMemoryStoreData, FakeAppServer, settle, startDevice, until } from "./helpers/runtime-harness.js";

describe("apps in the Runtime", () => {
  it("installs a signed bundle in one commit and publishes the inventory its agent sees", async () => {
    const { server, d } = await onlineDevice();

    const operation = await d.runtime.appManager.install(await signedBundle(whiteboardManifest()), { approved: true });
    expect(operation).toMatchObject({ kind: "install", status: "succeeded", app_scope: "whiteboard", to_version: "1.0.0" });
    expect(d.runtime.appManager.listApps().map((a) => `${a.app_scope}:${a.enabled}`)).toEqual(["app-registry:true", "chat:true", "settings:true", "whiteboard:true"]);
    expect(d.runtime.apps.get("whiteboard")?.enabled).toBe(true);
    expect(d.runtime.appManager.getApp("whiteboard")?.projection.tools.map((t) => t.method)).toEqual(["board.create", "board.summary"]);

    await until(() => publishedInventories(server).length === 1, 3_000, "inventory published");
    expect(publishedInventories(server)).toEqual([{ revision: 1, methods: ["whiteboard/board.create", "whiteboard/board.summary"] }]);
    await d.stop();
  });

  it("refuses an unsigned or untrusted bundle at verify with its code and stores nothing", async () => {
    const server = new FakeAppServer();
    const data = createMemoryStoreData();
    const d = await device(server, data);
    const { generatePublisherKey } = await import("../src/index.js");
    const stranger = await generatePublisherKey();
    const operation = await d.runtime.appManager.install(await signedBundle(whiteboardManifest(), stranger), { approved: true });
    expect(operation.status).toBe("failed");
    expect(operation.error?.code).toBe("bundle_untrusted_key");
    expect(operation.steps[0]).toMatchObject({ name: "verify", status: "failed", code: "bundle_untrusted_key" });
    expect(d.runtime.appManager.getApp("whiteboard")).toBeUndefined();
    expect(d.runtime.appManager.operations()[0]?.operation_id).toBe(operation.operation_id);

    const notApproved = await d.runtime.appManager.install(await signedBundle(whiteboardManifest()), { approved: false });
    expect(notApproved).toMatchObject({ status: "failed", error: { code: "cancelled_by_user" } });
    await d.stop();
    const { createMemoryStore, RUNTIME_SCHEMA } = await import("../src/index.js");
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    expect(await store.count(RUNTIME_COLLECTIONS.bundles)).toBe(0);
    expect(await store.count(RUNTIME_COLLECTIONS.apps)).toBe(0);
    await store.close();
  });

  it("runs an activation_not_required call directly: receipt accepted, then exactly one result", async () => {
    const { server, d } = await onlineDevice({ install: whiteboardManifest() });
    const seen = serve(d.runtime, "whiteboard", () => ({ shapes: 0 }));

    agentInvokes(server, "call-1", "whiteboard", "board.summary", {}, 1);
    await until(() => toolOutputs(server, "call-1").some(([type]) => type === "lineup.tool.result"), 3_000, "result");
    expect(toolOutputs(server, "call-1")).toEqual([
      ["lineup.tool.receipt", { status: "accepted", tool: { method: "board.summary", title: "board.summary" } }],
      ["lineup.tool.result", { result: { shapes: 0 } }],
    ]);
    expect(seen.map((c) => [c.call_id, c.method, c.mode])).toEqual([["call-1", "board.summary", "run"]]);
    // No instance was needed.
    expect(d.runtime.instances.snapshot().instances).toEqual([]);

    // A late second report for the same call is refused and sends nothing.
    await expect(d.runtime.appPort("whiteboard").reportTool("call-1", { kind: "result", result: { shapes: 1 } })).rejects.toMatchObject({ code: "call_not_active" });
    expect(toolOutputs(server, "call-1").filter(([type]) => type === "lineup.tool.result" || type === "lineup.tool.error")).toHaveLength(1);
    await d.stop();
  });

  it("a repeated call_id replays the stored outputs as the same requests: each output is in the agent's log once, also after a restart", async () => {
    const data = createMemoryStoreData();
    const online = await onlineDevice({ data, install: whiteboardManifest(), server: { recordRequests: true } });
    const server = online.server;
    let d = online.d;
    const seen = serve(d.runtime, "whiteboard", () => ({ shapes: 2 }));
    // The requests that carried the call's outputs (`after_key` is the pipeline's, not the request's), and what the agent's log holds.
    const sends = () =>
      server.requests
        .filter((r) => r.method === "agentSession/envelope/send" && (r.params["envelope"] as { correlation?: { call_id?: string } }).correlation?.call_id === "again")
        .map((r) => {
          const { after_key: _after, ...request } = r.params;
          return { request, error: r.error };
        });
    const logged = () =>
      server.sessions
        .get("s-1")!
        .events.filter((e) => e.kind === "envelope")
        .map((e) => (e.data as { envelope: { id: string; type: string; correlation?: { call_id?: string } } }).envelope)
        .filter((e) => e.type !== "lineup.tool.invoke" && e.correlation?.call_id === "again")
        .map((e) => `${e.type} ${e.id}`);
    const drained = (runtime: typeof d.runtime) => until(() => runtime.appPort("chat").view().queued_actions === 0, 3_000, "outbox drained");

    agentInvokes(server, "again", "whiteboard", "board.summary", {}, 1);
    await until(() => toolOutputs(server, "again").length === 2, 3_000, "first result");
    await drained(d.runtime);
    const first = sends();
    const log = logged();
    expect(first.map((s) => s.error)).toEqual([undefined, undefined]);
    expect(log).toHaveLength(2);

    // The same invoke again: the same two requests (envelope ids, timestamps, idempotency keys), answered from the server's record.
    agentInvokes(server, "again", "whiteboard", "board.summary", {}, 1);
    await until(() => sends().length === 4, 3_000, "replay");
    await drained(d.runtime);
    expect(sends().slice(2)).toEqual(first);
    expect(logged()).toEqual(log);
    expect(seen).toHaveLength(1); // the handler ran once

    // After a restart the finished call is read from the store, and replays the same requests again.
    await d.stop();
    d = await device(server, data, "r1");
    await d.runtime.whenOnline();
    agentInvokes(server, "again", "whiteboard", "board.summary", {}, 1);
    await until(() => sends().length === 6, 3_000, "replay after restart");
    await drained(d.runtime);
    expect(sends().slice(4)).toEqual(first);
    expect(logged()).toEqual(log);

    // Another body under a used call_id is refused and sends nothing more for it.
    agentInvokes(server, "again", "whiteboard", "board.summary", { other: true }, 1);
    await drained(d.runtime);
    await settle(20);
    expect(sends()).toHaveLength(6);
    await d.stop();
  });

  it("forgets finished calls after the retention period, at the next start", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const data = createMemoryStoreData();
    const clock = createFakeClock();
    const key = await publisherKey();
    const d = await startDevice(server, data, { clock, extra: { trustedPublishers: [key.trustedKey] } });
    await d.runtime.whenOnline();
    await d.runtime.appManager.install(await signedBundle(whiteboardManifest()), { approved: true });
    serve(d.runtime, "whiteboard", () => ({ shapes: 1 }));
    agentInvokes(server, "old-call", "whiteboard", "board.summary", {}, 1);
    await until(() => toolOutputs(server, "old-call").length === 2, 3_000, "result");
    await d.stop();
    const { createMemoryStore, RUNTIME_SCHEMA, TOOL_CALL_RETENTION_MS } = await import("../src/index.js");
    const peek = async () => {
      const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
      const n = await store.count(RUNTIME_COLLECTIONS.toolCalls);
      await store.close();
      return n;
    };
    expect(await peek()).toBe(1);
    const soon = await startDevice(server, data, { clock, run: "r1", extra: { trustedPublishers: [key.trustedKey] } });
    await soon.stop();
    expect(await peek()).toBe(1); // within the retention period: kept for replays
    clock.advance(TOOL_CALL_RETENTION_MS + 1);
    const later = await startDevice(server, data, { clock, run: "r2", extra: { trustedPublishers: [key.trustedKey] } });
    await later.stop();
    expect(await peek()).toBe(0);
  });

  it("freezes the app's session data into a result card when work that changed something is done", async () => {
    const { server, d } = await onlineDevice();
    const manifest = whiteboardManifest();
    const withCard = { ...manifest, entrypoints: [{ id: "canvas", kind: "primary", default_eligible: true, display_modes: ["foreground", "inline_card"] }] } as typeof manifest;
    await d.runtime.appManager.install(await signedBundle(withCard), { approved: true });
    const port = d.runtime.appPort("whiteboard");
    const board = port.sessionData("s-1");
    port.registerToolHandler({
      call(call) {
        void (async () => {
          // The app's work: it stores the new board, then reports the call's result.
          const title = (call.arguments as JsonObject)["title"] as string;
          const current = await board.get();
          await board.replace({ data: { title, items: [] }, expected_revision: current.ok ? current.value.revision : 0 });
          await port.reportTool(call.call_id, call.method === "board.create" ? { kind: "result", result: { board_id: title } } : { kind: "result", result: { shapes: 0 } }, call.instance_id);
        })();
      },
      cancel() {},
    });
    const launched = new Promise<void>((resolve) => {
      const off = d.runtime.instances.subscribe((view) => {
        const starting = view.instances.find((i) => i.status === "launching");
        if (starting !== undefined) {
          off();
          void d.runtime.instances.ready(starting.instance_id).then(resolve);
        }
      });
    });
    agentInvokes(server, "make", "whiteboard", "board.create", { title: "Plan" }, 1);
    await launched;
    await until(() => toolOutputs(server, "make").some(([type]) => type === "lineup.tool.result"), 3_000, "result");
    const chat = d.runtime.appPort("chat");
    let card = await chat.resultCard("make");
    for (let i = 0; card === undefined && i < 50; i++) card = await new Promise((r) => setTimeout(r, 10)).then(() => chat.resultCard("make"));
    expect(card).toMatchObject({ app_scope: "whiteboard", entrypoint: "canvas", conversation_id: "s-1", data: { data: { title: "Plan", items: [] }, revision: 1 } });

    // Later changes do not touch it: the card is the state when that work was done.
    expect((await board.replace({ data: { title: "Changed", items: [] }, expected_revision: 1 })).ok).toBe(true);
    expect((await chat.resultCard("make"))?.data).toEqual({ data: { title: "Plan", items: [] }, revision: 1 });
    // A query gets no card.
    agentInvokes(server, "look", "whiteboard", "board.summary", {}, 1);
    await until(() => toolOutputs(server, "look").some(([type]) => type === "lineup.tool.result"), 3_000, "summary");
    await new Promise((r) => setTimeout(r, 50));
    expect(await chat.resultCard("look")).toBeUndefined();
    await d.stop();
  });

  it("a surface that is not an instance loads the version asked for while it is retained", async () => {
    const server = new FakeAppServer();
    const d = await device(server);
    await d.runtime.appManager.install(await signedBundle(whiteboardManifest("1.0.0"), undefined, "<!doctype html><p>one</p>"), { approved: true });
    expect((await d.runtime.appManager.update("whiteboard", undefined, { bundle: await signedBundle(whiteboardManifest("1.1.0"), undefined, "<!doctype html><p>two</p>") })).status).toBe("succeeded");
    expect((await d.runtime.instances.appEntry("whiteboard", "canvas", "1.0.0")).html).toContain("one");
    expect((await d.runtime.instances.appEntry("whiteboard", "canvas")).html).toContain("two");
    // A version no longer kept falls back to the active one.
    expect((await d.runtime.instances.appEntry("whiteboard", "canvas", "0.1.0")).html).toContain("two");
    await d.stop();
  });

  it("launches the app for an app_ready call, waits for the surface, then delivers to that instance", async () => {
    const { server, d } = await onlineDevice({ install: whiteboardManifest() });

    agentInvokes(server, "call-2", "whiteboard", "board.create", { title: "Plan" }, 1);
    await until(() => d.runtime.instances.snapshot().instances.length === 1, 3_000, "instance launched");
    const [instance] = d.runtime.instances.snapshot().instances;
    expect(instance).toMatchObject({ app_scope: "whiteboard", conversation_id: "s-1", status: "launching" });
    expect(toolOutputs(server, "call-2").map(([, p]) => p["status"])).toEqual(["accepted", "starting"]);

    // The shell loads the surface: the entry page comes from the stored, re-verified bundle.
    const entry = await d.runtime.instances.entry(instance!.instance_id);
    expect(entry.html).toContain("hello");
    const seen = serve(d.runtime, "whiteboard", (call) => ({ board_id: `b-${(call.arguments as JsonObject)["title"] as string}` }), instance!.instance_id);
    expect(seen).toEqual([]); // nothing before the app is ready
    await d.runtime.instances.ready(instance!.instance_id);
    await until(() => toolOutputs(server, "call-2").some(([type]) => type === "lineup.tool.result"), 3_000, "result");
    expect(toolOutputs(server, "call-2")).toEqual([
      ["lineup.tool.receipt", { status: "accepted", tool: { method: "board.create", title: "Create a board" } }],
      ["lineup.tool.receipt", { status: "starting" }],
      ["lineup.tool.receipt", { status: "activation_ready" }],
      ["lineup.tool.result", { result: { board_id: "b-Plan" } }],
    ]);
    expect(seen[0]).toMatchObject({ instance_id: instance!.instance_id, method: "board.create" });
    // board.create needs the app ready, not in front: it was started behind what the user is looking at.
    expect(d.runtime.instances.snapshot().instances).toMatchObject([{ instance_id: instance!.instance_id, status: "backgrounded" }]);
    expect(d.runtime.appManager.getApp("whiteboard")?.record.active_instance_count).toBe(1);
    await d.stop();
  });

  it("refuses a stale inventory revision, an invalid argument and an invalid result with their codes", async () => {
    const { server, d } = await onlineDevice({ install: whiteboardManifest() });
    serve(d.runtime, "whiteboard", () => ({ not: "the schema" }));

    agentInvokes(server, "stale", "whiteboard", "board.summary", {}, 7);
    agentInvokes(server, "bad-args", "whiteboard", "board.create", { title: 42 }, 1);
    const launched = new Promise<void>((resolve) => {
      const off = d.runtime.instances.subscribe((view) => {
        const launching = view.instances.find((i) => i.status === "launching");
        if (launching !== undefined) {
          off();
          void d.runtime.instances.ready(launching.instance_id).then(resolve);
        }
      });
    });
    agentInvokes(server, "bad-result", "whiteboard", "board.create", { title: "x" }, 1);
    await launched;
    const terminal = (id: string) => toolOutputs(server, id).find(([type]) => type === "lineup.tool.error" || type === "lineup.tool.result");
    await until(() => ["stale", "bad-args", "bad-result"].every((id) => terminal(id) !== undefined), 3_000, "three terminals");
    expect(terminal("stale")).toEqual(["lineup.tool.error", expect.objectContaining({ code: "stale_inventory_revision" })]);
    expect(terminal("bad-args")).toEqual(["lineup.tool.error", expect.objectContaining({ code: "invalid_arguments" })]);
    expect(terminal("bad-result")).toEqual(["lineup.tool.error", expect.objectContaining({ code: "invalid_result" })]);
    await d.stop();
  });

  it("disable refuses the app's waiting calls, closes its instances and republishes; remove deletes bundle and data", async () => {
    const data = createMemoryStoreData();
    const { server, d } = await onlineDevice({ data, install: whiteboardManifest() });
    agentInvokes(server, "waits", "whiteboard", "board.create", { title: "x" }, 1);
    await until(() => d.runtime.instances.snapshot().instances.length === 1, 3_000, "launching");
    const sessionData = d.runtime.appPort("whiteboard").sessionData("s-1");
    expect((await sessionData.replace({ data: { shapes: [] }, expected_revision: 0 })).ok).toBe(true);

    const disabled = await d.runtime.appManager.disable("whiteboard");
    expect(disabled.status).toBe("succeeded");
    await until(() => toolOutputs(server, "waits").some(([type]) => type === "lineup.tool.error"), 3_000, "refused");
    // Spec 5.4 rule 5: a definite refusal that says why.
    expect(toolOutputs(server, "waits").at(-1)).toEqual(["lineup.tool.error", expect.objectContaining({ code: "app_disabled" })]);
    expect(d.runtime.instances.snapshot().instances.filter((i) => i.status !== "closing")).toEqual([]);
    await until(() => publishedInventories(server).length === 2, 3_000, "republished");
    expect(publishedInventories(server)[1]).toEqual({ revision: 2, methods: [] });

    agentInvokes(server, "after-disable", "whiteboard", "board.summary", {}, 2);
    await until(() => toolOutputs(server, "after-disable").length > 0, 3_000, "refusal");
    expect(toolOutputs(server, "after-disable")).toEqual([["lineup.tool.error", expect.objectContaining({ code: "app_disabled" })]]);

    expect((await d.runtime.appManager.remove("whiteboard", { confirmed: false })).error?.code).toBe("confirmation_required");
    expect((await d.runtime.appManager.remove("chat", { confirmed: true })).error?.code).toBe("app_protected");
    expect((await d.runtime.appManager.remove("whiteboard", { confirmed: true })).status).toBe("succeeded");
    expect(d.runtime.appManager.getApp("whiteboard")).toBeUndefined();
    await d.stop();

    const { createMemoryStore, RUNTIME_SCHEMA } = await import("../src/index.js");
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    expect(await store.count(RUNTIME_COLLECTIONS.bundles)).toBe(0);
    expect(await store.count(RUNTIME_COLLECTIONS.sessionData)).toBe(0);
    await store.close();
  });

  it("an update that asks for a new capability waits for approval; refusing keeps the old version", async () => {
    const server = new FakeAppServer();
    const d = await device(server);
    await d.runtime.appManager.install(await signedBundle(whiteboardManifest("1.0.0")), { approved: true });
    const waiting = await d.runtime.appManager.update("whiteboard", undefined, { bundle: await signedBundle(whiteboardWithClipboard("1.1.0")) });
    expect(waiting.status).toBe("awaiting_approval");
    expect(waiting.diff?.added_capabilities.map((c) => c.name)).toEqual(["clipboard.write"]);
    expect(d.runtime.appManager.getApp("whiteboard")).toMatchObject({ record: { installed_version: "1.0.0" }, pending_update: { version: "1.1.0" } });
    const kept = await d.runtime.appManager.resolveUpdate("whiteboard", false);
    expect(kept.status).toBe("failed");
    expect(d.runtime.appManager.getApp("whiteboard")?.record.installed_version).toBe("1.0.0");
    expect(d.runtime.appManager.getApp("whiteboard")?.pending_update).toBeUndefined();

    expect((await d.runtime.appManager.update("whiteboard", undefined, { bundle: await signedBundle(whiteboardManifest("0.9.0")) })).error?.code).toBe("bundle_downgrade");
    expect((await d.runtime.appManager.update("whiteboard", undefined, { bundle: await signedBundle(whiteboardManifest("1.2.0")) })).status).toBe("succeeded");
    const back = await d.runtime.appManager.rollback("whiteboard", { reason: "1.2.0 broke the toolbar" });
    expect(back).toMatchObject({ status: "succeeded", to_version: "1.0.0" });
    expect(d.runtime.appManager.getApp("whiteboard")?.record.installed_version).toBe("1.0.0");
    await d.stop();
  });

  it("keeps apps, the default app, instances and settings across a restart", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const data = createMemoryStoreData();
    const first = await device(server, data, "r0");
    await first.runtime.whenOnline();
    await first.runtime.appManager.install(await signedBundle(whiteboardManifest()), { approved: true });
    expect((await first.runtime.appManager.setDefaultApp("whiteboard")).status).toBe("succeeded");
    const instance = await first.runtime.appManager.launch({ app_scope: "whiteboard", conversation_id: "s-1" });
    await first.runtime.instances.ready(instance.instance_id);
    await first.runtime.settings.setGrant("whiteboard", "clipboard.write", "denied");
    await first.stop();

    const second = await device(server, data, "r1");
    expect(second.runtime.appManager.getApp("whiteboard")).toMatchObject({ record: { enabled: true }, is_default: true });
    expect(second.runtime.apps.defaultApp()).toBe("whiteboard");
    // After a restart nothing is in front: the instance comes back suspended, at the top of the stack.
    expect(second.runtime.instances.snapshot()).toMatchObject({ focus_stack: [instance.instance_id], instances: [{ instance_id: instance.instance_id, status: "suspended" }] });
    expect(second.runtime.settings.grants()).toMatchObject([{ app_scope: "whiteboard", capability: "clipboard.write", decision: "denied" }]);
    expect(second.runtime.settings.trustedPublishers()).toHaveLength(1);
    // The inventory revision is not published again when nothing changed.
    await second.runtime.whenOnline();
    expect(publishedInventories(server).map((p) => p.revision)).toEqual([1]);
    // A shipped key the user removes stays removed: the host's list seeds a store once, never again.
    const [shipped] = second.runtime.settings.trustedPublishers();
    await second.runtime.settings.removeTrustedPublisher(shipped!.key_id);
    await second.stop();
    const third = await device(server, data, "r2");
    expect(third.runtime.settings.trustedPublishers()).toEqual([]);
    await third.stop();
  });
});
