/**
 * `sdk.tools` through a real Runtime (the testkit): what the agent observes for each way a handler
 * ends — a value, a typed failure, a crash, progress, a result the output schema refuses, a cancel —
 * plus one port registration per SDK, redeliveries run once, and runtime-owned operations.
 */
import { describe, expect, it } from "vitest";
import type { AppPort, ToolCallHandler } from "@lineup/runtime";
import { createAppSdk, type AppDiagnostic } from "../src/index.js";
import type { TestRuntime } from "../src/testkit/index.js";
import { notesManifest, timerManifest, useTestRuntime } from "./fixtures.js";

/** notes and timer installed; launched instances report ready as a host would. */
const start = useTestRuntime({ apps: [{ manifest: notesManifest() }, { manifest: timerManifest() }] });

/** The Runtime's port for `appScope`, counting registrations and (optionally) delivering every call twice. */
function instrumentedPort(k: TestRuntime, appScope: string, options: { deliverTwice?: boolean } = {}): { port: AppPort; registrations: () => number } {
  const real = k.runtime.appPort(appScope);
  let registrations = 0;
  const port: AppPort = {
    ...real,
    registerToolHandler(handler: ToolCallHandler, instanceId?: string) {
      registrations++;
      return real.registerToolHandler(
        {
          call(call) {
            handler.call(call);
            if (options.deliverTwice === true) handler.call(call);
          },
          cancel: (callId) => handler.cancel(callId),
        },
        instanceId,
      );
    },
  };
  return { port, registrations: () => registrations };
}

