/**
 * What the Runtime does with the focus and the tool declarations, through the loop (spec 4.4, 4.5, 7.3):
 * past the bound of live surfaces, or after an idle time, the least recently used idle background instance
 * is suspended and comes back restoring; a call with `restore_focus` that brought its app forward gives the front back when
 * it ends; `requires_foreground` refuses or ends a call out of the front with `foreground_required`; and an
 * `idempotent: false` call already delivered is not delivered again after a restart.
 */
import type { AppManifest, ToolDescriptor } from "@lineup/protocol";
import { afterEach, describe, expect, it } from "vitest";
import type { DeliveredToolCall } from "../src/index.js";
import { agentInvokes, device, onlineDevice, publisherKey, signedBundle, toolOutputs } from "./helpers/apps-harness.js";
import { whiteboardManifest } from "./apps-fixtures.js";
import { createFakeClock, createMemoryStoreData, FakeAppServer, settle, startDevice, until, type Device } from "./helpers/runtime-harness.js";

const tool = (method: string, fields: Partial<ToolDescriptor>): ToolDescriptor =>
  ({ method, contract_version: "1", input_schema: { type: "object" }, output_schema: { type: "object" }, call_model: "command", ...fields }) as ToolDescriptor;

/** A whiteboard with one tool per declaration under test. */
const board = (): AppManifest => {
  const m = whiteboardManifest();
  return {
    ...m,
    tools: [
      ...(m.tools ?? []),
      // Shown to the person, then the front goes back (a finished game).
      tool("board.show", { activation_requirement: "foreground_required", restore_focus: true }),
      // Needs the front for its whole run and may not move the app.
      tool("board.record", { requires_foreground: true, launch_policy: "never" }),
      // Held by the test's handler: a deadline long enough for the idle timer to pass while it runs.
      tool("board.note", { timeout_ms: 3_600_000 }),
      tool("board.peek", { idempotent: true }),
    ],
  } as AppManifest;
};

const devices: Device[] = [];
afterEach(async () => {
  for (const d of devices.splice(0)) await d.stop();
});

const terminals = (outputs: [string, Record<string, unknown>][]) => outputs.filter(([type]) => type === "lineup.tool.result" || type === "lineup.tool.error");

/** Launches the board in `conversation` in front, with a handler that holds its calls, and reports it ready. */
async function openBoard(d: Device, conversation: string): Promise<{ id: string; calls: DeliveredToolCall[]; cancelled: string[] }> {
  const instance = await d.runtime.appManager.launch({ app_scope: "whiteboard", conversation_id: conversation });
  const calls: DeliveredToolCall[] = [];
  const cancelled: string[] = [];
  d.runtime.appPort("whiteboard").registerToolHandler({ call: (call) => void calls.push(call), cancel: (id) => void cancelled.push(id) }, instance.instance_id);
  await d.runtime.instances.ready(instance.instance_id);
  return { id: instance.instance_id, calls, cancelled };
}

const statusOf = (d: Device, id: string) => d.runtime.instances.snapshot().instances.find((i) => i.instance_id === id)?.status;
const framed = (d: Device) => d.runtime.instances.snapshot().instances.filter((i) => ["launching", "active", "backgrounded", "restoring"].includes(i.status)).length;

describe("suspend while running (spec 4.4)", () => {
  it("never more than the bound of live surfaces: the least recently used is suspended, and comes back restoring when focused", async () => {
    const { d } = await onlineDevice({ install: board(), extra: { maxLiveSurfaces: 2 } });
    devices.push(d);
    const opened: string[] = [];
    for (const conversation of ["c-1", "c-2", "c-3", "c-4"]) {
      opened.push((await openBoard(d, conversation)).id);
      expect(framed(d)).toBeLessThanOrEqual(2);
    }
    // c-1 and c-2 were left first: they are suspended; the last two hold the surfaces.
    expect(opened.map((id) => statusOf(d, id))).toEqual(["suspended", "suspended", "backgrounded", "active"]);

    await d.runtime.instances.focus(opened[0]!);
    expect(statusOf(d, opened[0]!)).toBe("restoring");
    // Still within the bound while it loads: the least recently used of the others made room.
    expect(framed(d)).toBeLessThanOrEqual(2);
    await d.runtime.instances.ready(opened[0]!);
    expect(d.runtime.instances.snapshot().foreground).toBe(opened[0]);
    expect(opened.map((id) => statusOf(d, id))).toEqual(["active", "suspended", "suspended", "backgrounded"]);
  });

  it("an instance handling a call keeps its surface; a call to a suspended one brings its surface back behind", async () => {
    const { server, d } = await onlineDevice({ install: board(), extra: { maxLiveSurfaces: 1 } });
    devices.push(d);
    const first = await openBoard(d, "s-1");
    agentInvokes(server, "note", "whiteboard", "board.note", {}, 1);
    await until(() => first.calls.length === 1, 3_000, "the call reaches the board");
    const second = await openBoard(d, "c-2");
    // Busy: not suspended although past the bound.
    expect(statusOf(d, first.id)).toBe("backgrounded");
    await d.runtime.appPort("whiteboard").reportTool("note", { kind: "result", result: {} }, first.id);
    // Idle now: the next change suspends it.
    await d.runtime.instances.focus(second.id);
    expect(statusOf(d, first.id)).toBe("suspended");

    agentInvokes(server, "peek", "whiteboard", "board.peek", {}, 1);
    await until(() => statusOf(d, first.id) === "restoring", 3_000, "the suspended board restoring for the call");
    await d.runtime.instances.ready(first.id);
    await until(() => first.calls.length === 2, 3_000, "the call reaches the restored board");
    expect(d.runtime.instances.snapshot().foreground).toBe(second.id);
  });
});

