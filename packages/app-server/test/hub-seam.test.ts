/**
 * The hub's seam when a subscription starts from the head its subscribe read with the session's row (`Hub.watchHead`):
 * events another process commits while that row is read, announced before the subscription is registered, are still
 * sent, in order and once; after the listener reconnected (announcements may have been missed) the head is read from
 * the store again. Deterministic: the "other process" is a second write queue whose commits reach the hub only as
 * the announcements the test makes, at the moments it chooses. On the run's store (SQLite, or PostgreSQL in that
 * project); the races of two real servers are multi-process-seam.test.ts's.
 */
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../src/clock.js";
import type { Connection } from "../src/connection.js";
import { silentLogger } from "../src/logger.js";
import { createAgent, createUser } from "../src/store/principals.js";
import { findSession, insertSession } from "../src/store/sessions.js";
import { Hub } from "../src/subscriptions.js";
import { WriteQueue } from "../src/write-queue.js";
import { openTestStore } from "./helpers.js";

const disposals: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const dispose of disposals.splice(0)) await dispose();
});

/** A device connection that keeps the seqs of the events it is sent and the seams it is told. */
function deviceConnection() {
  const sent: number[] = [];
  const caughtUp: number[] = [];
  const connection = {
    open: true,
    saturated: false,
    principal: { role: "device" },
    subscriptions: new Map(),
    onDrain: () => () => undefined,
    sendEvent: (frame: string) => sent.push((JSON.parse(frame) as { params: { seq: number } }).params.seq),
    notify: (method: string, params: { seq?: number }) => {
      if (method === "agentSession/caughtUp") caughtUp.push(params.seq!);
    },
  } as unknown as Connection;
  return { connection, sent, caughtUp };
}

async function world() {
  const opened = await openTestStore();
  disposals.push(() => opened.dispose());
  const { writer, reader } = opened.store;
  await createUser(writer, "u");
  await createAgent(writer, "a");
  await insertSession(writer, { session_id: "s", app_scope: "chat", workspace_id: "w", owner_user_id: "u", agent_id: "a", state: "active", created_at: systemClock.now(), last_seq: 0, inventory_revision: 0 });
  const hub = new Hub(reader, 2, silentLogger);
  // This process's commits are published to the hub; the other process's reach it only when the test announces them.
  const here = new WriteQueue(writer, systemClock, (events) => hub.published(events), silentLogger);
  const elsewhere = new WriteQueue(writer, systemClock, () => undefined, silentLogger);
  const append = (queue: WriteQueue, n: number) => Promise.all(Array.from({ length: n }, (_, i) => queue.submit(async (ctx) => (await ctx.append("s", "turn.activated", { role: "server", id: "x" }, { turn_id: `t${i}` })).seq)));
  const rowHead = async () => (await findSession(reader, "s"))!.last_seq;
  return { hub, here, elsewhere, append, rowHead };
}

describe("a subscription started from the head read with the session's row", () => {
  it("sends what another process committed while the row was read, announced before it was registered", async () => {
    const { hub, here, elsewhere, append, rowHead } = await world();
    await append(here, 3);
    const watch = hub.watchHead("s");
    const head = await rowHead();
    expect(head).toBe(3);
    // While the row is read, another process commits 4 and 5 and announces them: nobody here follows the session yet.
    expect(await append(elsewhere, 2)).toEqual([4, 5]);
    hub.advanced("s", 5);
    const device = deviceConnection();
    const sub = hub.subscribe(device.connection, "s", "a", head, head, watch.headAfter(head));
    watch.release();
    sub.start();
    await expect.poll(() => device.sent).toEqual([4, 5]);
    expect(device.caughtUp).toEqual([3]);
    // Live from here: this process's next commit follows at once, once.
    await append(here, 1);
    await expect.poll(() => device.sent).toEqual([4, 5, 6]);
  });

  it("sends what this process committed while the row was read", async () => {
    const { hub, here, append, rowHead } = await world();
    const watch = hub.watchHead("s");
    const head = await rowHead();
    await append(here, 2);
    const device = deviceConnection();
    hub.subscribe(device.connection, "s", "a", 0, head, watch.headAfter(head)).start();
    watch.release();
    await expect.poll(() => device.sent).toEqual([1, 2]);
    expect(device.caughtUp).toEqual([0]);
  });

  it("reads the head from the store when the listener reconnected while the row was read", async () => {
    const { hub, elsewhere, append, rowHead } = await world();
    const watch = hub.watchHead("s");
    const head = await rowHead();
    // Committed elsewhere, its announcement lost with the listener: only the store knows.
    await append(elsewhere, 2);
    hub.rereadAll();
    expect(watch.headAfter(head)).toBeUndefined();
    const device = deviceConnection();
    hub.subscribe(device.connection, "s", "a", 0, head, watch.headAfter(head)).start();
    watch.release();
    await expect.poll(() => device.sent).toEqual([1, 2]);
  });

  it("keeps a head for the session only while a subscribe reads it", async () => {
    const { hub, here, append } = await world();
    const first = hub.watchHead("s");
    const second = hub.watchHead("s");
    await append(here, 1);
    first.release();
    expect(second.headAfter(0)).toBe(1);
    second.release();
    second.release();
    const later = hub.watchHead("s");
    expect(later.headAfter(0)).toBe(0);
    later.release();
  });
});

