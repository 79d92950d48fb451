/** A minimal remote agent for integration tests: raw JSON-RPC over ws, agent face of the App Server protocol. */
import WebSocket from "ws";

type Frame = { id?: number; method?: string; params?: Record<string, unknown>; result?: unknown; error?: { data?: { code?: string }; message: string } };

export class RawAgent {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly listeners: ((event: Record<string, unknown>) => void)[] = [];

  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data)) as Frame;
      if (frame.id !== undefined && this.pending.has(frame.id)) {
        const waiter = this.pending.get(frame.id)!;
        this.pending.delete(frame.id);
        if (frame.error) waiter.reject(new Error(`${frame.error.data?.code}: ${frame.error.message}`));
        else waiter.resolve(frame.result);
      } else if (frame.method === "agentSession/event") {
        for (const listener of this.listeners) listener(frame.params!);
      }
    });
  }

  static async connect(url: string, token: string): Promise<RawAgent> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    const agent = new RawAgent(ws);
    await agent.call("initialize", { protocol_version: "lineup.app-server.v1", client_info: { name: "raw-agent" }, token });
    return agent;
  }

  call<T = Record<string, unknown>>(method: string, params: Record<string, unknown>): Promise<T> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  onEvent(listener: (event: Record<string, unknown>) => void): void {
    this.listeners.push(listener);
  }

  /** Follows every session bound to this agent, after `after_seq` 0, answering each turn with an envelope message and a completion. */
  async serve(agentId: string, keyPrefix: string): Promise<void> {
    const followed = new Set<string>();
    const follow = async (): Promise<void> => {
      const { sessions } = await this.call<{ sessions: { session_id: string }[] }>("agentSession/list", {});
      for (const { session_id } of sessions) {
        if (followed.has(session_id)) continue;
        followed.add(session_id);
        await this.call("agentSession/subscribe", { session_id, after_seq: 0 });
      }
    };
    this.onEvent((event) => {
      if (event["kind"] !== "turn.started") return;
      const sessionId = String(event["session_id"]);
      const turn = (event["data"] as { turn: { turn_id: string; input: { text?: string } } }).turn;
      const text = `echo: ${turn.input.text ?? ""}`;
      void (async () => {
        await this.call("agentSession/envelope/send", {
          session_id: sessionId,
          idempotency_key: `${keyPrefix}-reply-${turn.turn_id}`,
          envelope: {
            v: 1, id: `reply-${turn.turn_id}`, type: "lineup.message", timestamp: String(event["created_at"]),
            sender: { kind: "agent", id: agentId }, target: { kind: "app", app_scope: "chat" },
            scope: { app_scope: "chat", conversation_id: sessionId }, correlation: { reply_to: turn.turn_id },
            payload: { format: "markdown", text },
          },
        });
        await this.call("agentSession/turn/complete", { session_id: sessionId, turn_id: turn.turn_id, idempotency_key: `${keyPrefix}-done-${turn.turn_id}`, outcome: "completed", text });
      })().catch(() => undefined);
    });
    await follow();
    this.timer = setInterval(() => void follow().catch(() => undefined), 100);
  }

  private timer: NodeJS.Timeout | undefined;

  close(): void {
    clearInterval(this.timer);
    this.ws.close();
  }
}
