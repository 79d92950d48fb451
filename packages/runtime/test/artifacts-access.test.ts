/**
 * What an app can do with artifacts beside creating them (spec 6.3: metadata, limited reads, conversation
 * references, downloads and the user's saves): `getArtifact`, `listArtifacts` and `saveArtifact` on the
 * AppPort, and an agent's artifact kept on the device once read whole, so it reads and saves offline.
 */
import { safeFileName, type ArtifactRef, type CapabilityName, type JsonValue } from "@lineup/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStore, RUNTIME_COLLECTIONS as C, RUNTIME_SCHEMA, type MemoryStoreData, type StoreSchema, type StoreWrite } from "../src/index.js";
import { inboxKey } from "../src/persistence/inbox.js";
import { whiteboardManifest } from "./apps-fixtures.js";
import { publisherKey, signedBundle } from "./helpers/apps-harness.js";
import { FakeHost } from "./helpers/fake-host.js";
import { createFakeClock, createMemoryStoreData, FakeAppServer, startDevice, until, type Device } from "./helpers/runtime-harness.js";

const SAVE: CapabilityName = "file.save";
const devices: Device[] = [];
afterEach(async () => {
  for (const d of devices.splice(0)) await d.stop();
});

interface World {
  readonly server: FakeAppServer;
  readonly d: Device;
  readonly host: FakeHost;
  readonly data: MemoryStoreData;
  readonly clock: ReturnType<typeof createFakeClock>;
}

