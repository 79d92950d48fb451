/**
 * The testkit (`@lineup/app-sdk/testkit`) as an app author uses it: a real Runtime in one process,
 * the app's manifests signed and installed, the app's SDK, and the agent's side.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AppManifest } from "@lineup/protocol";
import { createTestRuntime, type TestRuntime } from "@lineup/app-sdk/testkit";
import { notesManifest, timerManifest } from "./fixtures.js";

let kit: TestRuntime | undefined;
afterEach(async () => {
  await kit?.stop();
  kit = undefined;
});

describe("createTestRuntime", () => {
  it("installs the signed apps and publishes their tools to the agent", async () => {
    kit = await createTestRuntime({ apps: [{ manifest: notesManifest() }, { manifest: timerManifest() }] });
    expect(kit.runtime.appManager.getApp("notes")?.record).toMatchObject({ enabled: true, installed_version: "1.0.0" });
    const inventory = kit.agent.inventory();
    expect(inventory.revision).toBeGreaterThan(0);
    expect(inventory.tools.map((t) => `${String(t["app_scope"])}/${String(t["method"])}`).sort()).toEqual(["notes/notes.count", "notes/notes.do", "notes/notes.edit", "notes/notes.unserved", "timer/focus.start"]);
  });

  it("an app author's test: register a tool, the agent calls it, assert the result", async () => {
    kit = await createTestRuntime({ apps: [{ manifest: notesManifest() }] });
    const sdk = kit.sdk("notes");
    sdk.tools.register<{ prefix?: string }>("notes.count", (args) => ({ count: (args.prefix ?? "").length }));
    const outcome = await kit.agent.call("notes", "notes.count", { prefix: "abc" });
    expect(outcome.result).toEqual({ count: 3 });
    expect(outcome.error).toBeUndefined();
    expect(outcome.outputs).toEqual([
      ["lineup.tool.receipt", { status: "accepted", tool: { method: "notes.count", title: "notes.count" } }],
      ["lineup.tool.result", { result: { count: 3 } }],
    ]);
  });

  it("launches the app for an app_ready tool and reports it ready, as a host would", async () => {
    kit = await createTestRuntime({ apps: [{ manifest: notesManifest() }] });
    kit.sdk("notes").tools.register("notes.edit", (_args, ctx) => ({ instance: ctx.instance_id ?? "none" }));
    const outcome = await kit.agent.call("notes", "notes.edit", {});
    const [instance] = kit.runtime.instances.snapshot().instances;
    expect(instance).toMatchObject({ app_scope: "notes", conversation_id: "s-1" });
    expect(outcome.result).toEqual({ instance: instance!.instance_id });
    expect(outcome.outputs.map(([type, payload]) => (type === "lineup.tool.receipt" ? payload["status"] : type))).toEqual(["accepted", "starting", "activation_ready", "lineup.tool.result"]);
  });

  it("runs a runtime-owned operation on the fake clock: started, then the Runtime's result at the deadline", async () => {
    kit = await createTestRuntime({ apps: [{ manifest: timerManifest() }] });
    kit.sdk("timer").tools.registerOperation<{ minutes: number }>("focus.start", (args) => ({ duration_ms: args.minutes * 60_000 }));
    const call = await kit.agent.invoke("timer", "focus.start", { minutes: 25 });
    const started = await call.waitFor("lineup.tool.progress");
    expect(started).toMatchObject({ stage: "started", data: { started_at: "2026-11-30T06:00:00.000Z", ends_at: "2026-11-30T06:25:00.000Z" } });
    kit.advanceTime(24 * 60_000);
    expect(call.outputs().some(([type]) => type === "lineup.tool.result")).toBe(false);
    kit.advanceTime(60_000);
    const outcome = await call.done;
    expect(outcome.result).toMatchObject({ outcome: "completed", ends_at: "2026-11-30T06:25:00.000Z", ended_at: "2026-11-30T06:25:00.000Z" });
  });

  it("an app interrupts its running operation through its port: the Runtime ends the call with its one interrupted result", async () => {
    kit = await createTestRuntime({ apps: [{ manifest: timerManifest() }] });
    kit.sdk("timer").tools.registerOperation<{ minutes: number }>("focus.start", (args) => ({ duration_ms: args.minutes * 60_000 }));
    const call = await kit.agent.invoke("timer", "focus.start", { minutes: 25 });
    await call.waitFor("lineup.tool.progress");
    kit.advanceTime(10 * 60_000);
    const [instance] = kit.runtime.instances.snapshot().instances;
    // An SDK bound to the instance interrupts its conversation's operations; an unbound one must say which conversation.
    await expect(kit.sdk("timer").tools.interruptOperations()).rejects.toMatchObject({ code: "invalid_params" });
    await kit.sdk("timer", { instance_id: instance!.instance_id }).tools.interruptOperations({ reason: "stopped by the user" });
    const outcome = await call.done;
    expect(outcome.result).toMatchObject({ outcome: "interrupted", reason: "stopped by the user", ends_at: "2026-11-30T06:25:00.000Z", ended_at: "2026-11-30T06:10:00.000Z" });
    // Once: the deadline passing later changes nothing, and a second interrupt finds nothing to end.
    kit.advanceTime(20 * 60_000);
    await kit.runtime.appPort("timer").interruptOperations(instance!.conversation_id!, "again");
    expect(call.outputs().filter(([type]) => type === "lineup.tool.result" || type === "lineup.tool.error")).toHaveLength(1);
  });

  it("refuses a call at a stale inventory revision; a manifest that cannot be installed fails with its code", async () => {
    kit = await createTestRuntime({ apps: [{ manifest: notesManifest() }] });
    kit.sdk("notes").tools.register("notes.do", () => ({}));
    const stale = await kit.agent.call("notes", "notes.do", {}, { inventory_revision: 99 });
    expect(stale.error?.code).toBe("stale_inventory_revision");
    await expect(createTestRuntime({ apps: [{ manifest: { ...notesManifest(), format: "nope" } as unknown as ReturnType<typeof notesManifest> }] })).rejects.toMatchObject({ code: "bundle_manifest_invalid" });
  });

  it("an app author's test of events and state patches: the app's declared event reaches the agent, the agent's patch reaches the instance", async () => {
    const manifest: AppManifest = {
      ...notesManifest(),
      events: [{ name: "note.saved", data_schema: { type: "object", required: ["words"], properties: { words: { type: "integer" } }, additionalProperties: false } }],
      agent_subscriptions: [{ type: "lineup.app.state.patch", scope: "instance" }],
    } as AppManifest;
    kit = await createTestRuntime({ apps: [{ manifest }] });
    const { instance_id } = await kit.sdk("notes").apps.launch({ app_scope: "notes", conversation_id: "s-1" });
    const sdk = kit.sdk("notes", { instance_id });

    await sdk.events.emit("note.saved", { words: 12 });
    await expect(sdk.events.emit("note.saved", { words: "many" })).rejects.toMatchObject({ code: "invalid_params" });
    await expect(sdk.events.emit("note.deleted", {})).rejects.toMatchObject({ code: "invalid_params" });
    // The app's global face is no instance: it has nobody to tell.
    await expect(kit.sdk("notes").events.emit("note.saved", { words: 1 })).rejects.toMatchObject({ code: "invalid_state" });
    await expect.poll(() => kit!.agent.appEvents()).toEqual([{ app_scope: "notes", instance_id, name: "note.saved", data: { words: 12 } }]);

    const patches: unknown[] = [];
    sdk.agentMessages.subscribe({ conversation_id: "s-1", include_pending: true }, (message) => {
      patches.push(message.payload);
      void sdk.agentMessages.acknowledge(message.message_id);
    });
    kit.agent.sendStatePatch("notes", { title: "Groceries" }, { instance_id, base_revision: 0 });
    await expect.poll(() => patches).toEqual([{ patch: { title: "Groceries" }, base_revision: 0 }]);
  });
});

