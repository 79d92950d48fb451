import { LineUpError, type JsonObject } from "@lineup/protocol";
import type { MiniAppSessionDataAPI, SessionDataSnapshot } from "@lineup/surface-sdk";
import { describe, expect, it } from "vitest";
import { LocalSessionData } from "@lineup/surface-sdk";
import { emptyBoard, type Item } from "../src/model/document.js";
import { insertItems } from "../src/model/operations.js";
import { BoardStore } from "../src/store.js";
import { BoardSync, type Timers } from "../src/sync.js";

const rect = (id: string): Item => ({ id, type: "rect", x: 0, y: 0, w: 10, h: 10, color: "ink", fill: null, width: 2 });
const settle = () => new Promise((r) => setTimeout(r, 0));

/** Timers the test fires by hand: the debounce is observable without waiting. */
function manualTimers(): Timers & { fire(): void; pending(): number } {
  const queue = new Map<number, () => void>();
  let next = 1;
  return {
    set: (cb) => {
      queue.set(next, cb);
      return next++;
    },
    clear: (h) => void queue.delete(h as number),
    fire: () => {
      const cbs = [...queue.values()];
      queue.clear();
      cbs.forEach((cb) => cb());
    },
    pending: () => queue.size,
  };
}

/** Session data that counts writes and can be written to "by someone else". */
class CountingSessionData extends LocalSessionData {
  writes = 0;
  override async replace(request: { data: JsonObject; expected_revision: number }) {
    this.writes++;
    return super.replace(request);
  }
}

describe("board sync over session data", () => {
  it("loads the stored board, or an empty one", async () => {
    const data = new LocalSessionData();
    const sync = new BoardSync({ sessionData: data });
    expect(await sync.start()).toEqual(emptyBoard());
    expect(sync.revision).toBe(0);
  });

  it("debounces writes: many quick changes are one write, with the latest board", async () => {
    const data = new CountingSessionData();
    const timers = manualTimers();
    const sync = new BoardSync({ sessionData: data, timers });
    await sync.start();
    sync.apply(insertItems([rect("a")]));
    sync.apply(insertItems([rect("b")]));
    sync.apply(insertItems([rect("c")]));
    expect(data.writes).toBe(0);
    expect(timers.pending()).toBe(1);
    timers.fire();
    await settle();
    await sync.flush();
    expect(data.writes).toBe(1);
    expect((data.current.data as { items: Item[] }).items.map((i) => i.id)).toEqual(["a", "b", "c"]);
    expect(sync.dirty).toBe(false);
    expect(sync.status).toBe("saved");
  });

  it("on revision_conflict re-reads, re-applies its own changes on the newer board and writes again", async () => {
    const data = new CountingSessionData();
    const sync = new BoardSync({ sessionData: data, timers: manualTimers() });
    await sync.start();
    // Another surface of the same session writes first.
    await data.replace({ data: { format: "lineup.whiteboard.v1", title: "Theirs", items: [rect("theirs")] } as unknown as JsonObject, expected_revision: 0 });
    sync.apply(insertItems([rect("mine")]));
    await sync.flush();
    const stored = data.current;
    expect(stored.revision).toBe(2);
    expect((stored.data as { title: string; items: Item[] }).items.map((i) => i.id)).toEqual(["theirs", "mine"]);
    expect((stored.data as { title: string }).title).toBe("Theirs");
    expect(sync.board.items.map((i) => i.id)).toEqual(["theirs", "mine"]);
  });

  it("a remote revision moves the board forward under unsaved local changes; its own echo changes nothing", async () => {
    const data = new LocalSessionData();
    const boards: string[][] = [];
    const sync = new BoardSync({ sessionData: data, timers: manualTimers(), onBoard: (b) => boards.push(b.items.map((i) => i.id)) });
    await sync.start();
    sync.apply(insertItems([rect("local")]));
    await data.replace({ data: { format: "lineup.whiteboard.v1", title: "T", items: [rect("remote")] } as unknown as JsonObject, expected_revision: 0 });
    await settle();
    expect(sync.board.items.map((i) => i.id)).toEqual(["remote", "local"]);
    await sync.flush();
    await settle();
    expect(sync.board.items.map((i) => i.id)).toEqual(["remote", "local"]);
    expect(boards.at(-1)).toEqual(["remote", "local"]);
  });

  it("gives up after repeated conflicts and reports the error; other errors are reported too", async () => {
    let current: SessionDataSnapshot = { data: null, revision: 0 };
    const alwaysBehind: MiniAppSessionDataAPI = {
      get: async () => (current = { data: null, revision: current.revision + 1 }),
      replace: async () => {
        throw new LineUpError("revision_conflict", "someone is always faster");
      },
      subscribe: (l) => {
        queueMicrotask(() => l(current));
        return () => {};
      },
    };
    const statuses: string[] = [];
    const sync = new BoardSync({ sessionData: alwaysBehind, timers: manualTimers(), maxConflictRetries: 2, onStatus: (s) => statuses.push(s) });
    await sync.start();
    sync.apply(insertItems([rect("a")]));
    await sync.flush();
    expect(statuses.at(-1)).toBe("error");
    expect(sync.dirty).toBe(true);
  });

  it("keeps a board too large for one bridge message on screen, unsent, and says so", async () => {
    const data = new CountingSessionData();
    let lastError: unknown;
    const sync = new BoardSync({ sessionData: data, timers: manualTimers(), maxBytes: 2_000, onStatus: (_s, e) => (lastError = e) });
    await sync.start();
    sync.apply(insertItems(Array.from({ length: 40 }, (_, i) => rect(`r${i}`))));
    await sync.flush();
    expect(data.writes).toBe(0);
    expect(sync.status).toBe("error");
    expect(lastError).toMatchObject({ code: "quota_exceeded", data: { limit: 2_000 } });
    expect(sync.board.items).toHaveLength(40);
    // Deleting brings it back under the limit, and everything left is saved.
    sync.apply({ kind: "remove", ids: Array.from({ length: 35 }, (_, i) => `r${i}`) });
    await sync.flush();
    expect(data.writes).toBe(1);
    expect((data.current.data as { items: Item[] }).items).toHaveLength(5);
    expect(sync.status).toBe("saved");
  });

  it("never overwrites data it cannot read", async () => {
    const data = new CountingSessionData();
    await data.replace({ data: { format: "lineup.whiteboard.v7" }, expected_revision: 0 });
    const sync = new BoardSync({ sessionData: data, timers: manualTimers() });
    await sync.start();
    sync.apply(insertItems([rect("a")]));
    await sync.flush();
    expect(data.writes).toBe(1);
    expect(sync.status).toBe("error");
  });

  it("survives a reload: a new sync on the same session data sees the last board", async () => {
    const data = new LocalSessionData();
    const sync1 = new BoardSync({ sessionData: data, timers: manualTimers() });
    await sync1.start();
    const store1 = new BoardStore(sync1, () => "id-1");
    await store1.createBoard("Sprint");
    await store1.addShapes([{ type: "text", x: 1, y: 2, text: "hello" }]);
    sync1.dispose();
    const sync2 = new BoardSync({ sessionData: data, timers: manualTimers() });
    const board = await sync2.start();
    expect(board.title).toBe("Sprint");
    expect(board.items).toEqual([{ id: "id-1", type: "text", x: 1, y: 2, text: "hello", color: "ink", size: 20 }]);
  });
});