describe("suspend after an idle time (spec 4.4)", () => {
  it("a background instance idle for suspendIdleMs is suspended, whatever the bound; one with a call on it is not", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const clock = createFakeClock();
    const d = await startDevice(server, createMemoryStoreData(), { clock, extra: { trustedPublishers: [(await publisherKey()).trustedKey], suspendIdleMs: 60_000 } });
    devices.push(d);
    await d.runtime.whenOnline();
    await d.runtime.appManager.install(await signedBundle(board()), { approved: true });
    const idle = await openBoard(d, "c-1");
    const busy = await openBoard(d, "s-1");
    agentInvokes(server, "note", "whiteboard", "board.note", {}, 1);
    await until(() => busy.calls.length === 1, 3_000, "the call on the second board");
    const front = await openBoard(d, "c-3");
    expect([statusOf(d, idle.id), statusOf(d, busy.id), statusOf(d, front.id)]).toEqual(["backgrounded", "backgrounded", "active"]);

    clock.advance(59_000);
    await settle();
    expect(statusOf(d, idle.id)).toBe("backgrounded");
    clock.advance(1_000);
    await until(() => statusOf(d, idle.id) === "suspended", 3_000, "the idle board suspended");
    expect([statusOf(d, busy.id), statusOf(d, front.id)]).toEqual(["backgrounded", "active"]);
    // Its call over, the second board is idle from when it left the front: long enough already.
    await d.runtime.appPort("whiteboard").reportTool("note", { kind: "result", result: {} }, busy.id);
    clock.advance(1);
    await until(() => statusOf(d, busy.id) === "suspended", 3_000, "the second board suspended once idle");
    expect(statusOf(d, front.id)).toBe("active");
  });
});

describe("restore_focus (spec 4.5)", () => {
  it("the instances view names the instances a call is on, and tells its subscribers when one becomes idle", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const d = await startDevice(server, createMemoryStoreData(), { extra: { trustedPublishers: [(await publisherKey()).trustedKey] } });
    devices.push(d);
    await d.runtime.whenOnline();
    await d.runtime.appManager.install(await signedBundle(board()), { approved: true });
    const held = await openBoard(d, "s-1");
    expect(d.runtime.instances.snapshot().busy).toEqual([]);
    const seen: (readonly string[])[] = [];
    const off = d.runtime.instances.subscribe((view) => void seen.push(view.busy));
    agentInvokes(server, "note", "whiteboard", "board.note", {}, 1);
    await until(() => held.calls.length === 1, 3_000, "the call on the board");
    expect(d.runtime.instances.snapshot().busy).toEqual([held.id]);
    expect(seen.at(-1)).toEqual([held.id]);
    await d.runtime.appPort("whiteboard").reportTool("note", { kind: "result", result: {} }, held.id);
    await until(() => d.runtime.instances.snapshot().busy.length === 0, 3_000, "the board idle again");
    // Told without any change to the instances themselves: the call's end alone.
    expect(seen.at(-1)).toEqual([]);
    off();
  });

  it("a call that brought its app forward gives the front back to the instance it displaced when it ends", async () => {
    const { server, d } = await onlineDevice({ install: board() });
    devices.push(d);
    const game = await openBoard(d, "s-1");
    const other = await openBoard(d, "c-2");
    expect(d.runtime.instances.snapshot().foreground).toBe(other.id);

    agentInvokes(server, "show", "whiteboard", "board.show", {}, 1);
    await until(() => game.calls.length === 1, 3_000, "the game in front with its call");
    expect(d.runtime.instances.snapshot().foreground).toBe(game.id);
    await d.runtime.appPort("whiteboard").reportTool("show", { kind: "result", result: {} }, game.id);
    await until(() => d.runtime.instances.snapshot().foreground === other.id, 3_000, "the front given back");
    expect(statusOf(d, game.id)).toBe("backgrounded");
  });

  it("with nothing in front before (the shell showed chat), the app goes to the background; if the person moved on, nothing changes", async () => {
    const { server, d } = await onlineDevice({ install: board() });
    devices.push(d);
    const game = await openBoard(d, "s-1");
    await d.runtime.instances.background(game.id);
    agentInvokes(server, "show-1", "whiteboard", "board.show", {}, 1);
    await until(() => game.calls.length === 1, 3_000, "the first call");
    await d.runtime.appPort("whiteboard").reportTool("show-1", { kind: "result", result: {} }, game.id);
    await until(() => d.runtime.instances.snapshot().foreground === undefined, 3_000, "the game behind again");
    expect(statusOf(d, game.id)).toBe("backgrounded");

    // The person opens another app while the call runs: the call's end leaves the front where the person put it.
    const other = await openBoard(d, "c-2");
    await d.runtime.instances.background(other.id);
    agentInvokes(server, "show-2", "whiteboard", "board.show", {}, 1);
    await until(() => game.calls.length === 2, 3_000, "the second call");
    await d.runtime.instances.focus(other.id);
    await d.runtime.appPort("whiteboard").reportTool("show-2", { kind: "result", result: {} }, game.id);
    await until(() => terminals(toolOutputs(server, "show-2")).length === 1, 3_000, "the second result");
    await settle();
    expect(d.runtime.instances.snapshot().foreground).toBe(other.id);
  });
});

