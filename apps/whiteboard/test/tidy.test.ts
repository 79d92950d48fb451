/**
 * "Ask the agent to tidy this board": the board mapped to the task's context, the agent's layout read and
 * applied as one undoable change through the store, and the task from the button to the decision over a
 * port that behaves as the surface SDK's task handle does.
 */
import { LocalSessionData } from "@lineup/surface-sdk";
import type { AgentTask, AgentTaskEvent, AgentTaskEventBody, AgentTaskRequest } from "@lineup/protocol";
import { describe, expect, it } from "vitest";
import { emptyBoard, type Board, type BoxItem, type Item } from "../src/model/document.js";
import { itemBounds } from "../src/model/geometry.js";
import { contextFits, itemLabel, layoutOperation, previewLayout, readTidyResult, TIDY_OUTPUT_SCHEMA, tidyContext } from "../src/model/tidy.js";
import { BoardStore } from "../src/store.js";
import { BoardSync } from "../src/sync.js";
import { TidyTask, type TidyHandle, type TidyPort } from "../src/tidy-task.js";

const rect = (id: string, x: number, y: number, label?: string): BoxItem => ({ id, type: "rect", x, y, w: 100, h: 50, color: "ink", fill: null, width: 2, ...(label === undefined ? {} : { label }) });
const board = (...items: Item[]): Board => ({ ...emptyBoard("Plan"), items });
const stroke: Item = { id: "s", type: "stroke", color: "ink", width: 4, points: [10, 10, 0.5, 50, 30, 0.5] };
const arrow: Item = { id: "a", type: "arrow", x1: 300, y1: 100, x2: 200, y2: 40, color: "blue", width: 2, label: "next" };
const text: Item = { id: "t", type: "text", x: 5, y: 400, text: "  Ship   by\nFriday", color: "red", size: 20 };

describe("the board as the tidy task's context", () => {
  it("maps every item to its bounds and label, in drawing order", () => {
    const b = board(rect("r", 40, 60, "Design"), { ...rect("flip", 300, 200), w: -80, h: -40 }, stroke, arrow, text);
    const { board: ctx } = tidyContext(b);
    expect(ctx.items).toEqual([
      { id: "r", x: 40, y: 60, w: 100, h: 50, label: "Design" },
      // A shape drawn right to left: its bounds, not its raw corner.
      { id: "flip", x: 220, y: 160, w: 80, h: 40 },
      { id: "s", x: 7, y: 7, w: 46, h: 26 },
      { id: "a", x: 200, y: 40, w: 100, h: 60, label: "next" },
      { id: "t", x: 5, y: 400, w: 132, h: 50, label: "Ship by" },
    ]);
    // The board reaches the far edge of what is drawn, and at least the frame the person sees.
    expect([ctx.width, ctx.height]).toEqual([300, 450]);
    expect(tidyContext(b, { width: 1000, height: 300 }).board).toMatchObject({ width: 1000, height: 450 });
    expect(tidyContext(board()).board).toEqual({ width: 0, height: 0, items: [] });
  });

  it("labels are one line and short; strokes and unlabelled shapes have none", () => {
    expect(itemLabel({ ...text, text: "x".repeat(200) })).toHaveLength(80);
    expect(itemLabel(stroke)).toBeUndefined();
    expect(itemLabel(rect("r", 0, 0, "   "))).toBeUndefined();
  });

  it("says when a board is too large for one task's context", () => {
    const many = board(...Array.from({ length: 400 }, (_, i) => rect(`item-${i}`, i * 3, i * 2, `Label number ${i}`)));
    expect(contextFits(tidyContext(board(rect("r", 0, 0)))).valueOf()).toBe(true);
    expect(contextFits(tidyContext(many))).toBe(false);
  });
});