/** Lets the Runtime and the fake server run a few turns. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

describe("sdk.tools through the Runtime", () => {
  it("a handler's value is the call's one result", async () => {
    const k = await start();
    const sdk = k.sdk("notes");
    sdk.tools.registerAll({
      "notes.count": (args: { prefix?: string }) => ({ count: args.prefix === "a" ? 1 : 0 }),
      "notes.do": async (_args, ctx) => ({ conversation: ctx.conversation_id, call: ctx.call_id, method: ctx.method }),
    });
    expect((await k.agent.call("notes", "notes.count", { prefix: "a" })).result).toEqual({ count: 1 });
    const done = await k.agent.call("notes", "notes.do", {}, { call_id: "c-do" });
    expect(done.result).toEqual({ conversation: "s-1", call: "c-do", method: "notes.do" });
    expect(done.outputs.filter(([type]) => type === "lineup.tool.result")).toHaveLength(1);
  });

  it("a thrown { code: permission_denied } is that error, with its message", async () => {
    const k = await start();
    k.sdk("notes").tools.register("notes.do", () => {
      throw Object.assign(new Error("the user has not shared this notebook"), { code: "permission_denied" });
    });
    const outcome = await k.agent.call("notes", "notes.do", {});
    expect(outcome.result).toBeUndefined();
    expect(outcome.error).toEqual({ code: "permission_denied", message: "the user has not shared this notebook" });
  });

  it("a plain Error is handler_failed with a plain message: no stack, no internals; the sink gets the error", async () => {
    const k = await start();
    const seen: AppDiagnostic[] = [];
    k.sdk("notes", { diagnostics: (entry) => seen.push(entry) }).tools.register("notes.do", function explodingHandler() {
      throw new Error("db password is hunter2");
    });
    const outcome = await k.agent.call("notes", "notes.do", {});
    expect(outcome.error?.code).toBe("handler_failed");
    expect(outcome.error?.message).toBe("notes.do failed");
    const wire = JSON.stringify(outcome.outputs);
    expect(wire).not.toContain("hunter2");
    expect(wire).not.toContain("explodingHandler");
    expect(wire).not.toMatch(/\bat .*:\d+:\d+/);
    expect(seen).toEqual([expect.objectContaining({ app_scope: "notes", level: "error", message: expect.stringContaining("hunter2") as unknown })]);
    expect(JSON.stringify(seen)).not.toContain("explodingHandler");
  });

  it("a thrown code outside the app tool codes is handler_failed too", async () => {
    const k = await start();
    k.sdk("notes").tools.register("notes.do", () => {
      throw Object.assign(new Error("nope"), { code: "app_disabled" });
    });
    expect((await k.agent.call("notes", "notes.do", {})).error).toEqual({ code: "handler_failed", message: "notes.do failed (app_disabled)" });
  });

  it("progress reaches the agent in order, before the result", async () => {
    const k = await start();
    k.sdk("notes").tools.register("notes.do", async (_args, ctx) => {
      await ctx.progress({ stage: "reading", progress: 0.1 });
      void ctx.progress({ stage: "writing", progress: 0.5, message: "half way", data: { rows: 2 } });
      void ctx.progress({ progress: 7 }); // clamped to 1
      return { done: true };
    });
    const outcome = await k.agent.call("notes", "notes.do", {});
    expect(outcome.outputs).toEqual([
      ["lineup.tool.receipt", { status: "accepted", tool: { method: "notes.do", title: "notes.do" } }],
      ["lineup.tool.progress", { stage: "reading", progress: 0.1 }],
      ["lineup.tool.progress", { stage: "writing", progress: 0.5, message: "half way", data: { rows: 2 } }],
      ["lineup.tool.progress", { progress: 1 }],
      ["lineup.tool.result", { result: { done: true } }],
    ]);
  });

  it("a result the output schema refuses ends the call with invalid_result and is not delivered", async () => {
    const k = await start();
    k.sdk("notes").tools.register("notes.count", () => ({ count: "many" }));
    const outcome = await k.agent.call("notes", "notes.count", {});
    expect(outcome.error?.code).toBe("invalid_result");
    expect(JSON.stringify(outcome.outputs)).not.toContain("many");
  });

  it("the agent's cancel aborts ctx.signal; nothing more is reported for the call", async () => {
    const k = await start();
    const seen: AppDiagnostic[] = [];
    let signal: AbortSignal | undefined;
    let abortedWith: unknown;
    k.sdk("notes", { diagnostics: (entry) => seen.push(entry) }).tools.register("notes.edit", async (_args, ctx) => {
      signal = ctx.signal;
      await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
      abortedWith = ctx.signal.reason;
      await ctx.progress({ stage: "too late" });
      return { saved: true };
    });
    const call = await k.agent.invoke("notes", "notes.edit", {}, { call_id: "c-edit" });
    await call.waitFor("lineup.tool.receipt");
    await waitUntil(() => signal !== undefined);
    expect(signal!.aborted).toBe(false);
    k.agent.cancel("c-edit", "the user changed their mind");
    const outcome = await call.done;
    expect(signal!.aborted).toBe(true);
    expect(abortedWith).toMatchObject({ code: "request_cancelled" });
    expect(outcome.error?.code).toBe("request_cancelled");
    await settle();
    expect(k.agent.outputs("c-edit")).toEqual(outcome.outputs);
    expect(k.agent.outputs("c-edit").some(([type]) => type === "lineup.tool.progress" || type === "lineup.tool.result")).toBe(false);
    expect(seen).toEqual([]);
  });

  it("spec 6.2's onInvoke answers the calls no handler serves: at once, or pending then complete, with progress; fail; a cancel closes a pending call", async () => {
    const k = await start();
    const sdk = k.sdk("notes");
    sdk.tools.register("notes.count", () => ({ count: 7 }));
    const pending: string[] = [];
    let invoked: { method: string; conversation_id: string; mode: string }[] = [];
    sdk.tools.onInvoke(async (call) => {
      invoked = [...invoked, { method: call.method, conversation_id: call.conversation_id, mode: call.mode }];
      if (call.method === "notes.do") return { outcome: "completed", result: { now: true } };
      if (call.method === "notes.edit") {
        pending.push(call.call_id);
        return { outcome: "pending" };
      }
      return { outcome: "failed", code: "permission_denied", message: "not this one" };
    });
    expect(() => sdk.tools.onInvoke(async () => ({ outcome: "pending" }))).toThrow(/already set/);
    // A registered handler keeps its method; the listener gets the others.
    expect((await k.agent.call("notes", "notes.count", {})).result).toEqual({ count: 7 });
    expect((await k.agent.call("notes", "notes.do", {})).result).toEqual({ now: true });
    expect(invoked).toEqual([{ method: "notes.do", conversation_id: "s-1", mode: "direct" }]);

    const later = await k.agent.invoke("notes", "notes.edit", {}, { call_id: "c-later" });
    await waitUntil(() => pending.includes("c-later"));
    await sdk.tools.progress({ call_id: "c-later", progress: { stage: "saving", progress: 0.5 } });
    expect(await later.waitFor("lineup.tool.progress")).toMatchObject({ stage: "saving", progress: 0.5 });
    await sdk.tools.complete({ call_id: "c-later", result: { saved: true } });
    expect((await later.done).result).toEqual({ saved: true });
    // One result per call: a second answer is refused, and nothing more reaches the agent.
    await expect(sdk.tools.complete({ call_id: "c-later", result: { saved: false } })).rejects.toMatchObject({ code: "not_found" });
    await expect(sdk.tools.fail({ call_id: "c-later", code: "handler_failed" })).rejects.toMatchObject({ code: "not_found" });

    const failed = await k.agent.invoke("notes", "notes.edit", {}, { call_id: "c-fail" });
    await waitUntil(() => pending.includes("c-fail"));
    await sdk.tools.fail({ call_id: "c-fail", code: "cancelled_by_user", message: "the person closed the note" });
    expect((await failed.done).error).toEqual({ code: "cancelled_by_user", message: "the person closed the note" });

    const cancelled = await k.agent.invoke("notes", "notes.edit", {}, { call_id: "c-cancel" });
    await waitUntil(() => pending.includes("c-cancel"));
    k.agent.cancel("c-cancel", "never mind");
    expect((await cancelled.done).error?.code).toBe("request_cancelled");
    await expect.poll(() => sdk.tools.complete({ call_id: "c-cancel", result: {} }).then(() => "sent", (e: { code: string }) => e.code)).toBe("not_found");
    await settle();
    expect(k.agent.outputs("c-cancel").some(([type]) => type === "lineup.tool.result")).toBe(false);

    expect((await k.agent.call("notes", "notes.unserved", {})).error).toEqual({ code: "permission_denied", message: "not this one" });
    await expect(sdk.tools.progress({ call_id: "c-unknown", progress: { stage: "x" } })).rejects.toMatchObject({ code: "not_found" });
  });

  it("a method nobody serves is handler_failed", async () => {
    const k = await start();
    k.sdk("notes").tools.register("notes.do", () => ({}));
    expect((await k.agent.call("notes", "notes.unserved", {})).error).toEqual({ code: "handler_failed", message: "this app has no handler for notes.unserved" });
  });

  it("registers with the port once per SDK; with no handler left calls wait until one registers", async () => {
    const k = await start();
    const { port, registrations } = instrumentedPort(k, "notes");
    const sdk = createAppSdk(port);
    const offCount = sdk.tools.register("notes.count", () => ({ count: 1 }));
    const offDo = sdk.tools.registerAll({ "notes.do": () => ({ n: 1 }) });
    expect(() => sdk.tools.register("notes.do", () => ({}))).toThrow(/already served/);
    expect((await k.agent.call("notes", "notes.count", {})).result).toEqual({ count: 1 });
    expect(registrations()).toBe(1);

    offCount();
    offDo();
    const waiting = await k.agent.invoke("notes", "notes.do", {});
    await waiting.waitFor("lineup.tool.receipt");
    await settle();
    expect(waiting.outputs().map(([type]) => type)).toEqual(["lineup.tool.receipt"]);
    sdk.tools.register("notes.do", () => ({ n: 2 }));
    expect((await waiting.done).result).toEqual({ n: 2 });
    expect(registrations()).toBe(2);
  });

  it("a call delivered twice (a redelivery after a restart) runs its handler once", async () => {
    const k = await start();
    const { port } = instrumentedPort(k, "notes", { deliverTwice: true });
    let runs = 0;
    const seen: AppDiagnostic[] = [];
    createAppSdk(port, { diagnostics: (entry) => seen.push(entry) }).tools.register("notes.do", async () => {
      runs++;
      await settle();
      return { runs };
    });
    expect((await k.agent.call("notes", "notes.do", {})).result).toEqual({ runs: 1 });
    await settle();
    expect(runs).toBe(1);
    expect(seen).toEqual([]);
  });

  it("an operation call starts the Runtime's operation from { duration_ms }, with register or registerOperation", async () => {
    const k = await start();
    const off = k.sdk("timer").tools.register<{ minutes: number }>("focus.start", (args) => ({ duration_ms: args.minutes * 1_000 }));
    const first = await k.agent.invoke("timer", "focus.start", { minutes: 1 });
    await first.waitFor("lineup.tool.progress");
    k.advanceTime(1_000);
    expect((await first.done).result).toMatchObject({ outcome: "completed" });
    off();

    k.sdk("timer").tools.registerOperation("focus.start", () => ({ duration_ms: -5 }) as unknown as { duration_ms: number });
    const broken = await k.agent.call("timer", "focus.start", { minutes: 1 });
    expect(broken.error).toMatchObject({ code: "handler_failed", message: expect.stringContaining("duration_ms") as unknown });
  });
});

async function waitUntil(predicate: () => boolean): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
