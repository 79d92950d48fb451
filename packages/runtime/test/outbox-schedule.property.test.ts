/**
 * Property test of the outbox's send schedule (`nextSendable`) over random outboxes and send states:
 * what it picks is checked against the rules stated as a plain model, entry by entry.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nextSendable, OUTBOX_MAX_IN_FLIGHT, type OutboxEntry, type OutboxMethod } from "../src/index.js";

const CONVERSATIONS = ["a", "b", "c"] as const;

interface Generated {
  readonly entries: OutboxEntry[];
  readonly inFlight: Map<string, Set<number>>;
  readonly settling: Set<number>;
  readonly held: Set<number>;
  readonly depth: number;
  readonly limit: number;
}

const arbitrary: fc.Arbitrary<Generated> = fc
  .record({
    rows: fc.array(
      fc.record({
        conversation: fc.constantFrom(...CONVERSATIONS),
        method: fc.constantFrom<OutboxMethod>("agentSession/turn/start", "agentSession/envelope/send", "artifact/put"),
        status: fc.constantFrom<"pending" | "failed">("pending", "pending", "pending", "failed"),
        mark: fc.constantFrom("none", "none", "in_flight", "settling", "held"),
      }),
      { maxLength: 30 },
    ),
    depth: fc.integer({ min: 1, max: 6 }),
    limit: fc.integer({ min: 1, max: 12 }),
    shuffle: fc.array(fc.nat(), { maxLength: 30 }),
  })
  .map(({ rows, depth, limit, shuffle }) => {
    const entries = rows.map(
      (row, order): OutboxEntry => ({
        order,
        conversation_id: row.conversation,
        app_scope: "chat",
        receipt_id: `r${order}`,
        action_type: "x",
        accepted_at: "",
        method: row.method,
        params: { idempotency_key: `k${order}` },
        status: row.status,
      }),
    );
    const inFlight = new Map<string, Set<number>>();
    const settling = new Set<number>();
    const held = new Set<number>();
    rows.forEach((row, order) => {
      if (row.status !== "pending") return;
      if (row.mark === "in_flight") inFlight.set(row.conversation, (inFlight.get(row.conversation) ?? new Set()).add(order));
      if (row.mark === "settling") settling.add(order);
      if (row.mark === "held") held.add(order);
    });
    // The outbox is a map: its iteration order is not the acceptance order.
    for (let i = 0; i < Math.min(shuffle.length, entries.length); i++) {
      const j = shuffle[i]! % entries.length;
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    return { entries, inFlight, settling, held, depth, limit };
  });

/** The rules, one conversation at a time, in acceptance order. */
function model(g: Generated): number[] {
  const picked: number[] = [];
  for (const conversation of CONVERSATIONS) {
    const pending = g.entries.filter((e) => e.conversation_id === conversation && e.status === "pending" && !g.settling.has(e.order)).sort((x, y) => x.order - y.order);
    const sent = g.inFlight.get(conversation) ?? new Set<number>();
    let count = sent.size;
    for (const entry of pending) {
      if (sent.has(entry.order)) {
        if (entry.method === "artifact/put") break;
        continue;
      }
      if (count >= g.depth || g.held.has(entry.order)) break;
      if (entry.method === "artifact/put" && count > 0) break;
      picked.push(entry.order);
      count++;
      if (entry.method === "artifact/put") break;
    }
  }
  picked.sort((x, y) => x - y);
  let room = g.limit;
  for (const sent of g.inFlight.values()) room -= sent.size;
  return picked.slice(0, Math.max(0, room));
}