/** Online in conversations s-1 and s-2, the whiteboard (which declares `file.save`) installed, its instance of s-1 in front. */
async function world(data: MemoryStoreData = createMemoryStoreData(), server = new FakeAppServer(), install = true, extra: { keptArtifactBytes?: number } = {}): Promise<World & { board: string }> {
  if (install) {
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    server.createSession({ session_id: "s-2", agent_id: "agent-1" });
  }
  const host = new FakeHost([SAVE]);
  const key = await publisherKey();
  const clock = createFakeClock();
  const d = await startDevice(server, data, { clock, run: install ? "r0" : "r1", extra: { trustedPublishers: [key.trustedKey], host, ...extra } });
  devices.push(d);
  await d.runtime.whenOnline();
  await until(() => d.chat.view().conversations.filter((c) => c.status === "live").length === 2, 3_000, "both conversations live");
  if (install) {
    const manifest = whiteboardManifest("1.0.0", {
      runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", "capability.request.v1"] },
      capabilities: [{ name: SAVE, purpose: "Save the board's exports where you choose." }],
    });
    expect((await d.runtime.appManager.install(await signedBundle(manifest), { approved: true })).status).toBe("succeeded");
  }
  const launched = await d.runtime.appManager.launch({ app_scope: "whiteboard", conversation_id: "s-1" });
  await d.runtime.instances.ready(launched.instance_id);
  return { server, d, host, data, clock, board: launched.instance_id };
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

describe("a conversation's artifacts", () => {
  it("are listed with who made them and whether their bytes are here, oldest first; another conversation's are not", async () => {
    const { server, d, clock } = await world();
    const board = d.runtime.appPort("whiteboard");
    server.agentArtifact("s-1", { artifact_id: "art-agent-1", name: "brief.txt", mime_type: "text/plain", bytes: text("the brief") });
    await until(() => d.received.some((m) => m.type === "lineup.artifact"), 3_000, "the agent's artifact in the chat");
    const png = await board.createArtifact({ name: "board.png", mime_type: "image/png", bytes: Uint8Array.of(1, 2, 3), conversation_id: "s-1" });
    clock.advance(1_000);
    const other = await board.createArtifact({ name: "elsewhere.txt", mime_type: "text/plain", bytes: text("s-2"), conversation_id: "s-2" });
    clock.advance(1_000);
    const mine = await board.createArtifact({ name: "draft.txt", mime_type: "text/plain", bytes: text("kept to itself") });

    // Listed at once, before its upload is answered, and still in the same place after.
    const listed = await d.chat.listArtifacts({ conversation_id: "s-1" });
    expect(listed.map((a) => [a.artifact.name, a.origin, a.app_scope ?? null, a.on_device])).toEqual([
      ["brief.txt", "agent", null, false],
      ["board.png", "app", "whiteboard", true],
    ]);
    await until(() => server.artifactBytes("s-1", png.artifact_id) !== undefined, 3_000, "the upload");
    await expect.poll(async () => (await d.chat.listArtifacts({ conversation_id: "s-1" })).map((a) => a.artifact.artifact_id)).toEqual(["art-agent-1", png.artifact_id]);
    expect((await d.chat.listArtifacts({ conversation_id: "s-2" })).map((a) => a.artifact.artifact_id)).toEqual([other.artifact_id]);
    // The newest `limit` of them.
    expect((await d.chat.listArtifacts({ conversation_id: "s-1", limit: 1 })).map((a) => a.artifact.name)).toEqual(["board.png"]);

    // Without a conversation: the app's own, shared or not; the chat made none.
    expect((await board.listArtifacts()).map((a) => a.artifact.name)).toEqual(["board.png", "elsewhere.txt", "draft.txt"]);
    expect(await d.chat.listArtifacts()).toEqual([]);

    // Metadata under the read rule: the app's own, or the named conversation's.
    expect(await d.chat.getArtifact("art-agent-1", { conversation_id: "s-1" })).toMatchObject({ artifact: { name: "brief.txt", size: 9 }, origin: "agent", on_device: false, conversation_id: "s-1" });
    expect(await board.getArtifact(mine.artifact_id)).toMatchObject({ artifact: mine, origin: "app", app_scope: "whiteboard", on_device: true });
    await expect(d.chat.getArtifact(mine.artifact_id)).rejects.toMatchObject({ code: "not_found" });
    await expect(d.chat.getArtifact("art-agent-1", { conversation_id: "s-2" })).rejects.toMatchObject({ code: "not_found" });

    // Bad input is refused with its code.
    await expect(d.chat.listArtifacts({ conversation_id: "s-9" })).rejects.toMatchObject({ code: "conversation_unknown" });
    await expect(d.chat.listArtifacts({ conversation_id: "s-1", limit: 0 })).rejects.toMatchObject({ code: "invalid_params" });
    await expect(d.chat.getArtifact("")).rejects.toMatchObject({ code: "invalid_params" });
  });

  it("an evidence pack exported in a conversation is listed among its files, as the device's", async () => {
    const { d } = await world();
    const exported = await d.runtime.appPort("whiteboard").exportEvidence({ conversation_id: "s-1" });
    await expect
      .poll(async () => (await d.chat.listArtifacts({ conversation_id: "s-1" })).map((a) => [a.artifact.artifact_id, a.origin]))
      .toEqual([[exported.artifact.artifact_id, "device"]]);
    expect(await d.chat.listArtifacts({ conversation_id: "s-2" })).toEqual([]);
  });

  it("an agent's artifact read whole is kept: it reads, lists as on the device and saves offline, after a restart too", async () => {
    const w = await world();
    w.server.agentArtifact("s-1", { artifact_id: "art-agent-2", name: "notes.txt", mime_type: "text/plain", bytes: text("read me offline") });
    await until(() => w.d.received.some((m) => m.type === "lineup.artifact"), 3_000, "the agent's artifact");
    const board = w.d.runtime.appPort("whiteboard");
    // A capped read is not kept (it did not see the whole file).
    expect((await board.readArtifact("art-agent-2", { conversation_id: "s-1", maxBytes: 4 })).truncated).toBe(true);
    expect((await board.getArtifact("art-agent-2", { conversation_id: "s-1" })).on_device).toBe(false);
    expect(new TextDecoder().decode((await board.readArtifact("art-agent-2", { conversation_id: "s-1" })).bytes)).toBe("read me offline");
    await expect.poll(async () => (await board.getArtifact("art-agent-2", { conversation_id: "s-1" })).on_device).toBe(true);

    w.server.transport.setReachable(false);
    w.server.transport.dropAll();
    await until(() => w.d.chat.view().lifecycle.status !== "online", 3_000, "offline");
    expect(new TextDecoder().decode((await board.readArtifact("art-agent-2", { conversation_id: "s-1" })).bytes)).toBe("read me offline");
    // Kept for the conversation, not for an app: another conversation's instance cannot name it.
    await expect(board.readArtifact("art-agent-2", { conversation_id: "s-2" })).rejects.toMatchObject({ code: "not_found" });
    await expect(board.readArtifact("art-agent-2")).rejects.toMatchObject({ code: "not_found" });
    expect(await board.saveArtifact({ artifact_id: "art-agent-2", conversation_id: "s-1" })).toMatchObject({ status: "completed" });
    expect(w.host.invocations.at(-1)).toMatchObject({ capability: SAVE, app_scope: "whiteboard", input: { name: "notes.txt", mime_type: "text/plain", data: btoa("read me offline") } });

    await w.d.stop();
    devices.splice(0);
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data: w.data });
    const audit = (await store.range(C.audit)).map((r) => (r.value as { type: string }).type);
    await store.close();
    expect(audit.filter((t) => t === "artifact.kept")).toHaveLength(1);
    w.server.transport.setReachable(true);
    const again = await world(w.data, w.server, false);
    expect((await again.d.chat.listArtifacts({ conversation_id: "s-1" })).map((a) => [a.artifact.artifact_id, a.origin, a.on_device])).toEqual([["art-agent-2", "agent", true]]);
  });

  it("saves through the host's file.save, as the app, and the gateway's refusals come back as results", async () => {
    const { d, host, board: instance } = await world();
    const board = d.runtime.appPort("whiteboard");
    const png = await board.createArtifact({ name: "board.png", mime_type: "image/png", bytes: Uint8Array.of(137, 80, 78, 71), conversation_id: "s-1" });
    expect(await board.saveArtifact({ artifact_id: png.artifact_id, instance_id: instance })).toMatchObject({ status: "completed" });
    expect(host.invocations).toHaveLength(1);
    expect(host.invocations[0]).toMatchObject({ capability: SAVE, app_scope: "whiteboard", input: { name: "board.png", mime_type: "image/png", data: "iVBORw==" } });

    // The chat did not declare file.save: refused before the host is asked.
    expect(await d.chat.saveArtifact({ artifact_id: png.artifact_id, conversation_id: "s-1" })).toMatchObject({ status: "permission_denied", code: "capability_not_declared" });
    // Saving needs the app in front.
    await d.runtime.instances.background(instance);
    expect(await board.saveArtifact({ artifact_id: png.artifact_id, instance_id: instance })).toMatchObject({ status: "permission_denied", code: "foreground_required" });
    expect(host.invocations).toHaveLength(1);
    // An artifact the app may not read is refused as a read is.
    await expect(board.saveArtifact({ artifact_id: "art-nope" })).rejects.toMatchObject({ code: "not_found" });

    // An artifact's name is any text; the file it is saved as gets a name a file system takes.
    await d.runtime.instances.focus(instance);
    const odd = await board.createArtifact({ name: ' Plan: v2? "final".png ', mime_type: "image/png", bytes: Uint8Array.of(1), conversation_id: "s-1" });
    expect(await board.saveArtifact({ artifact_id: odd.artifact_id, instance_id: instance })).toMatchObject({ status: "completed" });
    expect(host.invocations.at(-1)).toMatchObject({ input: { name: "Plan_ v2_ _final_.png" } });
    expect([safeFileName(".."), safeFileName("  "), safeFileName("a/b\\c"), safeFileName("x".repeat(300)).length]).toEqual(["artifact", "artifact", "a_b_c", 255]);
  });
});

