/**
 * Closing an instance ends the calls it was still handling (spec 4.4, 7.3: exactly one terminal per
 * call). Closed by the person, a call ends `cancelled_by_user`; closed by the app itself,
 * `handler_failed`. The instance is told to cancel. A runtime-owned operation keeps its deadline.
 */
import type { AppManifest } from "@lineup/protocol";
import { afterEach, describe, expect, it } from "vitest";
import type { DeliveredToolCall } from "../src/index.js";
import { agentInvokes, onlineDevice, publisherKey, signedBundle, toolOutputs } from "./helpers/apps-harness.js";
import { pomodoroManifest, whiteboardManifest } from "./apps-fixtures.js";
import { createFakeClock, createMemoryStoreData, FakeAppServer, settle, startDevice, until, type Device } from "./helpers/runtime-harness.js";

/** A whiteboard whose `board.present` runs in its foreground instance and waits there for the person. */
const presentingWhiteboard = (): AppManifest => {
  const m = whiteboardManifest();
  return {
    ...m,
    tools: [...(m.tools ?? []), { method: "board.present", contract_version: "1", input_schema: { type: "object" }, output_schema: { type: "object" }, call_model: "command", activation_requirement: "foreground_required" }],
  } as AppManifest;
};

const devices: Device[] = [];
afterEach(async () => {
  for (const d of devices.splice(0)) await d.stop();
});

/** An instance of `appScope` launched for `s-1` and ready, with a handler that holds every call (answers none). */
async function heldInstance(d: Device, appScope: string, newInstance = false): Promise<{ instanceId: string; calls: DeliveredToolCall[]; cancelled: string[] }> {
  const instance = await d.runtime.appManager.launch({ app_scope: appScope, conversation_id: "s-1", ...(newInstance ? { new_instance: true } : {}) });
  const calls: DeliveredToolCall[] = [];
  const cancelled: string[] = [];
  d.runtime.appPort(appScope).registerToolHandler({ call: (call) => void calls.push(call), cancel: (callId) => void cancelled.push(callId) }, instance.instance_id);
  await d.runtime.instances.ready(instance.instance_id);
  return { instanceId: instance.instance_id, calls, cancelled };
}

const terminalOf = (outputs: [string, Record<string, unknown>][]) => outputs.filter(([type]) => type === "lineup.tool.result" || type === "lineup.tool.error");

describe("closing an instance ends the calls it was handling", () => {
  for (const [by, code] of [
    ["user", "cancelled_by_user"],
    [undefined, "handler_failed"],
  ] as const) {
    it(`closed ${by === undefined ? "by the app" : "by the person"}: the held call ends ${code}, once, and the app is told to cancel it`, async () => {
      const { server, d } = await onlineDevice({ install: presentingWhiteboard() });
      devices.push(d);
      const board = await heldInstance(d, "whiteboard");
      agentInvokes(server, "present", "whiteboard", "board.present", {}, 1);
      await until(() => board.calls.length === 1, 3_000, "the call reaches the instance");

      await d.runtime.appManager.closeInstance(board.instanceId, by === undefined ? undefined : { by });
      await until(() => terminalOf(toolOutputs(server, "present")).length > 0, 3_000, "the call's terminal");
      const [[type, payload]] = terminalOf(toolOutputs(server, "present")) as [[string, { code: string; message: string }]];
      expect(type).toBe("lineup.tool.error");
      expect(payload.code).toBe(code);
      expect(payload.message).toMatch(/whiteboard/i);
      expect(board.cancelled).toEqual(["present"]);

      // Whatever the closing app still reports is refused: the agent has its one terminal.
      await expect(d.runtime.appPort("whiteboard").reportTool("present", { kind: "result", result: {} }, board.instanceId)).rejects.toMatchObject({ code: "call_not_active" });
      await d.runtime.instances.closed(board.instanceId);
      expect(terminalOf(toolOutputs(server, "present"))).toHaveLength(1);
    });
  }

  it("closing another instance of the app leaves the call alone", async () => {
    const { server, d } = await onlineDevice({ install: presentingWhiteboard() });
    devices.push(d);
    const first = await heldInstance(d, "whiteboard");
    const second = await heldInstance(d, "whiteboard", true);
    agentInvokes(server, "present", "whiteboard", "board.present", {}, 1);
    await until(() => first.calls.length + second.calls.length === 1, 3_000, "the call reaches one instance");
    const bystander = first.calls.length === 1 ? second : first;

    await d.runtime.appManager.closeInstance(bystander.instanceId, { by: "user" });
    await d.runtime.instances.closed(bystander.instanceId);
    expect(terminalOf(toolOutputs(server, "present"))).toEqual([]);
    expect(bystander.cancelled).toEqual([]);
  });

  it("a runtime-owned operation keeps running when the person closes the timer, and ends at its deadline", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const clock = createFakeClock();
    const d = await startDevice(server, createMemoryStoreData(), { clock, extra: { trustedPublishers: [(await publisherKey()).trustedKey] } });
    devices.push(d);
    await d.runtime.whenOnline();
    await d.runtime.appManager.install(await signedBundle(pomodoroManifest()), { approved: true });
    const timer = await d.runtime.appManager.launch({ app_scope: "pomodoro", conversation_id: "s-1" });
    const port = d.runtime.appPort("pomodoro");
    port.registerToolHandler({ call: (call) => void port.reportTool(call.call_id, { kind: "start_operation", duration_ms: 300 }, call.instance_id), cancel: () => {} }, timer.instance_id);
    await d.runtime.instances.ready(timer.instance_id);
    agentInvokes(server, "focus", "pomodoro", "focus.start", { minutes: 1 }, 1);
    await until(() => toolOutputs(server, "focus").some(([type, payload]) => type === "lineup.tool.progress" && (payload as { stage?: string }).stage === "started"), 3_000, "the operation starts");

    await d.runtime.appManager.closeInstance(timer.instance_id, { by: "user" });
    await d.runtime.instances.closed(timer.instance_id);
    await settle();
    expect(terminalOf(toolOutputs(server, "focus"))).toEqual([]);
    clock.advance(300);
    await until(() => terminalOf(toolOutputs(server, "focus")).length > 0, 5_000, "the deadline");
    expect(terminalOf(toolOutputs(server, "focus"))).toEqual([["lineup.tool.result", expect.objectContaining({ result: expect.objectContaining({ outcome: "completed" }) })]]);
  });
});
