/**
 * Model-based test (fast-check `fc.commands`) of sync + outbox against the in-memory App Server with
 * dropped requests, dropped responses, retryable refusals, disconnects, clock advances and Runtime
 * restarts; texts are sent one at a time and in bursts (pipelined: the server announces ordered writes).
 *
 * The model is what the user and the agent did: the agent's messages (the server's log) and the texts
 * whose dispatch the Runtime acknowledged. After the faults heal, the Runtime must have: every agent
 * message in the inbox exactly once and delivered (at-least-once across restarts, never twice within a
 * run); every acknowledged text applied by the server exactly once, in order; the cursor never moved back.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMemoryStore, createMemoryStoreData, RUNTIME_SCHEMA, type AgentAppMessage, type MemoryStoreData, type RuntimeStore } from "../src/index.js";
import { createFakeClock, FakeAppServer, type FakeClock } from "../src/testing/index.js";
import { settle, startDevice, type Device } from "./helpers/runtime-harness.js";
import { soakSized, timeLimitFor } from "../../../test/support/soak.js";
import { listPendingMessageIds } from "../src/persistence/inbox.js";

const RUNS = soakSized(100, 1_000);
const MAX_COMMANDS = soakSized(25, 60);
const SESSIONS = ["s-1", "s-2"] as const;

interface Real {
  server: FakeAppServer;
  clock: FakeClock;
  data: MemoryStoreData;
  reader: RuntimeStore;
  device: Device;
  runs: number;
  /** Every message delivered to chat, over all runs, and per run. */
  everDelivered: Set<string>;
  lastCursor: Map<string, number>;
}

interface Model {
  agentMessages: number;
  accepted: Map<string, string[]>;
}

async function cursorsMonotone(real: Real): Promise<void> {
  for (const { key, value } of await real.reader.range("cursors")) {
    const seq = (value as { seq: number }).seq;
    expect(seq, `cursor of ${key}`).toBeGreaterThanOrEqual(real.lastCursor.get(key) ?? 0);
    real.lastCursor.set(key, seq);
  }
}

const record = (real: Real) => (received: AgentAppMessage[]) => {
  for (const m of received) real.everDelivered.add(m.message_id);
};

class AgentSays implements fc.AsyncCommand<Model, Real> {
  constructor(readonly session: (typeof SESSIONS)[number], readonly text: string) {}
  check = () => true;
  async run(model: Model, real: Real) {
    real.server.agentSays(this.session, this.text);
    model.agentMessages += 1;
    await settle(5);
  }
  toString = () => `AgentSays(${this.session}, ${JSON.stringify(this.text)})`;
}

class UserSends implements fc.AsyncCommand<Model, Real> {
  constructor(readonly session: (typeof SESSIONS)[number], readonly text: string) {}
  check = () => true;
  async run(model: Model, real: Real) {
    await real.device.chat.dispatch({ type: "conversation.send_text", conversation_id: this.session, text: this.text });
    model.accepted.set(this.session, [...(model.accepted.get(this.session) ?? []), this.text]);
    await settle(5);
  }
  toString = () => `UserSends(${this.session}, ${JSON.stringify(this.text)})`;
}

/** Several texts at once: with the server's ordered writes they are pipelined (several in flight). */
class UserSendsBurst implements fc.AsyncCommand<Model, Real> {
  constructor(readonly session: (typeof SESSIONS)[number], readonly texts: readonly string[]) {}
  check = () => true;
  async run(model: Model, real: Real) {
    await Promise.all(this.texts.map((text) => real.device.chat.dispatch({ type: "conversation.send_text", conversation_id: this.session, text })));
    model.accepted.set(this.session, [...(model.accepted.get(this.session) ?? []), ...this.texts]);
    await settle(5);
  }
  toString = () => `UserSendsBurst(${this.session}, ${JSON.stringify(this.texts)})`;
}

/** The next requests are refused with a retryable code, unexecuted: what a burst behind them must not overtake. */
class Refuse implements fc.AsyncCommand<Model, Real> {
  constructor(readonly n: number) {}
  check = () => true;
  async run(_model: Model, real: Real) {
    real.server.refuseNextRequests(this.n);
    await settle(5);
  }
  toString = () => `Refuse(${this.n})`;
}

class Drop implements fc.AsyncCommand<Model, Real> {
  constructor(readonly what: "requests" | "responses", readonly n: number) {}
  check = () => true;
  async run(_model: Model, real: Real) {
    if (this.what === "requests") real.server.dropNextRequests(this.n);
    else real.server.dropNextResponses(this.n);
    await settle(5);
  }
  toString = () => `Drop${this.what}(${this.n})`;
}

class Disconnect implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_model: Model, real: Real) {
    real.server.disconnectAll();
    await settle(5);
  }
  toString = () => "Disconnect";
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_model: Model, real: Real) {
    real.clock.advance(this.ms);
    await settle(10);
    await cursorsMonotone(real);
  }
  toString = () => `Advance(${this.ms})`;
}