describe("outbox send schedule (property)", () => {
  it("picks exactly what the rules say, oldest first", () => {
    fc.assert(
      fc.property(arbitrary, (g) => {
        const picked = nextSendable(g.entries, { inFlight: g.inFlight, settling: g.settling, held: (e) => g.held.has(e.order), depth: g.depth, limit: g.limit }).map((e) => e.order);
        expect(picked).toEqual(model(g));
      }),
      { numRuns: 2_000, seed: 77 },
    );
  });

  it("picks the same from entries given oldest first, as the Runtime's outbox gives them, read once", () => {
    fc.assert(
      fc.property(arbitrary, (g) => {
        const once = (function* () {
          yield* [...g.entries].sort((x, y) => x.order - y.order);
        })();
        const picked = nextSendable(once, { inFlight: g.inFlight, settling: g.settling, held: (e) => g.held.has(e.order), depth: g.depth, limit: g.limit, oldestFirst: true }).map((e) => e.order);
        expect(picked).toEqual(model(g));
      }),
      { numRuns: 2_000, seed: 79 },
    );
  });

  it("sorts them all when entries said to come oldest first do not, as far as it reads", () => {
    const entry = (order: number): OutboxEntry => ({ order, conversation_id: "a", app_scope: "chat", receipt_id: `r${order}`, action_type: "x", accepted_at: "", method: "agentSession/turn/start", params: {}, status: "pending" });
    const once = (function* () {
      yield* [entry(1), entry(0), entry(2)];
    })();
    expect(nextSendable(once, { inFlight: new Map(), depth: 1, limit: 2, oldestFirst: true }).map((e) => e.order)).toEqual([0]);
  });

  it("reads no further than it needs when the entries come oldest first", () => {
    const entries = Array.from({ length: 5_000 }, (_, order): OutboxEntry => ({ order, conversation_id: `c${order}`, app_scope: "chat", receipt_id: `r${order}`, action_type: "x", accepted_at: "", method: "inventory/publish", params: {}, status: "pending" }));
    let read = 0;
    const counted = (function* () {
      for (const entry of entries) {
        read += 1;
        yield entry;
      }
    })();
    const inFlight = new Map(entries.slice(0, OUTBOX_MAX_IN_FLIGHT - 1).map((e) => [e.conversation_id, new Set([e.order])] as const));
    const picked = nextSendable(counted, { inFlight, depth: 1, oldestFirst: true });
    expect(picked.map((e) => e.order)).toEqual([OUTBOX_MAX_IN_FLIGHT - 1]);
    expect(read).toBe(OUTBOX_MAX_IN_FLIGHT);
  });

  it("never exceeds the depth or the limit, never sends an entry twice or past an unsent or held one, sends an upload chunk alone", () => {
    fc.assert(
      fc.property(arbitrary, (g) => {
        const picked = nextSendable(g.entries, { inFlight: g.inFlight, settling: g.settling, held: (e) => g.held.has(e.order), depth: g.depth, limit: g.limit });
        let total = 0;
        for (const sent of g.inFlight.values()) total += sent.size;
        expect(total + picked.length <= Math.max(total, g.limit)).toBe(true);
        for (const conversation of CONVERSATIONS) {
          const sent = g.inFlight.get(conversation) ?? new Set<number>();
          const mine = picked.filter((e) => e.conversation_id === conversation);
          expect(mine.every((e) => !sent.has(e.order) && e.status === "pending" && !g.settling.has(e.order))).toBe(true);
          if (mine.length > 0) expect(sent.size + mine.length).toBeLessThanOrEqual(g.depth);
          // Everything pending before the last picked entry of the conversation is in flight, settling or picked.
          const last = mine.at(-1)?.order ?? -1;
          const before = g.entries.filter((e) => e.conversation_id === conversation && e.status === "pending" && e.order < last);
          expect(before.every((e) => sent.has(e.order) || g.settling.has(e.order) || mine.some((m) => m.order === e.order))).toBe(true);
          // Nothing held goes, nor anything after a held entry of its conversation.
          expect(mine.some((e) => g.held.has(e.order) || before.some((b) => g.held.has(b.order) && !sent.has(b.order) && !g.settling.has(b.order)))).toBe(false);
          // An upload chunk goes alone: nothing of its conversation in flight beside it, nothing picked with it.
          if (mine.some((e) => e.method === "artifact/put")) expect(sent.size === 0 && mine.length === 1).toBe(true);
        }
      }),
      { numRuns: 2_000, seed: 78 },
    );
  });

  it("uses the overall default limit when none is given", () => {
    const entries = Array.from({ length: OUTBOX_MAX_IN_FLIGHT + 10 }, (_, order): OutboxEntry => ({ order, conversation_id: `c${order}`, app_scope: "chat", receipt_id: `r${order}`, action_type: "x", accepted_at: "", method: "agentSession/turn/start", params: {}, status: "pending" }));
    expect(nextSendable(entries, { inFlight: new Map(), depth: 32 })).toHaveLength(OUTBOX_MAX_IN_FLIGHT);
  });
});
