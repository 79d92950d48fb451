/**
 * The device side of the integration tests: a raw JSON-RPC 2.0 client over `ws`, independent of
 * the SDK under test. It records every `agentSession/event` it receives.
 */
import type { JsonObject, JsonValue, RuntimeEnvelope, SessionEvent } from "@lineup/protocol";
import WebSocket from "ws";
import { waitFor } from "./helpers.js";

export class RawDevice {
  readonly events: SessionEvent[] = [];
  private nextId = 1;
  private counter = 0;
  private readonly pending = new Map<number, { resolve(v: JsonValue): void; reject(e: Error): void }>();

  private constructor(private readonly socket: WebSocket) {
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as { id?: number; method?: string; params?: unknown; result?: JsonValue; error?: { message: string; data?: { code?: string } } };
      if (message.method === "agentSession/event") this.events.push(message.params as SessionEvent);
      if (typeof message.id === "number") {
        const entry = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error !== undefined) entry?.reject(Object.assign(new Error(message.error.message), { code: message.error.data?.code }));
        else entry?.resolve(message.result ?? null);
      }
    });
  }

  static async connect(url: string, token: string): Promise<RawDevice> {
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => (socket.once("open", resolve), socket.once("error", reject)));
    const device = new RawDevice(socket);
    await device.call("initialize", { protocol_version: "lineup.app-server.v1", client_info: { name: "test-device" }, token });
    socket.send(JSON.stringify({ jsonrpc: "2.0", method: "initialized" }));
    return device;
  }

  call(method: string, params: JsonObject): Promise<JsonValue> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  key(prefix: string): string {
    return `${prefix}-${++this.counter}-${Date.now()}`;
  }

  async startSession(sessionId: string, agentId = "demo-agent"): Promise<void> {
    await this.call("agentSession/start", { idempotency_key: this.key("start"), session_id: sessionId, app_scope: "chat", workspace_id: "w-1", agent_id: agentId });
    await this.call("agentSession/subscribe", { session_id: sessionId, after_seq: 0 });
  }

  async startTurn(sessionId: string, text: string, turnId: string): Promise<void> {
    await this.call("agentSession/turn/start", { session_id: sessionId, idempotency_key: this.key("turn"), turn_id: turnId, input: { text } });
  }

  async publishInventory(sessionId: string, revision: number, tools: JsonValue[]): Promise<void> {
    await this.call("inventory/publish", { session_id: sessionId, idempotency_key: this.key("inv"), revision, tools });
  }

  /** Sends an envelope as the Runtime (tool receipts, progress, results, errors) or the user (interaction answers). */
  async sendEnvelope(sessionId: string, type: string, payload: JsonValue, options: { correlation?: JsonObject; appScope?: string; sender?: "runtime" | "user" } = {}): Promise<void> {
    const envelope = {
      v: 1,
      id: this.key("dev-env"),
      type,
      timestamp: new Date().toISOString(),
      sender: { kind: options.sender ?? "runtime", id: "dev-device" },
      target: { kind: "runtime", app_scope: "runtime" },
      scope: { app_scope: options.appScope ?? "chat", conversation_id: sessionId },
      ...(options.correlation === undefined ? {} : { correlation: options.correlation }),
      payload,
    };
    await this.call("agentSession/envelope/send", { session_id: sessionId, idempotency_key: envelope.id, envelope });
  }

  /** Envelopes the agent wrote into a session, in log order. */
  agentEnvelopes(sessionId: string, type?: string): RuntimeEnvelope[] {
    return this.events
      .filter((e) => e.session_id === sessionId && e.kind === "envelope")
      .map((e) => (e.data as unknown as { envelope: RuntimeEnvelope }).envelope)
      .filter((env) => env.sender.kind === "agent" && (type === undefined || env.type === type));
  }

  async waitForEnvelope(sessionId: string, type: string, count = 1, timeoutMs = 5_000): Promise<RuntimeEnvelope> {
    await waitFor(() => this.agentEnvelopes(sessionId, type).length >= count, `${count} × ${type} in ${sessionId}`, timeoutMs);
    return this.agentEnvelopes(sessionId, type)[count - 1]!;
  }

  async waitForTurnEnd(sessionId: string, turnId: string, timeoutMs = 5_000): Promise<SessionEvent> {
    const find = (): SessionEvent | undefined =>
      this.events.find((e) => e.session_id === sessionId && (e.kind === "turn.completed" || e.kind === "turn.failed") && (e.data as { turn_id: string }).turn_id === turnId);
    await waitFor(() => find() !== undefined, `turn ${turnId} to end`, timeoutMs);
    return find()!;
  }

  close(): void {
    this.socket.close();
  }
}
