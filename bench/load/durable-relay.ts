/**
 * The floor of the app-server suite's append + fan-out row: a minimal durable relay that the same
 * load clients (fanout-clients.ts) can drive. `ws` on 127.0.0.1, one SQLite file in WAL mode with
 * `synchronous=FULL`, and group commit: each frame is parsed as it arrives; the sends that arrived
 * since the last transaction get the next seq of their session and are stored together in one
 * transaction, and only after its COMMIT (fsync) is each writer answered and each event sent once
 * to every subscriber of its session. The frames it sends have the same shapes and sizes as the AppServer's (the stored event
 * is the notification's params).
 *
 * It keeps only the promise that costs the disk — nothing acknowledged or delivered before its
 * commit — and nothing else: no validation, no authentication, no idempotency keys, no duplicate
 * envelope check, no cursor or catch-up, no backpressure. The least any correct server must do for
 * this load.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { WebSocketServer, type WebSocket } from "ws";

interface Append {
  readonly ws: WebSocket;
  readonly id: number;
  readonly sessionId: string;
  readonly envelope: unknown;
}

export interface DurableRelay {
  /** `ws://127.0.0.1:port/rpc` */
  readonly url: string;
  /** Writes per transaction so far. */
  stats(): { readonly transactions: number; readonly writes: number; readonly largestBatch: number };
  close(): Promise<void>;
}

const EVENT_PREFIX = '{"jsonrpc":"2.0","method":"agentSession/event","params":';

export async function startDurableRelay(): Promise<DurableRelay> {
  const dir = mkdtempSync(join(tmpdir(), "lineup-bench-relay-"));
  const db = new Database(join(dir, "relay.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec("CREATE TABLE events (session_id TEXT, seq INTEGER, body TEXT, PRIMARY KEY (session_id, seq)) WITHOUT ROWID");
  const insert = db.prepare("INSERT INTO events VALUES (?, ?, ?)");
  const heads = new Map<string, number>();
  const subscribers = new Map<string, Set<WebSocket>>();
  let pending: Append[] = [];
  let scheduled = false;
  let transactions = 0;
  let writes = 0;
  let largestBatch = 0;

  const store = db.transaction((batch: readonly Append[], createdAt: string): Array<readonly [seq: number, body: string]> => {
    const stored: Array<readonly [number, string]> = [];
    for (const append of batch) {
      const seq = (heads.get(append.sessionId) ?? 0) + 1;
      heads.set(append.sessionId, seq);
      const body = JSON.stringify({ session_id: append.sessionId, seq, kind: "envelope", created_at: createdAt, actor: { role: "device", id: "dev-device" }, data: { envelope: append.envelope } });
      insert.run(append.sessionId, seq, body);
      stored.push([seq, body]);
    }
    return stored;
  });

  const flush = () => {
    scheduled = false;
    const batch = pending;
    pending = [];
    const stored = store(batch, new Date().toISOString());
    transactions++;
    writes += batch.length;
    largestBatch = Math.max(largestBatch, batch.length);
    // Committed: answer each writer and send each event once to every subscriber of its session.
    for (let i = 0; i < batch.length; i++) {
      const append = batch[i]!;
      const [seq, body] = stored[i]!;
      append.ws.send(`{"jsonrpc":"2.0","id":${append.id},"result":{"envelope_id":${JSON.stringify((append.envelope as { id: string }).id)},"seq":${seq}}}`);
      const frame = `${EVENT_PREFIX}${body}}`;
      for (const subscriber of subscribers.get(append.sessionId) ?? []) subscriber.send(frame);
    }
  };

  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  wss.on("connection", (ws) => {
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data)) as { id?: number; method: string; params?: { session_id?: string; envelope?: unknown } };
      if (frame.id === undefined) return; // `initialized`
      if (frame.method === "agentSession/envelope/send") {
        pending.push({ ws, id: frame.id, sessionId: frame.params!.session_id!, envelope: frame.params!.envelope });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
        return;
      }
      if (frame.method === "agentSession/subscribe") {
        const sessionId = frame.params!.session_id!;
        let set = subscribers.get(sessionId);
        if (set === undefined) subscribers.set(sessionId, (set = new Set()));
        set.add(ws);
        ws.once("close", () => set.delete(ws));
      }
      ws.send(`{"jsonrpc":"2.0","id":${frame.id},"result":{}}`);
    });
  });
  await new Promise((resolve) => wss.once("listening", resolve));
  const port = (wss.address() as { port: number }).port;
  return {
    url: `ws://127.0.0.1:${port}/rpc`,
    stats: () => ({ transactions, writes, largestBatch }),
    async close() {
      for (const ws of wss.clients) ws.terminate();
      await new Promise((resolve) => wss.close(resolve));
      if (scheduled) flush();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