describe("requires_foreground (spec 7.3)", () => {
  it("refused with foreground_required unless the app is in front (launch_policy never); ended so when the app leaves the front", async () => {
    const { server, d } = await onlineDevice({ install: board() });
    devices.push(d);
    const rec = await openBoard(d, "s-1");
    await d.runtime.instances.background(rec.id);
    agentInvokes(server, "rec-1", "whiteboard", "board.record", {}, 1);
    await until(() => terminals(toolOutputs(server, "rec-1")).length === 1, 3_000, "the refusal");
    expect(terminals(toolOutputs(server, "rec-1"))).toEqual([["lineup.tool.error", expect.objectContaining({ code: "foreground_required" })]]);
    expect(rec.calls).toEqual([]);
    expect(d.runtime.instances.snapshot().foreground).toBeUndefined();

    await d.runtime.instances.focus(rec.id);
    agentInvokes(server, "rec-2", "whiteboard", "board.record", {}, 1);
    await until(() => rec.calls.length === 1, 3_000, "the call runs in front");
    await d.runtime.instances.background(rec.id);
    await until(() => terminals(toolOutputs(server, "rec-2")).length === 1, 3_000, "the call ended");
    expect(terminals(toolOutputs(server, "rec-2"))).toEqual([["lineup.tool.error", expect.objectContaining({ code: "foreground_required" })]]);
    expect(rec.cancelled).toEqual(["rec-2"]);
    await expect(d.runtime.appPort("whiteboard").reportTool("rec-2", { kind: "result", result: {} }, rec.id)).rejects.toMatchObject({ code: "call_not_active" });
  });
});

describe("idempotent: false runs at most once (spec 7.1)", () => {
  it("a call delivered before a restart ends handler_failed and is not delivered again; an idempotent one is", async () => {
    const data = createMemoryStoreData();
    const { server, d } = await onlineDevice({ data, install: board() });
    const first = await openBoard(d, "s-1");
    agentInvokes(server, "note", "whiteboard", "board.note", {}, 1);
    agentInvokes(server, "peek", "whiteboard", "board.peek", {}, 1);
    await until(() => first.calls.length === 2, 3_000, "both calls delivered");
    await d.stop();

    const again = await device(server, data, "r1");
    devices.push(again);
    const seen: string[] = [];
    again.runtime.appPort("whiteboard").registerToolHandler({ call: (call) => void seen.push(call.call_id), cancel: () => {} });
    await again.runtime.whenOnline();
    await until(() => terminals(toolOutputs(server, "note")).length === 1, 3_000, "the note's end");
    expect(terminals(toolOutputs(server, "note"))).toEqual([["lineup.tool.error", expect.objectContaining({ code: "handler_failed" })]]);
    await until(() => seen.includes("peek"), 3_000, "the idempotent call delivered again");
    await settle();
    expect(seen.filter((id) => id === "note")).toEqual([]);
  });
});
