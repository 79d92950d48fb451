/** Property tests of the two folds that must hold under any delivery order: the log cursor and the tool call lifecycle. */
import { LineUpError, type RuntimeEnvelope, type Session, type SessionEvent } from "@lineup/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SessionState, ToolCallTracker, type ToolCallUpdate } from "../src/index.js";

const session: Session = { session_id: "s", app_scope: "chat", workspace_id: "w", owner_user_id: "u", agent_id: "a", state: "active", created_at: "2026-01-01T00:00:00Z", last_seq: 0, inventory_revision: 0 };
const notice = (seq: number): SessionEvent =>
  ({ session_id: "s", seq, kind: "envelope", created_at: "2026-01-01T00:00:00Z", actor: { role: "device", id: "d" }, data: { envelope: { v: 1, id: `e${seq}`, type: "lineup.runtime.notice", timestamp: "2026-01-01T00:00:00Z", sender: { kind: "runtime", id: "d" }, target: { kind: "runtime", app_scope: "runtime" }, scope: { app_scope: "chat", conversation_id: "s" }, payload: { level: "info", message: "x" } } } }) as unknown as SessionEvent;

describe("SessionState under at-least-once, out-of-order delivery", () => {
  it("applies exactly 1, 2, 3, … whatever arrives, and resubscribing after the cursor always completes the log", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(fc.integer({ min: 1, max: 45 }), { maxLength: 200 }), (head, arrivals) => {
        const state = new SessionState(session);
        const applied: number[] = [];
        const feed = (seq: number): void => {
          if (seq > head) return; // the server never sends what it does not have
          if (state.apply(notice(seq)).status === "applied") applied.push(seq);
        };
        arrivals.forEach(feed);
        // A resubscription after the cursor sends cursor+1 … head in order.
        for (let seq = state.lastSeq + 1; seq <= head; seq++) feed(seq);
        expect(applied).toEqual(Array.from({ length: head }, (_, i) => i + 1));
      }),
      { numRuns: 500 },
    );
  });
});

const reply = (type: string, payload: object, callId = "c1"): RuntimeEnvelope =>
  ({ v: 1, id: `r-${Math.random()}`, type, timestamp: "2026-01-01T00:00:00Z", sender: { kind: "runtime", id: "d" }, target: { kind: "runtime", app_scope: "runtime" }, scope: { app_scope: "chat", conversation_id: "s" }, correlation: { call_id: callId }, payload }) as unknown as RuntimeEnvelope;

const step = fc.oneof(
  fc.constant(reply("lineup.tool.receipt", { status: "accepted" })),
  fc.constant(reply("lineup.tool.progress", { progress: 0.5 })),
  fc.integer({ min: 0, max: 9 }).map((n) => reply("lineup.tool.result", { result: { n } })),
  fc.constant(reply("lineup.tool.error", { code: "cancelled_by_user", message: "no" })),
);

describe("ToolCallTracker", () => {
  it("settles each call exactly once, with the first terminal, and counts every later one", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
        const tracker = new ToolCallTracker();
        const call = tracker.open("c1");
        const updates: ToolCallUpdate[] = [];
        const consumed = (async () => {
          for await (const u of call.queue) updates.push(u);
        })();
        for (const envelope of steps) tracker.deliver(envelope);
        const terminals = steps.filter((e) => e.type === "lineup.tool.result" || e.type === "lineup.tool.error");
        const first = terminals[0];
        if (first === undefined) {
          expect(tracker.isOpen("c1")).toBe(true);
          tracker.failLocally("c1", new LineUpError("operation_expired", "timeout"));
        }
        const outcome = await call.result.then(
          (value) => ({ ok: true as const, value }),
          (error: { code: string }) => ({ ok: false as const, code: error.code }),
        );
        await consumed;
        if (first === undefined) expect(outcome).toEqual({ ok: false, code: "operation_expired" });
        else if (first.type === "lineup.tool.result") expect(outcome).toEqual({ ok: true, value: (first.payload as { result: unknown }).result });
        else expect(outcome).toEqual({ ok: false, code: "cancelled_by_user" });
        expect(tracker.stats.duplicateTerminals).toBe(Math.max(0, terminals.length - 1));
        const beforeTerminal = first === undefined ? steps : steps.slice(0, steps.indexOf(first));
        expect(updates).toHaveLength(beforeTerminal.length);
      }),
      { numRuns: 300 },
    );
  });
});