describe("the agent's layout", () => {
  it("is read only when it is one: ids with finite positions, and a summary", () => {
    expect(readTidyResult({ layout: [{ id: "a", x: 24, y: 24 }], summary: "Arranged 1 item in a 1×1 grid." })).toEqual({ layout: [{ id: "a", x: 24, y: 24 }], summary: "Arranged 1 item in a 1×1 grid." });
    expect(readTidyResult({ layout: [{ id: "a", x: "24", y: 24 }], summary: "" })).toBeUndefined();
    expect(readTidyResult({ layout: [], summary: 3 })).toBeUndefined();
    expect(readTidyResult([])).toBeUndefined();
    expect(TIDY_OUTPUT_SCHEMA["required"]).toEqual(["layout", "summary"]);
  });

  it("becomes one update that puts each named item's bounds' corner where the layout says", () => {
    const b = board(rect("r", 40, 60), stroke, arrow, text, rect("stay", 24, 24));
    const op = layoutOperation(b, [
      { id: "r", x: 24, y: 100 },
      { id: "s", x: 200, y: 200 },
      { id: "a", x: 0, y: 0 },
      { id: "r", x: 999, y: 999 }, // a second placement of an id does not count
      { id: "gone", x: 5, y: 5 }, // no longer on the board
      { id: "stay", x: 24, y: 24 }, // already there
    ])!;
    expect(op.kind).toBe("update");
    expect(op.items.map((i) => i.id)).toEqual(["r", "s", "a"]);
    const moved = new Map(op.items.map((i) => [i.id, i]));
    expect(moved.get("r")).toMatchObject({ x: 24, y: 100, w: 100, h: 50 });
    expect(itemBounds(moved.get("s")!)).toMatchObject({ x: 200, y: 200, w: 46, h: 26 });
    expect(moved.get("s")).toMatchObject({ points: [203, 203, 0.5, 243, 223, 0.5] });
    expect(moved.get("a")).toMatchObject({ x1: 100, y1: 60, x2: 0, y2: 0 });
    expect(layoutOperation(b, [{ id: "stay", x: 24, y: 24 }])).toBeUndefined();
  });

  it("previews what accepting would do to the board as it is now", () => {
    const b = board(rect("r", 40, 60), rect("q", 400, 60));
    const preview = previewLayout(b, [{ id: "r", x: 24, y: 24 }, { id: "q", x: 400, y: 60 }, { id: "gone", x: 0, y: 0 }]);
    expect([preview.moves, preview.gone]).toEqual([1, 1]);
    expect(preview.board.items[0]).toMatchObject({ id: "r", x: 24, y: 24 });
    expect(b.items[0]).toMatchObject({ x: 40, y: 60 });
  });
});

async function boardStore(items: Item[]): Promise<{ store: BoardStore; data: LocalSessionData }> {
  const data = new LocalSessionData();
  const sync = new BoardSync({ sessionData: data, debounceMs: 0 });
  await sync.start();
  let n = 0;
  const store = new BoardStore(sync, () => `n${++n}`);
  store.perform({ kind: "insert", entries: items.map((item) => ({ item })) });
  await store.flush();
  return { store, data };
}

describe("applying an accepted layout through the store", () => {
  it("is ONE undoable change, stored like any edit; one undo puts every item back", async () => {
    const { store, data } = await boardStore([rect("a", 300, 300), rect("b", 10, 500), rect("c", 700, 20)]);
    const before = store.board.items;
    expect(store.applyLayout([{ id: "a", x: 24, y: 24 }, { id: "b", x: 148, y: 24 }, { id: "c", x: 24, y: 98 }])).toBe(3);
    expect(store.board.items.map((i) => (i.type === "rect" ? [i.id, i.x, i.y] : []))).toEqual([["a", 24, 24], ["b", 148, 24], ["c", 24, 98]]);
    await store.flush();
    expect(((await data.get()).data as { items: Item[] }).items.map((i) => (i as { x: number }).x)).toEqual([24, 148, 24]);
    store.undo();
    expect(store.board.items).toEqual(before);
    expect(store.state.canUndo).toBe(true); // the insert is still there to undo: the layout was one entry
    store.redo();
    expect(store.board.items[0]).toMatchObject({ x: 24, y: 24 });
  });

  it("changes nothing, and records nothing, when everything is already in place", async () => {
    const { store } = await boardStore([rect("a", 24, 24)]);
    store.undo();
    store.redo();
    expect(store.applyLayout([{ id: "a", x: 24, y: 24 }])).toBe(0);
    store.undo();
    expect(store.board.items).toEqual([]);
  });
});