class Restart implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_model: Model, real: Real) {
    record(real)(real.device.received);
    assertNoDuplicates(real.device.received);
    await real.device.stop();
    await cursorsMonotone(real);
    real.runs += 1;
    real.device = await startDevice(real.server, real.data, { clock: real.clock, run: `r${real.runs}`, extra: { requestTimeoutMs: 1_000, backoff: { baseMs: 50, capMs: 400, degradedAfter: 3 } } });
    await settle(10);
  }
  toString = () => "Restart";
}

function assertNoDuplicates(received: readonly AgentAppMessage[]): void {
  const ids = received.map((m) => m.message_id);
  expect(new Set(ids).size, `duplicate delivery within one run: ${ids.join(",")}`).toBe(ids.length);
}

const text = fc.stringMatching(/^[a-z]{1,8}$/);
const session = fc.constantFrom(...SESSIONS);
const commands = [
  fc.tuple(session, text).map(([s, t]) => new AgentSays(s, t)),
  fc.tuple(session, text).map(([s, t]) => new UserSends(s, t)),
  fc.tuple(session, fc.array(text, { minLength: 2, maxLength: 5 })).map(([s, t]) => new UserSendsBurst(s, t)),
  fc.integer({ min: 1, max: 3 }).map((n) => new Refuse(n)),
  fc.tuple(fc.constantFrom("requests" as const, "responses" as const), fc.integer({ min: 1, max: 3 })).map(([w, n]) => new Drop(w, n)),
  fc.constant(new Disconnect()),
  fc.integer({ min: 10, max: 3_000 }).map((ms) => new Advance(ms)),
  fc.constant(new Restart()),
];

async function heal(real: Real): Promise<void> {
  real.server.clearFaults();
  // Bounded in steps and in real time (audit digests complete on the thread pool; fake-clock steps can outrun them).
  const deadline = Date.now() + 5_000;
  for (let i = 0; i < 400 || Date.now() < deadline; i++) {
    if (i >= 400) await new Promise((resolve) => setTimeout(resolve, 5));
    const view = real.device.chat.view();
    const caughtUp = view.lifecycle.status === "online" && view.conversations.every((c) => c.status === "live");
    if (caughtUp && view.queued_actions === 0 && (await listPendingMessageIds(real.reader)).length === 0) return;
    real.clock.advance(500);
    await settle(10);
  }
  throw new Error(`did not heal: ${JSON.stringify(real.device.chat.view())}`);
}

describe("sync + outbox model", () => {
  it("every acknowledged action applied once in order; every agent message stored once and delivered", async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: MAX_COMMANDS }), async (cmds) => {
        const server = new FakeAppServer();
        for (const id of SESSIONS) server.createSession({ session_id: id, agent_id: "agent-1" });
        const clock = createFakeClock();
        const data = createMemoryStoreData();
        const device = await startDevice(server, data, { clock, extra: { requestTimeoutMs: 1_000, backoff: { baseMs: 50, capMs: 400, degradedAfter: 3 } } });
        await device.runtime.whenOnline();
        const real: Real = { server, clock, data, reader: await createMemoryStore(RUNTIME_SCHEMA, { data }), device, runs: 0, everDelivered: new Set(), lastCursor: new Map() };
        const model: Model = { agentMessages: 0, accepted: new Map() };
        try {
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          await heal(real);
          await settle(20);
          record(real)(real.device.received);
          assertNoDuplicates(real.device.received);
          await cursorsMonotone(real);

          // Outbox: each acknowledged text applied exactly once, in order per conversation.
          for (const id of SESSIONS) expect(server.turnTexts(id), `turns of ${id}`).toEqual(model.accepted.get(id) ?? []);
          const keys = server.applied.map((w) => w.idempotency_key);
          expect(new Set(keys).size).toBe(keys.length);

          // Sync: the cursor reached the head; every agent message is in history exactly once and was delivered.
          for (const id of SESSIONS) expect(real.lastCursor.get(id)).toBe(server.sessions.get(id)!.events.length);
          const history = await real.reader.range("inbox");
          const agentMessages = history.map((h) => h.value as unknown as AgentAppMessage).filter((m) => m.type === "lineup.message" && m.sender.kind === "agent");
          expect(agentMessages).toHaveLength(model.agentMessages);
          for (const m of agentMessages) expect(real.everDelivered.has(m.message_id), `delivered ${m.message_id}`).toBe(true);
          expect(await real.device.runtime.verifyAudit()).toMatchObject({ ok: true });
        } finally {
          await real.device.stop();
          await real.reader.close();
        }
      }),
      { seed: 4242, numRuns: RUNS, endOnFailure: true },
    );
  }, timeLimitFor(RUNS * MAX_COMMANDS, 100 * 25, 120_000));
});
