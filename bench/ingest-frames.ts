/**
 * The ingest benches' wire side, shared by the Node runtime suite and the browser ingest page: the
 * `agentSession/event` frame they push (a ~1.2 KB Markdown message) and the in-memory peer that answers
 * the device's handshake and pushes pre-encoded frames. Platform-neutral: no `node:*` imports, so the
 * page bundle can take it.
 */
import { APP_SERVER_PROTOCOL_VERSION, DEFAULT_SERVER_LIMITS, decodeJsonRpc, type JsonObject } from "@lineup/protocol";
import { createMemoryTransport, type MemoryTransport } from "@lineup/runtime/testing";

/** The `agentSession/list` entry of session `id` whose log ends at `head`. */
const session = (id: string, head: number): JsonObject => ({
  session_id: id, app_scope: "chat", workspace_id: "w-1", owner_user_id: "u-1", agent_id: "agent-1",
  state: "active", created_at: "2026-11-30T06:00:00.000Z", last_seq: head, inventory_revision: 0,
});

/** The `agentSession/event` frame carrying the agent's message number `seq` in `sessionId`. */
export function eventFrame(sessionId: string, seq: number): string {
  const envelope = {
    v: 1, id: `env-${sessionId}-${seq}`, type: "lineup.message", timestamp: "2026-11-30T06:00:00.000Z",
    sender: { kind: "agent", id: "agent-1" }, target: { kind: "app", app_scope: "chat" },
    scope: { app_scope: "chat", conversation_id: sessionId }, correlation: { reply_to: `turn-${seq}` },
    payload: { format: "markdown", text: `## Update ${seq}\n\n` + "- **Review** the whiteboard sketch and the notes from yesterday's call.\n".repeat(9) },
  };
  const event = { session_id: sessionId, seq, kind: "envelope", created_at: "2026-11-30T06:00:00.000Z", actor: { role: "agent", id: "agent-1" }, data: { envelope } };
  return JSON.stringify({ jsonrpc: "2.0", method: "agentSession/event", params: event });
}

/**
 * How `push` hands frames over. `burst` (the default): every frame at once, each on its own microtask —
 * the whole backlog is decoded before anything else runs. `reads`: the way a socket delivers bytes to a
 * Node `ws` client, one read of at most `readBytes` per event-loop turn (libuv reads up to 64 KB), the
 * frames of one read delivered together; the next read comes as soon as the loop is free, so the
 * Runtime's work interleaves with the arrival as it does on a real connection.
 */
export type PushMode = { readonly kind: "burst" } | { readonly kind: "reads"; readonly readBytes: number };

/** One event-loop turn later (a macrotask), in Node and in a page alike. */
function nextTurn(run: () => void): void {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  if (immediate !== undefined) immediate(run);
  else setTimeout(run, 0);
}

/** A peer that answers initialize / list / subscribe for `sessions` (id → head) and can push frames. */
export function benchPeer(sessions: Record<string, number>): { transport: MemoryTransport; push(frames: readonly string[], mode?: PushMode): void } {
  let send: (text: string) => void = () => undefined;
  const transport = createMemoryTransport((conn) => {
    send = (text) => conn.send(text);
    conn.onMessage((text) => {
      const decoded = decodeJsonRpc(text);
      if (decoded.kind !== "single" || decoded.item.kind !== "request") return;
      const { id, method, params } = decoded.item.message;
      const reply = (result: unknown): void => conn.send(JSON.stringify({ jsonrpc: "2.0", id, result }));
      if (method === "initialize") {
        reply({ protocol_version: APP_SERVER_PROTOCOL_VERSION, server_info: { name: "bench", version: "0" }, role: "device", identity: { user_id: "u-1", device_id: "d-1" }, limits: DEFAULT_SERVER_LIMITS, server_time: "2026-11-30T06:00:00.000Z" });
      } else if (method === "agentSession/list") {
        reply({ sessions: Object.entries(sessions).map(([sid, head]) => session(sid, head)) });
      } else if (method === "agentSession/subscribe") {
        const sid = String((params as JsonObject)["session_id"]);
        reply({ session_id: sid, after_seq: (params as JsonObject)["after_seq"], head_seq: sessions[sid] });
        conn.send(JSON.stringify({ jsonrpc: "2.0", method: "agentSession/caughtUp", params: { session_id: sid, seq: sessions[sid] } }));
      }
    });
  });
  const push = (frames: readonly string[], mode: PushMode = { kind: "burst" }): void => {
    if (mode.kind === "burst") {
      frames.forEach((f) => send(f));
      return;
    }
    let next = 0;
    const read = (): void => {
      // At least one frame per read, however large.
      let bytes = 0;
      do {
        bytes += frames[next]!.length;
        send(frames[next]!);
        next += 1;
      } while (next < frames.length && bytes + frames[next]!.length <= mode.readBytes);
      if (next < frames.length) nextTurn(read);
    };
    if (frames.length > 0) read();
  };
  return { transport, push };
}