/** A tidy task as the SDK hands it: events replayed then live; controls answer with the task, or refuse. */
class FakeTidy implements TidyPort {
  record: AgentTask | undefined;
  readonly requests: AgentTaskRequest[] = [];
  readonly calls: string[] = [];
  readonly listeners = new Set<(event: AgentTaskEvent, task: AgentTask) => void>();
  readonly events: AgentTaskEvent[] = [];
  listed: AgentTask[] = [];
  refuse: { code: string; message: string } | undefined;

  emit(body: AgentTaskEventBody, changes: Partial<AgentTask>): void {
    this.record = { ...this.record!, ...changes, event_count: this.events.length + 1 };
    const event = { task_id: this.record.task_id, index: this.events.length + 1, attempt: 1, at: "now", ...body } as AgentTaskEvent;
    this.events.push(event);
    for (const l of [...this.listeners]) l(event, this.record);
  }
  handle(): TidyHandle {
    const answer = async (call: string, changes: Partial<AgentTask>) => {
      this.calls.push(call);
      if (this.refuse !== undefined) throw this.refuse;
      this.record = { ...this.record!, ...changes };
      return this.record;
    };
    return {
      task_id: this.record!.task_id,
      task: this.record!,
      subscribe: (listener) => {
        for (const e of this.events) listener(e, this.record!);
        this.listeners.add(listener);
        return () => void this.listeners.delete(listener);
      },
      cancel: () => answer("cancel", { status: "cancelled" }),
      accept: () => answer("accept", { decision: { decision: "accepted", at: "now" } }),
      reject: (reason) => answer(`reject ${reason ?? ""}`.trim(), { decision: { decision: "rejected", at: "now", ...(reason === undefined ? {} : { reason }) } }),
    };
  }
  async startTask(request: AgentTaskRequest): Promise<TidyHandle> {
    this.requests.push(request);
    this.record = {
      task_id: "tidy-1", app_scope: "whiteboard", conversation_id: "c1", entry: request.entry, idempotency_key: "k", request_hash: "0".repeat(64), request,
      status: "queued", attempt: 1, turn_id: "turn-1", trace_id: "tr", created_at: "now", updated_at: "now", event_count: 0,
    };
    return this.handle();
  }
  async tasks(): Promise<AgentTask[]> {
    return this.listed;
  }
  async task(): Promise<TidyHandle> {
    return this.handle();
  }
}

const LAYOUT = { layout: [{ id: "a", x: 24, y: 24 }, { id: "b", x: 148, y: 24 }], summary: "Arranged 2 items in a 2×1 grid." };