describe("what artifacts take on the device", () => {
  it("the agent's files kept are bounded: the longest kept are let go first, stay listed, and are read again from the AppServer", async () => {
    const { server, d } = await world(createMemoryStoreData(), new FakeAppServer(), true, { keptArtifactBytes: 20 });
    for (const n of [1, 2, 3]) server.agentArtifact("s-1", { artifact_id: `art-k${n}`, name: `k${n}.bin`, mime_type: "application/octet-stream", bytes: new Uint8Array(8).fill(n) });
    await expect.poll(async () => (await d.chat.listArtifacts({ conversation_id: "s-1" })).length).toBe(3);
    const onDevice = async () => (await d.chat.listArtifacts({ conversation_id: "s-1" })).map((a) => `${a.artifact.name}:${a.on_device ? "here" : "server"}`);
    await d.chat.readArtifact("art-k1", { conversation_id: "s-1" });
    await d.chat.readArtifact("art-k2", { conversation_id: "s-1" });
    await expect.poll(onDevice).toEqual(["k1.bin:here", "k2.bin:here", "k3.bin:server"]);
    // A third would make 24 bytes: the first kept goes.
    await d.chat.readArtifact("art-k3", { conversation_id: "s-1" });
    await expect.poll(onDevice).toEqual(["k1.bin:server", "k2.bin:here", "k3.bin:here"]);
    // Still readable (from the AppServer), the same bytes; kept again, it lets k2 go.
    expect((await d.chat.readArtifact("art-k1", { conversation_id: "s-1" })).bytes).toEqual(new Uint8Array(8).fill(1));
    await expect.poll(onDevice).toEqual(["k1.bin:here", "k2.bin:server", "k3.bin:here"]);
    // Storage counts what is kept on a row of its own.
    expect((await d.runtime.settings.storageUsage()).find((row) => row.app_scope === "runtime")?.bytes).toBe(16);
  });

  it("an app's own artifacts count as its storage and go with it when it is removed; those it shared stay the conversation's", async () => {
    const w = await world();
    const board = w.d.runtime.appPort("whiteboard");
    const own = await board.createArtifact({ name: "draft.txt", mime_type: "text/plain", bytes: text("mine alone") });
    const shared = await board.createArtifact({ name: "board.png", mime_type: "image/png", bytes: Uint8Array.of(1, 2, 3, 4), conversation_id: "s-1" });
    const usage = (await w.d.runtime.settings.storageUsage()).find((row) => row.app_scope === "whiteboard")!.bytes;
    expect(usage).toBeGreaterThanOrEqual(10 + 4);
    expect((await w.d.runtime.appManager.remove("whiteboard", { confirmed: true })).status).toBe("succeeded");
    // The removed app's port is closed (app_not_installed); what it kept to itself is gone from its storage.
    await expect(board.getArtifact(own.artifact_id)).rejects.toMatchObject({ code: "app_not_installed" });
    await expect.poll(async () => (await w.d.runtime.settings.storageUsage()).find((row) => row.app_scope === "whiteboard")?.bytes ?? 0).toBe(4);
    // The conversation keeps the board it was given: listed, and readable by the apps serving it.
    expect(await w.d.chat.listArtifacts({ conversation_id: "s-1" })).toEqual([expect.objectContaining({ artifact: shared, on_device: true })]);
    expect((await w.d.chat.readArtifact(shared.artifact_id, { conversation_id: "s-1" })).bytes).toEqual(Uint8Array.of(1, 2, 3, 4));
    await w.d.stop();
    devices.splice(0);
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data: w.data });
    expect(await store.get(C.artifacts, own.artifact_id)).toBeUndefined();
    expect(await store.get(C.artifactData, own.artifact_id)).toBeUndefined();
    expect((await store.range(C.audit)).map((r) => (r.value as { type: string }).type)).toContain("artifact.deleted");
    await store.close();
  });

  it("an app removed before a crash let its artifacts go has them released at the next start", async () => {
    const data = createMemoryStoreData();
    const w = await world(data);
    await w.d.stop();
    devices.splice(0);
    // What a crash between the removal's commit and the release leaves: the record and bytes of an app that
    // is gone, and the removal's marker.
    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    await store.commit([
      { op: "put", collection: C.artifacts, key: "art-orphan", value: { artifact: { artifact_id: "art-orphan", name: "o.txt", mime_type: "text/plain", size: 1, sha256: "0".repeat(64) }, app_scope: "gone-app", created_at: "2026-11-30T06:00:00.000Z" } },
      { op: "put", collection: C.artifactData, key: "art-orphan", value: Uint8Array.of(7) },
      { op: "put", collection: C.meta, key: "release-artifacts/gone-app", value: { app_scope: "gone-app" } },
    ]);
    await store.close();
    const again = await world(data, w.server, false);
    await expect.poll(async () => (await again.d.runtime.settings.storageUsage()).some((row) => row.app_scope === "gone-app")).toBe(false);
    await again.d.stop();
    devices.splice(0);
    const after = await createMemoryStore(RUNTIME_SCHEMA, { data });
    expect(await after.get(C.artifactData, "art-orphan")).toBeUndefined();
    await after.close();
  });
});

