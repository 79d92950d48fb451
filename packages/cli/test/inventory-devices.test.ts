/**
 * A session's inventory when the AppServer and the devices disagree about it, over real parts: the reference
 * AppServer (WebSocket, SQLite), Node Runtimes on SQLite with signed apps, and a remote agent through the agent SDK.
 * - Two devices of one user publish to one session: the revision counter is the session's, so the device that is
 *   behind is refused once, learns the server's revision and publishes above it; the agent sees the latest
 *   publication, whole, and only the device that made it answers the agent's calls (one answer per call), also when
 *   the agent sends a call again after the other device's inventory became the session's.
 * - An AppServer that lost its inventories (restored from a backup taken before the publication, or its inventory
 *   table wiped) gets the device's inventory back when the device reconnects, without anything changing on the device.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { connectAgent, type AgentClient } from "@lineup/agent-sdk";
import { nodeWebSocketTransport } from "@lineup/agent-sdk/node";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import type { AppManifest, AppScope } from "@lineup/protocol";
import { generatePublisherKey, RUNTIME_COLLECTIONS, RUNTIME_SCHEMA } from "@lineup/runtime";
import { createNodeRuntime, openSqliteStore, type NodeRuntime } from "@lineup/runtime/node";
import { signedBundle } from "../../runtime/test/helpers/apps-harness.js";
import { RawAgent } from "../../runtime/test/helpers/raw-agent.js";
import { tempDirs, until } from "../../../test/support/temp-dirs.js";

const temp = tempDirs();

const toolApp = (app_scope: string, method: string): AppManifest =>
  ({
    format: "lineup.app.v1",
    app_scope: app_scope as AppScope,
    version: "1.0.0",
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1"] },
    entrypoints: [{ id: "main", kind: "primary" }],
    tools: [
      {
        method,
        contract_version: "1",
        title: method,
        input_schema: { type: "object", properties: { text: { type: "string" } }, additionalProperties: false },
        output_schema: { type: "object", additionalProperties: false },
        call_model: "query",
        activation_requirement: "activation_not_required",
      },
    ],
  }) as AppManifest;

type LoggedEvent = { seq: number; kind: string; actor: { role: string; id: string }; data: { revision?: number; envelope?: { type: string; sender: { id: string }; correlation?: { call_id?: string }; payload: { code?: string } } } };

/** The session's whole log as a device reads it. */
async function logOf(server: AppServerHandle, token: string, sessionId: string): Promise<LoggedEvent[]> {
  const reader = await RawAgent.connect(server.url, token);
  try {
    return (await reader.call<{ events: LoggedEvent[] }>("agentSession/events/read", { session_id: sessionId, after_seq: 0 })).events;
  } finally {
    reader.close();
  }
}

const terminalsOf = (log: LoggedEvent[], callId: string) =>
  log.filter((e) => e.kind === "envelope" && (e.data.envelope?.type === "lineup.tool.result" || e.data.envelope?.type === "lineup.tool.error") && e.data.envelope.correlation?.call_id === callId);

