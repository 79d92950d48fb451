/**
 * Reading an artifact this device did not make (the agent's file, another device's): `AppPort.readArtifact`
 * with the conversation reads the AppServer's copy chunk by chunk, checked against its SHA-256 when read
 * whole (bytes that do not match are refused); capped reads say they are truncated; offline it is refused `request_cancelled`, and an id the
 * server does not have is `not_found`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStoreData, FakeAppServer, startDevice, until, type Device } from "./helpers/runtime-harness.js";

const devices: Device[] = [];
afterEach(async () => {
  for (const d of devices.splice(0)) await d.stop();
});

async function online(): Promise<{ server: FakeAppServer; d: Device }> {
  const server = new FakeAppServer();
  server.createSession({ session_id: "s-1", agent_id: "agent-1" });
  const d = await startDevice(server, createMemoryStoreData());
  devices.push(d);
  await d.runtime.whenOnline();
  await until(() => d.runtime.appPort("chat").view().conversations.some((c) => c.conversation_id === "s-1"), 3_000, "the conversation");
  return { server, d };
}

/** 500 KB of a repeating pattern: several of the server's 192 KB chunks. */
const LARGE = Uint8Array.from({ length: 500_000 }, (_, i) => (i * 7) % 251);

describe("an artifact the AppServer holds", () => {
  it("is read whole across chunks, and capped reads are marked truncated", async () => {
    const { server, d } = await online();
    server.agentArtifact("s-1", { artifact_id: "art-agent-1", name: "plan.bin", mime_type: "application/octet-stream", bytes: LARGE });
    const chat = d.runtime.appPort("chat");
    const whole = await chat.readArtifact("art-agent-1", { conversation_id: "s-1" });
    expect(whole.truncated).toBe(false);
    expect(whole.artifact).toMatchObject({ artifact_id: "art-agent-1", name: "plan.bin", size: LARGE.byteLength });
    expect(whole.bytes).toEqual(LARGE);
    const capped = await chat.readArtifact("art-agent-1", { conversation_id: "s-1", maxBytes: 1_000 });
    expect(capped.truncated).toBe(true);
    expect(capped.bytes).toEqual(LARGE.subarray(0, 1_000));

    // Bytes that do not match the SHA-256 the server gave are refused, not shown.
    const bytes = new TextEncoder().encode("the original");
    server.agentArtifact("s-1", { artifact_id: "art-agent-3", name: "x.txt", mime_type: "text/plain", bytes });
    bytes[0] = 0x54; // the server's copy changes after its digest was taken
    await expect(chat.readArtifact("art-agent-3", { conversation_id: "s-1" })).rejects.toMatchObject({ code: "internal_error" });
  });

  it("is hashed off the loop when read whole: the Runtime keeps processing turns while a large artifact is checked", async () => {
    const { server, d } = await online();
    const size = 16 * 1024 * 1024; // the largest a Runtime reads whole (MAX_ARTIFACT_BYTES)
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i += 4096) bytes[i] = i % 251;
    server.agentArtifact("s-1", { artifact_id: "art-big", name: "big.bin", mime_type: "application/octet-stream", bytes });
    const chat = d.runtime.appPort("chat");
    // The person keeps sending messages, one turn each, while the artifact is read.
    let sent = 0;
    let sentAtLastChunk: number | undefined;
    const execute = Reflect.get(server, "execute") as (method: string, params: unknown) => unknown;
    Reflect.set(server, "execute", (method: string, params: unknown) => {
      const answer = execute.call(server, method, params);
      if (method === "artifact/read" && (answer as { eof?: unknown }).eof === true) sentAtLastChunk = sent;
      return answer;
    });
    let reading = true;
    const sender = (async () => {
      while (reading) {
        await chat.dispatch({ type: "conversation.send_text", conversation_id: "s-1", text: `message ${sent}` });
        sent += 1;
        // A turn on the memory store settles in microtasks: the sender leaves the loop to the read between messages.
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const whole = await chat.readArtifact("art-big", { conversation_id: "s-1" });
    const sentWhileHashing = sent - sentAtLastChunk!;
    reading = false;
    await sender;
    expect(whole.truncated).toBe(false);
    expect(whole.bytes.byteLength).toBe(size);
    // Between the last chunk's answer and the checked bytes, other turns committed: the hash did not hold the loop.
    expect(sentWhileHashing).toBeGreaterThan(0);
  }, 60_000);

  it("is refused request_cancelled while offline and not_found when the server has no such artifact; without the conversation it is not looked for", async () => {
    const { server, d } = await online();
    server.agentArtifact("s-1", { artifact_id: "art-agent-2", name: "a.txt", mime_type: "text/plain", bytes: new TextEncoder().encode("hello") });
    const chat = d.runtime.appPort("chat");
    await expect(chat.readArtifact("art-missing", { conversation_id: "s-1" })).rejects.toMatchObject({ code: "not_found" });
    await expect(chat.readArtifact("art-agent-2")).rejects.toMatchObject({ code: "not_found" });
    server.transport.setReachable(false);
    server.transport.dropAll();
    await until(() => d.runtime.appPort("chat").view().lifecycle.status !== "online", 3_000, "offline");
    await expect(chat.readArtifact("art-agent-2", { conversation_id: "s-1" })).rejects.toMatchObject({ code: "request_cancelled" });
  });
});
