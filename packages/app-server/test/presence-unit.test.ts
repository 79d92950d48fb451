/**
 * SharedPresence (several processes on one PostgreSQL database) tells each new device subscription whether its agent is
 * connected: the database is asked once for an agent, and every later subscription is told what the others were, until
 * a change is settled (announced by another process, or the LISTEN connection came back after missing some). Here with
 * a database that only counts its presence lookups, and subscriptions that record what they are told; the real path
 * across two processes is in multi-process.test.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../src/logger.js";
import { SharedPresence } from "../src/presence.js";
import type { Db } from "../src/store/sql.js";
import { tellPresence, type Hub, type Subscription } from "../src/subscriptions.js";

/** A database whose agent_presence says `connected`, counting the lookups. */
function presenceDb(state: { connected: boolean; lookups: number }): Db {
  return {
    get: async (sql: string) => {
      expect(sql).toMatch(/FROM agent_presence/);
      state.lookups += 1;
      return state.connected ? { "?column?": 1 } : undefined;
    },
    run: async () => ({ changes: 0 }),
    all: async () => [],
  } as unknown as Db;
}

/** Every SharedPresence a test made, closed after it. */
const opened: SharedPresence[] = [];
afterEach(() => {
  for (const presence of opened.splice(0)) presence.close();
});

/**
 * A SharedPresence over `presenceDb` (the agent connected until a test says not), device subscriptions of `agentId`'s
 * sessions, and a hub that follows them and tells them as the real one does.
 */
function world(agentId: string) {
  const state = { connected: true, lookups: 0 };
  const told = new Map<string, boolean[]>();
  const subs: Subscription[] = [];
  const subscription = (sessionId: string): Subscription => {
    const sub = {
      sessionId,
      agentId,
      connection: {
        open: true,
        principal: { role: "device" },
        notify: (_method: string, params: { session_id: string; connected: boolean }) => told.set(params.session_id, [...(told.get(params.session_id) ?? []), params.connected]),
      },
    } as unknown as Subscription;
    subs.push(sub);
    return sub;
  };
  const hub = {
    followsAgent: (id: string) => subs.some((s) => s.agentId === id),
    agentPresence: (id: string, connected: boolean) => {
      for (const s of subs) if (s.agentId === id) tellPresence(s, connected);
    },
  } as unknown as Hub;
  const presence = new SharedPresence(presenceDb(state), hub, silentLogger);
  opened.push(presence);
  return { state, told, subscription, presence };
}

describe("presence across processes, as one process keeps it", () => {
  it("asks the database once for a thousand subscriptions of one agent, and tells every one", async () => {
    const { state, told, subscription, presence } = world("agent-1");
    for (let i = 0; i < 1000; i++) presence.tell(subscription(`s-${i}`));
    await expect.poll(() => told.size).toBe(1000);
    expect([...told.values()].every((heard) => heard.length === 1 && heard[0] === true)).toBe(true);
    expect(state.lookups).toBe(1);
  });

  it("tells every subscriber a change another process announced, and later subscriptions the new state", async () => {
    const { state, told, subscription, presence } = world("agent-1");
    presence.tell(subscription("s-1"));
    presence.tell(subscription("s-2"));
    await expect.poll(() => told.get("s-2")).toEqual([true]);
    state.connected = false;
    presence.heard("agent-1");
    presence.tell(subscription("s-3"));
    await expect.poll(() => told.get("s-3")).toEqual([false]);
    expect(told.get("s-1")).toEqual([true, false]);
    expect(told.get("s-2")).toEqual([true, false]);
    expect(state.lookups).toBe(2);
  });

  it("asks again for what it told once its LISTEN connection is back, having maybe missed a change", async () => {
    const { state, told, subscription, presence } = world("agent-1");
    presence.tell(subscription("s-1"));
    await expect.poll(() => told.get("s-1")).toEqual([true]);
    // The agent left while the announcement could not be heard.
    state.connected = false;
    presence.reconnected(4242);
    await expect.poll(() => told.get("s-1")).toEqual([true, false]);
    presence.tell(subscription("s-2"));
    await expect.poll(() => told.get("s-2")).toEqual([false]);
  });
});
