/**
 * Ordered writes from the agent's side: the writes of a session, issued without waiting for each
 * other, reach the log exactly once and in the order the agent issued them, while the connection
 * refuses some of them retryably and is cut under others. Against the real reference AppServer
 * (the device reads the log with a raw client), and against the fake for a server without the
 * feature. Faults are injected by a transport around the real one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LineUpError, encodeJsonRpc, jsonRpcFailure, type JsonObject, type RuntimeEnvelope, type SessionEvent } from "@lineup/protocol";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { messageEnvelope, type AgentClient, type ConnectAgentOptions, type Connection, type Transport } from "../src/index.js";
import { connectAgent, nodeWebSocketTransport } from "../src/node/index.js";
import { FakeAppServer } from "./fake-app-server.js";
import { connectToFake, waitFor } from "./helpers.js";
import { RawDevice } from "./raw-device.js";

/** What the transport does with one request the client sends. */
type Fault = "pass" | "overloaded" | "cut";

interface SentRequest {
  readonly method: string;
  readonly params: JsonObject;
  /** How many answers the client had received when it sent this request. */
  readonly answersBefore: number;
}

/**
 * Wraps a transport and decides, per request the client sends: `pass` it on; answer it with
 * `overloaded` without passing it on (the server stored nothing); or pass it on and `cut` the
 * connection at once (the server may apply it; its answer and every later one are lost). Records
 * the requests, how many answers the client received, and the error codes among them.
 */
class FaultTransport implements Transport {
  plan: (request: SentRequest, attempt: number) => Fault = () => "pass";
  readonly sent: SentRequest[] = [];
  readonly refusals: string[] = [];
  answers = 0;
  readonly faults = { overloaded: 0, cut: 0 };
  private readonly attempts = new Map<string, number>();

  constructor(private readonly inner: Transport) {}

  async connect(url: string): Promise<Connection> {
    const connection = await this.inner.connect(url);
    const listeners = new Set<(text: string) => void>();
    let cut = false;
    const deliver = (text: string): void => {
      if (cut) return;
      // The client takes batch frames (receive_batches in initialized): a frame may hold several messages.
      type Message = { id?: unknown; error?: { data?: { code?: string } } };
      const parsed = JSON.parse(text) as Message | Message[];
      for (const frame of Array.isArray(parsed) ? parsed : [parsed]) {
        if (frame.id !== undefined) this.answers++;
        if (frame.error?.data?.code !== undefined) this.refusals.push(frame.error.data.code);
      }
      for (const listener of [...listeners]) listener(text);
    };
    connection.onMessage(deliver);
    return {
      send: (text) => {
        const frame = JSON.parse(text) as { id?: number; method?: string; params?: JsonObject };
        if (frame.id === undefined || frame.method === undefined || cut) return connection.send(text);
        const request = { method: frame.method, params: frame.params ?? {}, answersBefore: this.answers };
        const key = typeof request.params["idempotency_key"] === "string" ? request.params["idempotency_key"] : "";
        const attempt = (this.attempts.get(key) ?? 0) + 1;
        this.attempts.set(key, attempt);
        this.sent.push(request);
        const fault = this.plan(request, attempt);
        if (fault === "overloaded") {
          this.faults.overloaded++;
          const refusal = jsonRpcFailure(frame.id, new LineUpError("overloaded", "refused by the test").toProtocolError());
          setTimeout(() => deliver(encodeJsonRpc(refusal)), 1);
          return;
        }
        connection.send(text);
        if (fault === "cut") {
          this.faults.cut++;
          cut = true;
          connection.close(4000, "cut by the test");
        }
      },
      onMessage: (listener) => (listeners.add(listener), { dispose: () => void listeners.delete(listener) }),
      onClose: (listener) => connection.onClose(listener),
      close: (code, reason) => connection.close(code, reason),
    };
  }
}

/** The text of an agent's `lineup.message` envelope in a `send` request, or "" for anything else. */
function textOf(request: SentRequest): string {
  const envelope = request.params["envelope"] as unknown as RuntimeEnvelope | undefined;
  return envelope?.type === "lineup.message" ? (envelope.payload as { text: string }).text : "";
}

const texts = (n: number, prefix: string): string[] => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);

