/**
 * The agent's refused envelopes are announced in the conversation (`lineup.runtime.notice`, shown in
 * chat too), but not without end: per conversation at most NOTICE_BUDGET in NOTICE_WINDOW_MS, the last
 * one saying so. Every refusal is still audited.
 */
import { describe, expect, it } from "vitest";
import type { JsonObject } from "@lineup/protocol";
import { createMemoryStore, RUNTIME_COLLECTIONS, RUNTIME_SCHEMA } from "../src/index.js";
import { NOTICE_BUDGET, NOTICE_BUDGET_SPENT, NOTICE_WINDOW_MS } from "../src/coordination/handlers/notices.js";
import { publisherKey } from "./helpers/apps-harness.js";
import { createFakeClock, createMemoryStoreData, FakeAppServer, settle, startDevice, until } from "./helpers/runtime-harness.js";

let counter = 0;
/** An agent message for an app that is not installed: refused (`app_not_installed`), and the agent is told. */
function toMissingApp(server: FakeAppServer): string {
  const id = `to-notes-${++counter}`;
  server.agentEnvelope("s-1", {
    v: 1, id, type: "lineup.message", timestamp: "2026-11-30T06:00:00.000Z",
    sender: { kind: "agent", id: "agent-1" }, target: { kind: "app", app_scope: "notes" },
    scope: { app_scope: "notes", conversation_id: "s-1" }, payload: { format: "text", text: `note ${counter}` },
  } as JsonObject);
  return id;
}

/** The notices the Runtime sent into the session, oldest first. */
const notices = (server: FakeAppServer) =>
  server.applied.flatMap((w) => {
    const envelope = w.params["envelope"] as { type?: string; correlation?: { reply_to?: string }; payload?: { code?: string; message?: string } } | undefined;
    return w.method === "agentSession/envelope/send" && envelope?.type === "lineup.runtime.notice" ? [{ reply_to: envelope.correlation?.reply_to, message: envelope.payload?.message ?? "" }] : [];
  });

describe("notices about refused envelopes", () => {
  it(`go out at most ${NOTICE_BUDGET} a minute per conversation, the last saying so; every refusal is audited; a new window announces again`, async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    server.createSession({ session_id: "s-2", agent_id: "agent-1" });
    const clock = createFakeClock();
    const data = createMemoryStoreData();
    const key = await publisherKey();
    const d = await startDevice(server, data, { clock, extra: { trustedPublishers: [key.trustedKey] } });
    await d.runtime.whenOnline();

    const flood = Array.from({ length: NOTICE_BUDGET + 3 }, () => toMissingApp(server));
    await until(() => notices(server).length === NOTICE_BUDGET, 5_000, "the window's notices");
    await settle();
    const first = notices(server);
    // The first five refusals are announced, in order; the fifth says more will not be; the last three are not.
    expect(first.map((n) => n.reply_to)).toEqual(flood.slice(0, NOTICE_BUDGET));
    expect(first.slice(0, -1).every((n) => !n.message.includes(NOTICE_BUDGET_SPENT))).toBe(true);
    expect(first.at(-1)!.message).toMatch(/^lineup\.message to-notes-\d+ was not delivered: .+\. More refusals in this conversation within a minute are recorded but not announced\.$/);

    // Another conversation has its own window.
    server.agentEnvelope("s-2", {
      v: 1, id: "other-conversation", type: "lineup.message", timestamp: "2026-11-30T06:00:00.000Z",
      sender: { kind: "agent", id: "agent-1" }, target: { kind: "app", app_scope: "notes" },
      scope: { app_scope: "notes", conversation_id: "s-2" }, payload: { format: "text", text: "elsewhere" },
    } as JsonObject);
    await until(() => notices(server).length === NOTICE_BUDGET + 1, 5_000, "the other conversation's notice");

    // A minute later the conversation is announced to again.
    clock.advance(NOTICE_WINDOW_MS);
    const later = toMissingApp(server);
    await until(() => notices(server).length === NOTICE_BUDGET + 2, 5_000, "a notice in the next window");
    await settle();
    expect(notices(server).at(-1)!.reply_to).toBe(later);
    expect(notices(server).at(-1)!.message).not.toContain(NOTICE_BUDGET_SPENT);
    await d.stop();

    // Nothing was lost from the record: every refusal is audited, and only the sent notices as notified.
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    const audit = (await store.range(RUNTIME_COLLECTIONS.audit, {})).map((row) => row.value as { type: string; code?: string; conversation_id?: string });
    await store.close();
    expect(audit.filter((r) => r.type === "ingress.agent.refused" && r.code === "app_not_installed" && r.conversation_id === "s-1")).toHaveLength(flood.length + 1);
    expect(audit.filter((r) => r.type === "ingress.agent.notified" && r.conversation_id === "s-1")).toHaveLength(NOTICE_BUDGET + 1);
  });
});