it("two devices of one user publish to one session: the agent sees the latest publication and one device answers each call", async () => {
  const server = await startAppServer({ dataDir: temp("lineup-inv2-server-"), port: 0, logger: silentLogger });
  const credentials = server.devCredentials!;
  const tabletToken = await server.admin.createDevice("dev-tablet", "dev-user");
  const key = await generatePublisherKey();
  const tabletDir = temp("lineup-inv2-device-");
  const device = (token: string, dataDir: string, serverUrl = server.url): Promise<NodeRuntime> =>
    createNodeRuntime({ serverUrl, token, dataDir, trustedPublishers: [key.trustedKey], backoff: { baseMs: 20, capMs: 200 }, relistIntervalMs: 100 });
  const laptop = await device(credentials.device_token, temp("lineup-inv2-device-"));
  let tablet = await device(tabletToken, tabletDir);
  let agent: AgentClient | undefined;
  try {
    await laptop.start();
    await tablet.start();
    agent = await connectAgent({ url: server.url, token: credentials.agent_token, transport: nodeWebSocketTransport(), sessionPollMs: 50 });
    await laptop.whenOnline();
    await tablet.whenOnline();
    expect((await laptop.appManager.install(await signedBundle(toolApp("notes", "notes.count"), key), { approved: true })).status).toBe("succeeded");
    expect((await tablet.appManager.install(await signedBundle(toolApp("memo", "memo.add"), key), { approved: true })).status).toBe("succeeded");
    const { conversation_id: sessionId } = await laptop.conversations.start({ agent_id: agent.agentId, workspace_id: "ws-1", title: "two devices" });
    const seen = () => agent!.inventory(sessionId);
    const methods = () => (seen()?.tools ?? []).map((t) => t.method);

    // The laptop publishes revision 1; the tablet, finding the session, publishes its own revision 1, is refused
    // as stale, and publishes again above the server's revision: its inventory lands, as the latest.
    await until(() => methods().includes("memo.add"), 15_000, "the tablet's inventory");
    expect(seen()!.revision).toBe(2);
    expect(methods()).toEqual(["memo.add"]);
    const published = (await logOf(server, credentials.device_token, sessionId)).filter((e) => e.kind === "inventory.published");
    expect(published.map((e) => [e.actor.id, e.data.revision])).toEqual([
      ["dev-device", 1],
      ["dev-tablet", 2],
    ]);

    // A call against the tablet's inventory gets one answer, the tablet's (its arguments are refused); the laptop,
    // whose inventory has no such tool, stays silent.
    const call = agent.invokeTool(sessionId, "memo.add", { bogus: true });
    await expect(call.result).rejects.toMatchObject({ code: "invalid_arguments" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const answers = terminalsOf(await logOf(server, credentials.device_token, sessionId), call.callId);
    expect(answers).toHaveLength(1);
    expect(answers[0]!.actor.id).toBe("dev-tablet");
    expect(agent.stats().duplicateTerminals).toBe(0);

    // A later change on the laptop goes straight above the session's revision (it learned it from the log).
    expect((await laptop.appManager.install(await signedBundle(toolApp("todo", "todo.list"), key), { approved: true })).status).toBe("succeeded");
    await until(() => seen()?.revision === 3, 15_000, "the laptop's next publication");
    expect(methods()).toEqual(["notes.count", "todo.list"]);
    const log = await logOf(server, credentials.device_token, sessionId);
    expect(log.filter((e) => e.kind === "inventory.published").map((e) => [e.actor.id, e.data.revision])).toEqual([
      ["dev-device", 1],
      ["dev-tablet", 2],
      ["dev-device", 3],
    ]);

    // Now the laptop answers: a call against revision 2 (the tablet's, no longer the session's) is refused as stale, once.
    const stale = await RawAgent.connect(server.url, credentials.agent_token);
    await stale.call("agentSession/envelope/send", {
      session_id: sessionId,
      idempotency_key: "stale-call",
      envelope: {
        v: 1,
        id: "env-stale-call",
        type: "lineup.tool.invoke",
        timestamp: new Date().toISOString(),
        sender: { kind: "agent", id: agent.agentId },
        target: { kind: "app", app_scope: "notes" },
        scope: { app_scope: "notes", conversation_id: sessionId },
        correlation: { call_id: "call-stale", inventory_revision: "2" },
        payload: { method: "notes.count", arguments: {} },
      },
    });
    stale.close();
    await expect.poll(async () => terminalsOf(await logOf(server, credentials.device_token, sessionId), "call-stale").length, { timeout: 10_000, interval: 50 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = terminalsOf(await logOf(server, credentials.device_token, sessionId), "call-stale");
    expect(refused).toHaveLength(1);
    expect(refused[0]!.actor.id).toBe("dev-device");
    expect(refused[0]!.data.envelope!.payload.code).toBe("stale_inventory_revision");

    // The call the tablet answered comes again, the same call under a new idempotency key and envelope id, now that the
    // laptop answers: the laptop kept its call_id when the tablet answered it, so it runs nowhere again and its one
    // answer stays the tablet's. The call_id with another body is refused as a duplicate call and runs nowhere either,
    // as on the tablet: the call's one terminal was sent already, so the refusal is audited, not sent.
    // The laptop's notes app answers every call of its tool it is given.
    const ranOnLaptop: string[] = [];
    const notes = laptop.appPort("notes");
    notes.registerToolHandler({
      call(request) {
        ranOnLaptop.push(request.call_id);
        void notes.reportTool(request.call_id, { kind: "result", result: {} });
      },
      cancel() {},
    });
    const original = (await logOf(server, credentials.device_token, sessionId)).find((e) => e.data.envelope?.type === "lineup.tool.invoke" && e.data.envelope.correlation?.call_id === call.callId)!.data.envelope as unknown as Record<string, unknown>;
    const resend = await RawAgent.connect(server.url, credentials.agent_token);
    await resend.call("agentSession/envelope/send", { session_id: sessionId, idempotency_key: "resend-same", envelope: { ...original, id: "env-resend-same", timestamp: new Date().toISOString() } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(terminalsOf(await logOf(server, credentials.device_token, sessionId), call.callId).map((e) => e.actor.id)).toEqual(["dev-tablet"]);
    await resend.call("agentSession/envelope/send", {
      session_id: sessionId,
      idempotency_key: "resend-other",
      envelope: { ...original, id: "env-resend-other", timestamp: new Date().toISOString(), target: { kind: "app", app_scope: "notes" }, scope: { app_scope: "notes", conversation_id: sessionId }, correlation: { call_id: call.callId, inventory_revision: "3" }, payload: { method: "notes.count", arguments: {} } },
    });
    resend.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(terminalsOf(await logOf(server, credentials.device_token, sessionId), call.callId).map((e) => e.actor.id)).toEqual(["dev-tablet"]);
    expect(ranOnLaptop).not.toContain(call.callId);

    // The tablet, offline, installs an app: it queues revision 4, above the 3 it knows. Meanwhile the laptop publishes 4.
    await tablet.stop();
    tablet = await device(tabletToken, tabletDir, "ws://127.0.0.1:9/nothing-listens");
    await tablet.start();
    expect((await tablet.appManager.install(await signedBundle(toolApp("sketch", "sketch.draw"), key), { approved: true })).status).toBe("succeeded");
    await tablet.stop();
    expect((await laptop.appManager.install(await signedBundle(toolApp("timer", "timer.start"), key), { approved: true })).status).toBe("succeeded");
    await until(() => seen()?.revision === 4, 15_000, "the laptop's revision 4");
    // Back online, the tablet's revision 4 is refused as stale; it publishes again above the server's, unattended.
    tablet = await device(tabletToken, tabletDir);
    await tablet.start();
    await until(() => seen()?.revision === 5, 15_000, "the tablet's publication after its stale one");
    expect(methods()).toEqual(["memo.add", "sketch.draw"]);
    expect((await logOf(server, credentials.device_token, sessionId)).filter((e) => e.kind === "inventory.published").map((e) => [e.actor.id, e.data.revision])).toEqual([
      ["dev-device", 1],
      ["dev-tablet", 2],
      ["dev-device", 3],
      ["dev-device", 4],
      ["dev-tablet", 5],
    ]);
    await tablet.stop();
    const store = await openSqliteStore({ path: join(tabletDir, "runtime.db"), schema: RUNTIME_SCHEMA });
    const audit = (await store.range(RUNTIME_COLLECTIONS.audit, {})).map((row) => row.value as { type: string; detail?: string });
    // Nothing of it is left failed in the outbox.
    const outbox = await store.count(RUNTIME_COLLECTIONS.outbox);
    await store.close();
    expect(audit.filter((r) => r.type === "inventory.stale").map((r) => r.detail?.split(":")[0])).toContain("revision 4");
    expect(outbox).toBe(0);
  } finally {
    await agent?.close();
    await laptop.stop();
    await tablet.stop();
    await server.close();
  }
}, 60_000);

it.each([
  // A backup from before the publication: neither the inventory nor the session's revision.
  { lost: "restored from before the publication", sessionsToo: true },
  // The inventory table alone wiped: the session still claims the revision, until the server starts again.
  { lost: "whose inventory table was wiped", sessionsToo: false },
])("an AppServer $lost gets the device's inventory back when the device reconnects", async ({ sessionsToo }) => {
  const dataDir = temp("lineup-inv2-server-");
  let server = await startAppServer({ dataDir, port: 0, logger: silentLogger });
  const credentials = server.devCredentials!;
  const port = Number(new URL(server.url).port);
  const key = await generatePublisherKey();
  const runtime = await createNodeRuntime({ serverUrl: server.url, token: credentials.device_token, dataDir: temp("lineup-inv2-device-"), trustedPublishers: [key.trustedKey], backoff: { baseMs: 20, capMs: 200 }, relistIntervalMs: 100 });
  let agent: AgentClient | undefined;
  try {
    await runtime.start();
    await runtime.whenOnline();
    expect((await runtime.appManager.install(await signedBundle(toolApp("notes", "notes.count"), key), { approved: true })).status).toBe("succeeded");
    agent = await connectAgent({ url: server.url, token: credentials.agent_token, transport: nodeWebSocketTransport(), sessionPollMs: 50 });
    const { conversation_id: sessionId } = await runtime.conversations.start({ agent_id: agent.agentId, workspace_id: "ws-1", title: "restored" });
    await until(() => agent!.inventory(sessionId)?.revision === 1, 10_000, "the first inventory");
    await agent.close();
    agent = undefined;

    // The server goes down and comes back without the publication.
    await server.close();
    const db = new Database(join(dataDir, "app-server.sqlite"));
    db.prepare("DELETE FROM inventories WHERE session_id = ?").run(sessionId);
    if (sessionsToo) db.prepare("UPDATE sessions SET inventory_revision = 0 WHERE session_id = ?").run(sessionId);
    db.close();
    server = await startAppServer({ dataDir, port, logger: silentLogger });

    // Nothing changed on the device; on reconnecting it finds the server below its acknowledged revision and publishes again.
    agent = await connectAgent({ url: server.url, token: credentials.agent_token, transport: nodeWebSocketTransport(), sessionPollMs: 50 });
    await until(() => (agent!.inventory(sessionId)?.revision ?? 0) >= 2, 15_000, "the inventory published again");
    expect(agent.inventory(sessionId)!.tools.map((t) => t.method)).toEqual(["notes.count"]);
    const reader = await RawAgent.connect(server.url, credentials.agent_token);
    const read = await reader.call<{ inventory: { revision: number; tools: Array<{ method: string }> } | null }>("inventory/read", { session_id: sessionId });
    reader.close();
    expect(read.inventory?.tools.map((t) => t.method)).toEqual(["notes.count"]);
  } finally {
    await agent?.close();
    await runtime.stop();
    await server.close();
  }
}, 60_000);