describe("the tidy task", () => {
  it("starts tidy_board with the board as context and the layout schema, and shows its status", async () => {
    const port = new FakeTidy();
    const tidy = new TidyTask(port);
    const context = tidyContext(board(rect("a", 300, 300, "B"), rect("b", 10, 10, "A")));
    await tidy.start(context);
    expect(port.requests).toEqual([
      { entry: "tidy_board", title: "Tidy this board", input: { text: "Tidy this whiteboard: arrange its 2 items neatly. Answer with a position for each item." }, context, output_schema: TIDY_OUTPUT_SCHEMA },
    ]);
    expect(tidy.view).toMatchObject({ phase: "working", task: { status: "queued" } });
    port.emit({ kind: "progress", label: "Arranging 2 items" }, { status: "running" });
    expect(tidy.view).toMatchObject({ phase: "working", label: "Arranging 2 items" });
    // A second press while one is under way asks nothing.
    await tidy.start(context);
    expect(port.requests).toHaveLength(1);
  });

  it("Accept tells the Runtime, then applies the layout once; Reject tells it why and applies nothing", async () => {
    for (const decision of ["accept", "reject"] as const) {
      const port = new FakeTidy();
      const tidy = new TidyTask(port);
      await tidy.start(tidyContext(board(rect("a", 300, 300), rect("b", 10, 10))));
      port.emit({ kind: "status", status: "completed" }, { status: "completed", result: { output: LAYOUT } });
      expect(tidy.view).toMatchObject({ phase: "proposed", result: LAYOUT });
      const applied: unknown[] = [];
      if (decision === "accept") await tidy.accept((layout) => applied.push(layout) && 2);
      else await tidy.reject("  keep my order  ");
      expect(port.calls).toEqual([decision === "accept" ? "accept" : "reject keep my order"]);
      expect(applied).toEqual(decision === "accept" ? [LAYOUT.layout] : []);
      expect(tidy.view).toEqual(decision === "accept" ? { phase: "ended", outcome: "accepted", message: "Moved 2 items. Undo puts them back." } : { phase: "ended", outcome: "rejected", message: "Kept the board as it was." });
      // The decision event that follows changes nothing more.
      port.emit({ kind: "decision", decision: decision === "accept" ? "accepted" : "rejected" }, {});
      expect(tidy.view.phase).toBe("ended");
    }
  });

  it("a refused accept leaves the board alone and the proposal open", async () => {
    const port = new FakeTidy();
    const tidy = new TidyTask(port);
    await tidy.start(tidyContext(board(rect("a", 300, 300))));
    port.emit({ kind: "status", status: "completed" }, { status: "completed", result: { output: LAYOUT } });
    port.refuse = { code: "invalid_state", message: "already decided" };
    let applied = 0;
    await tidy.accept(() => ++applied);
    expect(applied).toBe(0);
    expect(tidy.view).toMatchObject({ phase: "proposed", problem: "The layout could not be accepted: already decided (invalid_state)" });
  });

  it("cancelled, failed, or an answer that is not a layout: the board is unchanged and the panel says so", async () => {
    const ends: [AgentTaskEventBody, Partial<AgentTask>, string][] = [
      [{ kind: "status", status: "cancelled" }, { status: "cancelled" }, "Stopped: the board is unchanged."],
      [{ kind: "status", status: "failed" }, { status: "failed", error: { code: "agent_unavailable", message: "the agent is offline" } }, "The agent could not tidy the board: the agent is offline"],
      [{ kind: "status", status: "completed" }, { status: "completed", result: { output: { layout: "no" } } }, "The agent’s answer was not a layout."],
    ];
    for (const [body, changes, message] of ends) {
      const port = new FakeTidy();
      const tidy = new TidyTask(port);
      await tidy.start(tidyContext(board(rect("a", 0, 0))));
      port.emit(body, changes);
      expect(tidy.view).toMatchObject({ phase: "ended", message });
      tidy.dismiss();
      expect(tidy.view).toEqual({ phase: "idle" });
    }
  });

  it("Cancel asks the Runtime to stop the task", async () => {
    const port = new FakeTidy();
    const tidy = new TidyTask(port);
    await tidy.start(tidyContext(board(rect("a", 0, 0))));
    await tidy.cancel();
    expect(port.calls).toEqual(["cancel"]);
    expect(tidy.view).toMatchObject({ phase: "ended", outcome: "cancelled" });
  });

  it("after a reload picks up the newest tidy task still waiting for a decision, and nothing decided", async () => {
    const port = new FakeTidy();
    await port.startTask({ entry: "tidy_board", input: {} });
    port.record = { ...port.record!, status: "completed", result: { output: LAYOUT } };
    const decided = { ...port.record, task_id: "old", decision: { decision: "accepted" as const, at: "then" } };
    port.listed = [decided];
    const quiet = new TidyTask(port);
    await quiet.restore();
    expect(quiet.view).toEqual({ phase: "idle" });

    port.listed = [port.record, decided];
    const tidy = new TidyTask(port);
    await tidy.restore();
    expect(tidy.view).toMatchObject({ phase: "proposed", result: LAYOUT });
  });
});