describe("migration 0005: the conversation-artifacts index", () => {
  it("is filled from the artifact messages and the shared artifacts a store already holds, once per artifact, keeping conversation ids with slashes apart", async () => {
    const data = createMemoryStoreData();
    const v4: StoreSchema = { collections: RUNTIME_SCHEMA.collections.filter((c) => c !== C.conversationArtifacts), migrations: RUNTIME_SCHEMA.migrations.slice(0, 4) };
    const old = await createMemoryStore(v4, { data });
    const ref = (id: string): ArtifactRef => ({ artifact_id: id, name: `${id}.txt`, mime_type: "text/plain", size: 1, sha256: "0".repeat(64) }) as ArtifactRef;
    const artifactMessage = (appScope: string, conversationId: string, seq: number, id: string, sender: "agent" | "user"): StoreWrite => ({
      op: "put",
      collection: C.inbox,
      key: inboxKey(appScope, conversationId, seq),
      value: { message_id: `${conversationId}:${seq}`, app_scope: appScope, conversation_id: conversationId, seq, type: "lineup.artifact", delivery: "display", sender: { kind: sender, id: "x" }, created_at: "2026-11-30T06:00:00.000Z", payload: { artifact: ref(id) } } as unknown as JsonValue,
    });
    await old.commit([
      // The agent's file reached two apps; the device's own came back as a message too.
      artifactMessage("chat", "s-1", 4, "art-a", "agent"),
      artifactMessage("board", "s-1", 4, "art-a", "agent"),
      artifactMessage("chat", "s-1", 9, "art-d", "user"),
      artifactMessage("chat", "s/2", 2, "art-b", "agent"),
      { op: "put", collection: C.inbox, key: inboxKey("chat", "s-1", 5), value: { conversation_id: "s-1", seq: 5, type: "lineup.message", payload: { text: "hi" } } },
      // Made here: one shared with s-1 (already uploaded: its message above), one waiting for its upload, one kept to the app.
      { op: "put", collection: C.artifacts, key: "art-d", value: { artifact: ref("art-d"), app_scope: "board", conversation_id: "s-1", created_at: "2026-11-30T05:00:00.000Z" } as unknown as JsonValue },
      { op: "put", collection: C.artifacts, key: "art-q", value: { artifact: ref("art-q"), app_scope: "board", conversation_id: "s-1", created_at: "2026-11-30T07:00:00.000Z" } as unknown as JsonValue },
      { op: "put", collection: C.artifacts, key: "art-own", value: { artifact: ref("art-own"), app_scope: "board", created_at: "2026-11-30T07:00:00.000Z" } as unknown as JsonValue },
    ]);
    await old.close();

    const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
    const rows = await store.range(C.conversationArtifacts);
    expect(rows.map((r) => [r.key, (r.value as { added_by: string }).added_by, (r.value as { seq?: number }).seq ?? null])).toEqual([
      ["s-1/art-a", "agent", 4],
      ["s-1/art-d", "device", 9],
      ["s-1/art-q", "device", null],
      ["s/2/art-b", "agent", 2],
    ]);
    await store.close();
  });
});
