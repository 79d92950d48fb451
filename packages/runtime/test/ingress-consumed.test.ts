/**
 * A bad event is a position in the log: it is consumed and refused with its code, and the log keeps
 * flowing. Two cases that used to stop a conversation for good (the Runtime resubscribed from the
 * same cursor, the server resent the same event, forever): an agent's envelope that fails the schema
 * (no scope, a bad scope, a newer version), and an envelope id sent again at a new seq.
 */
import { describe, expect, it } from "vitest";
import type { JsonObject } from "@lineup/protocol";
import { RUNTIME_COLLECTIONS as C, createMemoryStore, RUNTIME_SCHEMA } from "../src/index.js";
import { createMemoryStoreData, FakeAppServer, settle, startDevice, until } from "./helpers/runtime-harness.js";

const text = (id: string, body: string, over: JsonObject = {}): JsonObject => ({
  v: 1,
  id,
  type: "lineup.message",
  timestamp: "2026-11-30T06:00:00.000Z",
  sender: { kind: "agent", id: "agent-1" },
  target: { kind: "app", app_scope: "chat" },
  scope: { app_scope: "chat", conversation_id: "s-1" },
  payload: { format: "text", text: body },
  ...over,
});

const texts = (messages: readonly { type: string; payload: unknown }[]) => messages.filter((m) => m.type === "lineup.message").map((m) => (m.payload as { text: string }).text);

describe("bad events are consumed, not fatal", () => {
  // Every malformed form of the routing scope (spec 12 box 1), end to end, and a newer version.
  it.each([
    ["no scope", { scope: undefined }, "scope_missing"],
    ["a null scope", { scope: null }, "scope_missing"],
    ["a scope that is a string", { scope: "chat" }, "scope_missing"],
    ["no app_scope", { scope: { conversation_id: "s-1" } }, "scope_missing"],
    ["an empty app_scope", { scope: { app_scope: "", conversation_id: "s-1" } }, "scope_invalid"],
    ["an app_scope that is a number", { scope: { app_scope: 7, conversation_id: "s-1" } }, "scope_invalid"],
    ["a malformed app scope", { scope: { app_scope: "Chat!", conversation_id: "s-1" } }, "scope_invalid"],
    ["an app_scope too long", { scope: { app_scope: "a".repeat(200), conversation_id: "s-1" } }, "scope_invalid"],
    ["no conversation_id", { scope: { app_scope: "chat" } }, "scope_missing"],
    ["an empty conversation_id", { scope: { app_scope: "chat", conversation_id: "" } }, "scope_invalid"],
    ["a conversation_id that is a number", { scope: { app_scope: "chat", conversation_id: 1 } }, "scope_invalid"],
    ["a conversation_id too long", { scope: { app_scope: "chat", conversation_id: "s".repeat(600) } }, "scope_invalid"],
    ["a conversation_id with a control character", { scope: { app_scope: "chat", conversation_id: "s-1\u0000" } }, "scope_invalid"],
    ["a conversation_id with a space", { scope: { app_scope: "chat", conversation_id: "s 1" } }, "scope_invalid"],
    ["another conversation's id", { scope: { app_scope: "chat", conversation_id: "s-2" } }, "scope_mismatch"],
    ["a newer envelope version", { v: 2 }, "envelope_unsupported_version"],
  ])("an envelope with %s is refused with its code; the next message arrives once", async (_name, over, code) => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const data = createMemoryStoreData();
    const d = await startDevice(server, data);
    await d.runtime.whenOnline();
    server.createSession({ session_id: "s-2", agent_id: "agent-1" });
    const bad = text("bad-1", "broken", over as JsonObject);
    if ((over as { scope?: unknown }).scope === undefined && "scope" in over) delete bad["scope"];
    server.agentEnvelope("s-1", bad);
    server.agentEnvelope("s-1", text("good-1", "after the bad one"));
    await until(() => texts(d.received).includes("after the bad one"), 3_000, "the next message");
    await settle();
    expect(texts(d.received)).toEqual(["after the bad one"]);
    await d.stop();
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    // session.started, the bad one, the good one: only the good one was said
    expect(await store.get(C.cursors, "s-1")).toEqual({ seq: 3, active_at: server.sessions.get("s-1")!.events[2]!.created_at });
    const refused = (await store.range(C.audit)).map(({ value }) => value as { type: string; code?: string }).filter((r) => r.type === "ingress.agent.refused");
    expect(refused.map((r) => r.code)).toEqual([code]);
    // Kept out of every app's inbox and history, too.
    const stored = (await store.range(C.inbox)).map(({ value }) => JSON.stringify(value));
    expect(stored.some((row) => row.includes("after the bad one"))).toBe(true);
    expect(stored.some((row) => row.includes("broken"))).toBe(false);
    await store.close();
  });

  it("an envelope id sent again at a new seq is refused once and the log keeps flowing", async () => {
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const data = createMemoryStoreData();
    const d = await startDevice(server, data);
    await d.runtime.whenOnline();
    server.agentEnvelope("s-1", text("same", "first"));
    server.agentEnvelope("s-1", text("same", "first again"));
    server.agentEnvelope("s-1", text("next", "second"));
    await until(() => texts(d.received).includes("second"), 3_000, "the message after the duplicate");
    await settle();
    expect(texts(d.received)).toEqual(["first", "second"]);
    await d.stop();
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    // session.started and three envelopes, the duplicate not said
    expect(await store.get(C.cursors, "s-1")).toEqual({ seq: 4, active_at: server.sessions.get("s-1")!.events[3]!.created_at });
    const codes = (await store.range(C.audit)).map(({ value }) => (value as { code?: string }).code).filter((c) => c !== undefined);
    expect(codes).toEqual(["duplicate_message"]);
    await store.close();
  });
});