describe("ordered writes on the reference AppServer", () => {
  let server: AppServerHandle;
  let dataDir: string;
  let device: RawDevice;
  const clients: AgentClient[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "lineup-agent-order-"));
    server = await startAppServer({ dataDir, port: 0, logger: silentLogger });
    device = await RawDevice.connect(server.url, server.devCredentials!.device_token);
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  afterAll(async () => {
    device?.close();
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function agentWith(faults: FaultTransport, sessionId: string, options: Partial<ConnectAgentOptions> = {}): Promise<AgentClient> {
    const client = await connectAgent({ url: server.url, token: server.devCredentials!.agent_token, transport: faults, reconnect: { initialMs: 10, maxMs: 50 }, ...options });
    clients.push(client);
    expect(client.serverFeatures()).toContain("ordered-writes");
    await device.startSession(sessionId);
    await waitFor(() => client.session(sessionId) !== undefined, `the agent to follow ${sessionId}`);
    return client;
  }

  /** The whole log of the session, read by the device. */
  async function log(sessionId: string): Promise<SessionEvent[]> {
    const page = (await device.call("agentSession/events/read", { session_id: sessionId, after_seq: 0 })) as unknown as { events: SessionEvent[]; has_more: boolean };
    expect(page.has_more).toBe(false);
    return page.events;
  }

  async function agentMessages(sessionId: string): Promise<string[]> {
    return (await log(sessionId))
      .filter((e) => e.kind === "envelope" && e.actor.role === "agent")
      .map((e) => (e.data as unknown as { envelope: RuntimeEnvelope }).envelope)
      .filter((env) => env.type === "lineup.message")
      .map((env) => (env.payload as { text: string }).text);
  }

  it("a burst of 30 sends lands exactly once and in issue order while the first ones are refused and a connection is cut", async () => {
    const faults = new FaultTransport(nodeWebSocketTransport());
    const client = await agentWith(faults, "s-burst");
    const burst = texts(30, "message");
    faults.plan = (request, attempt) => {
      const text = textOf(request);
      // The first two are refused (nothing stored) while the other 28 reach the server; the first
      // one's retry is applied but the connection dies under it, so its answer is lost.
      if (attempt === 1 && (text === "message 1" || text === "message 2")) return "overloaded";
      if (attempt === 2 && text === "message 1") return "cut";
      return "pass";
    };
    const receipts = await Promise.all(burst.map((text) => client.send("s-burst", { kind: "text", text })));

    expect(await agentMessages("s-burst")).toEqual(burst);
    const seqs = receipts.map((r) => r.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(30);
    // The faults really happened, and later writes really were held back behind earlier ones.
    expect(faults.faults).toEqual({ overloaded: 2, cut: 1 });
    expect(faults.refusals).toContain("predecessor_pending");
    expect(client.stats().connects).toBe(2);
  });

  it("streamed turn updates keep their order through a refusal and a cut", async () => {
    const faults = new FaultTransport(nodeWebSocketTransport());
    const client = await agentWith(faults, "s-stream");
    await device.startTurn("s-stream", "tell me", "t-1");
    const deltas = texts(20, "chunk").map((t) => `${t};`);
    faults.plan = (request, attempt) => {
      const delta = request.params["text_delta"];
      if (delta === "chunk 1;" && attempt === 1) return "overloaded";
      if (delta === "chunk 5;" && attempt === 1) return "cut";
      return "pass";
    };
    // Fire-and-forget, as a streaming model adapter would.
    const updates = deltas.map((textDelta) => client.updateTurn("s-stream", "t-1", { textDelta }));
    const completed = client.completeTurn("s-stream", "t-1", { text: deltas.join("") });
    await Promise.all([...updates, completed]);

    const events = await log("s-stream");
    const streamed = events.filter((e) => e.kind === "turn.updated").map((e) => (e.data as { text_delta?: string }).text_delta);
    expect(streamed).toEqual(deltas);
    expect(events.at(-1)?.kind).toBe("turn.completed");
    expect(faults.faults).toEqual({ overloaded: 1, cut: 1 });
  });

  it("a write refused for good (nothing stored) does not hold back the writes issued after it", async () => {
    const faults = new FaultTransport(nodeWebSocketTransport());
    const client = await agentWith(faults, "s-refused");
    // The server refuses an envelope that claims another sender before it stores anything.
    const forged = messageEnvelope({ envelopeId: "forged-1", timestamp: new Date().toISOString(), agentId: "someone-else", sessionId: "s-refused", appScope: "chat" }, { kind: "text", text: "forged" }, "");
    const first = client.send("s-refused", { kind: "text", text: "before" });
    const refused = client.request("agentSession/envelope/send", { session_id: "s-refused", idempotency_key: forged.id, envelope: forged as unknown as JsonObject });
    const after = [client.send("s-refused", { kind: "text", text: "after 1" }), client.send("s-refused", { kind: "text", text: "after 2" })];

    await expect(refused).rejects.toMatchObject({ code: "sender_not_allowed" });
    await Promise.all([first, ...after]);
    expect(await agentMessages("s-refused")).toEqual(["before", "after 1", "after 2"]);
    // The first write behind it named it, was refused, and went again without naming it.
    const behind = faults.sent.filter((r) => textOf(r) === "after 1");
    expect(behind[0]!.params["after_key"]).toBe("forged-1");
    expect(behind.at(-1)!.params["after_key"]).not.toBe("forged-1");
    expect(faults.refusals).toContain("predecessor_pending");
  });

  it("a write that ran out of attempts does not hold back the writes issued after it", async () => {
    const faults = new FaultTransport(nodeWebSocketTransport());
    const client = await agentWith(faults, "s-exhausted", { requestAttempts: 3 });
    faults.plan = (request) => (textOf(request) === "doomed" ? "overloaded" : "pass");
    const first = client.send("s-exhausted", { kind: "text", text: "before" });
    const doomed = client.send("s-exhausted", { kind: "text", text: "doomed" });
    const after = [client.send("s-exhausted", { kind: "text", text: "after 1" }), client.send("s-exhausted", { kind: "text", text: "after 2" })];

    await expect(doomed).rejects.toMatchObject({ code: "overloaded" });
    await Promise.all([first, ...after]);
    expect(await agentMessages("s-exhausted")).toEqual(["before", "after 1", "after 2"]);
    expect(faults.sent.filter((r) => textOf(r) === "doomed")).toHaveLength(3);
  });
});

describe("ordered writes against the fake AppServer", () => {
  const clients: AgentClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  async function connect(server: FakeAppServer, faults: FaultTransport): Promise<AgentClient> {
    const client = await connectToFake(server, { transport: faults });
    clients.push(client);
    await waitFor(() => client.session("s-1") !== undefined, "the session");
    return client;
  }

  it("pipelines: every write of a burst leaves before the first answer, each naming the one issued before it", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const faults = new FaultTransport(server.transport());
    const client = await connect(server, faults);
    const before = { sent: faults.sent.length, answers: faults.answers };
    const burst = texts(5, "m");
    await Promise.all(burst.map((text) => client.send("s-1", { kind: "text", text })));
    const sent = faults.sent.slice(before.sent);
    expect(sent.map(textOf)).toEqual(burst);
    // No stop-and-wait: all five were on the wire before the first of them was answered.
    expect(sent.map((r) => r.answersBefore)).toEqual(burst.map(() => before.answers));
    expect(sent.map((r) => r.params["after_key"])).toEqual([undefined, ...sent.slice(0, -1).map((r) => r.params["idempotency_key"])]);
    expect(server.agentEnvelopes("s-1").map((e) => (e.payload as { text: string }).text)).toEqual(burst);
    // Once a write settled, the next one issued names nothing.
    await client.send("s-1", { kind: "text", text: "alone" });
    expect(faults.sent.at(-1)!.params["after_key"]).toBeUndefined();
  });

  it("knows the feature from initialize: writes chain from the start, even when capability/list fails", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const faults = new FaultTransport(server.transport());
    faults.plan = (request) => (request.method === "capability/list" ? "overloaded" : "pass");
    const client = await connect(server, faults);
    expect(faults.faults.overloaded).toBe(1);
    expect(client.serverFeatures()).toContain("ordered-writes");
    await Promise.all(["a", "b"].map((text) => client.send("s-1", { kind: "text", text })));
    const [a, b] = faults.sent.filter((r) => r.method === "agentSession/envelope/send");
    expect(b!.params["after_key"]).toBe(a!.params["idempotency_key"]);
  });

  it("sends no after_key to a server without ordered-writes (which would refuse it), retries included", async () => {
    const server = new FakeAppServer({ orderedWrites: false });
    server.startSession("s-1");
    const faults = new FaultTransport(server.transport());
    const client = await connect(server, faults);
    expect(client.serverFeatures()).not.toContain("ordered-writes");
    faults.plan = (request, attempt) => (textOf(request) === "m 1" && attempt === 1 ? "overloaded" : "pass");
    const burst = texts(10, "m");
    await Promise.all(burst.map((text) => client.send("s-1", { kind: "text", text })));

    expect(faults.faults.overloaded).toBe(1);
    expect(faults.sent.filter((r) => r.params["after_key"] !== undefined)).toEqual([]);
    // Exactly once each; the order is not promised without the feature (the retried first lands last).
    const landed = server.agentEnvelopes("s-1").map((e) => (e.payload as { text: string }).text);
    expect([...landed].sort()).toEqual([...burst].sort());
    expect(landed.at(-1)).toBe("m 1");
  });
});
