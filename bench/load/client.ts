/** A minimal pipelining JSON-RPC client for the benchmarks (App Server protocol). */
import WebSocket from "ws";
import { APP_SERVER_PROTOCOL_VERSION } from "@lineup/protocol";

export type Frame = { id?: number; method?: string; params?: any; result?: any; error?: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A minimal pipelining JSON-RPC client for the benchmark. */
export class Client {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  onNotification: (frame: Frame) => void = () => {};
  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data)) as Frame;
      if (frame.id !== undefined && (frame.result !== undefined || frame.error !== undefined)) {
        const p = this.pending.get(frame.id);
        this.pending.delete(frame.id);
        if (frame.error !== undefined) p?.reject(new Error(JSON.stringify(frame.error)));
        else p?.resolve(frame.result);
      } else if (frame.method !== undefined) this.onNotification(frame);
    });
  }
  static async open(url: string, token: string): Promise<Client> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    const client = new Client(ws);
    await client.call("initialize", { protocol_version: APP_SERVER_PROTOCOL_VERSION, client_info: { name: "bench" }, token });
    ws.send(JSON.stringify({ jsonrpc: "2.0", method: "initialized" }));
    return client;
  }
  call(method: string, params: unknown): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }
  close(): void {
    this.ws.close();
  }
}

let keys = 0;
export const key = (): string => `bench-${process.pid}-${++keys}`;

export function messageEnvelope(sessionId: string, n: number): Record<string, unknown> {
  return {
    v: 1,
    id: `m-${sessionId}-${n}`,
    type: "lineup.message",
    timestamp: "2026-11-30T06:00:00.000Z",
    sender: { kind: "user", id: "dev-user" },
    target: { kind: "app", app_scope: "chat" },
    scope: { app_scope: "chat", conversation_id: sessionId },
    payload: { format: "markdown", text: "- **Review** the whiteboard sketch and the notes from yesterday's call.\n".repeat(6) },
  };
}

