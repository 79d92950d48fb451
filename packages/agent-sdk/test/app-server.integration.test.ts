/**
 * The demo agent against the real reference AppServer on an ephemeral port; the test plays the
 * device with a raw JSON-RPC client. A second agent client, over a tapped transport, checks
 * `agentSession/bound`: what it sends, what the server pushes, and an outage it controls.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionEvent } from "@lineup/protocol";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDemoAgent, type AgentClient, type Connection, type DemoAgent, type Transport } from "../src/index.js";
import { connectAgent, nodeWebSocketTransport } from "../src/node/index.js";
import { waitFor } from "./helpers.js";
import { RawDevice } from "./raw-device.js";

let server: AppServerHandle;
let dataDir: string;
let device: RawDevice;
let client: AgentClient;
let agent: DemoAgent;
const agentEvents: SessionEvent[] = [];
let tap: TapTransport;
let watcher: AgentClient | undefined;

/** A transport that records the methods the client sends and the `agentSession/bound` frames it receives, can replay a frame, drop the connection and refuse new ones. */
class TapTransport implements Transport {
  readonly methods: string[] = [];
  readonly boundFrames: string[] = [];
  refuse = false;
  private current: { connection: Connection; listeners: Set<(text: string) => void> } | undefined;
  constructor(private readonly inner: Transport) {}

  async connect(url: string): Promise<Connection> {
    if (this.refuse) throw new Error("refused by the test");
    const connection = await this.inner.connect(url);
    const listeners = new Set<(text: string) => void>();
    connection.onMessage((text) => {
      if ((JSON.parse(text) as { method?: unknown }).method === "agentSession/bound") this.boundFrames.push(text);
      for (const listener of [...listeners]) listener(text);
    });
    const tapped: Connection = {
      send: (text) => {
        const method = (JSON.parse(text) as { method?: unknown }).method;
        if (typeof method === "string") this.methods.push(method);
        connection.send(text);
      },
      onMessage: (listener) => (listeners.add(listener), { dispose: () => void listeners.delete(listener) }),
      onClose: (listener) => connection.onClose(listener),
      close: (code, reason) => connection.close(code, reason),
    };
    this.current = { connection: tapped, listeners };
    return tapped;
  }

  count(method: string): number {
    return this.methods.filter((m) => m === method).length;
  }

  /** Delivers `text` to the client as if the server had sent it again. */
  replay(text: string): void {
    for (const listener of [...(this.current?.listeners ?? [])]) listener(text);
  }

  drop(): void {
    this.current?.connection.close(4000, "dropped by the test");
  }
}

const WHITEBOARD = {
  app_scope: "whiteboard",
  method: "board.create",
  contract_version: "1",
  title: "Create a board",
  description: "Opens a new whiteboard",
  input_schema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
  call_model: "interactive",
};
const POMODORO = {
  app_scope: "pomodoro",
  method: "pomodoro.start",
  contract_version: "1",
  title: "Start a pomodoro",
  description: "Starts a focus timer",
  input_schema: { type: "object", properties: { minutes: { type: "integer", minimum: 1 } }, required: ["minutes"] },
  call_model: "command",
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "lineup-agent-sdk-"));
  server = await startAppServer({ dataDir, port: 0, logger: silentLogger });
  const credentials = server.devCredentials!;
  device = await RawDevice.connect(server.url, credentials.device_token);
  client = await connectAgent({ url: server.url, token: credentials.agent_token, sessionPollMs: 50, reconnect: { initialMs: 20, maxMs: 200 } });
  client.onEvent((e) => agentEvents.push(e));
  agent = runDemoAgent(client);
});

afterAll(async () => {
  await watcher?.close();
  agent?.dispose();
  await client?.close();
  device?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("agentSession/bound on the reference AppServer", () => {
  it("follows a session bound after connecting at once, with the list poll off", async () => {
    tap = new TapTransport(nodeWebSocketTransport());
    // sessionPollMs 20 would list ~10 times below if it applied: the server announces sessions.bound.
    watcher = await connectAgent({ url: server.url, token: server.devCredentials!.agent_token, transport: tap, sessionPollMs: 20, reconnect: { initialMs: 20, maxMs: 200 } });
    const client = watcher;
    await waitFor(() => client.serverFeatures().includes("sessions.bound") && tap.count("agentSession/list") === 1, "the features and the first list");
    await new Promise((r) => setTimeout(r, 50)); // the first list has been answered (it found nothing)
    const started = Date.now();
    const start = device.startSession("s-bound");
    await waitFor(() => client.cursor("s-bound") >= 1, "the bound session's first event", 2_000);
    const elapsed = Date.now() - started;
    await start;
    // Generous for a loaded CI machine; the single list request is what proves there is no poll.
    expect(elapsed).toBeLessThan(1_500);
    expect(tap.boundFrames).toHaveLength(1);
    expect(client.stats().sessionsBound).toBe(1);
    expect(client.session("s-bound")).toMatchObject({ session_id: "s-bound", agent_id: "demo-agent", last_seq: 1 });
    await new Promise((r) => setTimeout(r, 200));
    expect(tap.count("agentSession/list")).toBe(1);
  });

  it("a repeated agentSession/bound for a session it follows changes nothing", async () => {
    const client = watcher!;
    const seen: string[] = [];
    const listening = client.onSession((s) => seen.push(s.session_id));
    const before = { methods: tap.methods.length, stats: client.stats(), sessions: client.sessions(), cursor: client.cursor("s-bound") };
    tap.replay(tap.boundFrames[0]!);
    await new Promise((r) => setTimeout(r, 50));
    listening.dispose();
    expect(seen).toEqual([]);
    expect(tap.methods.length).toBe(before.methods);
    expect(client.stats()).toEqual(before.stats);
    expect(client.sessions()).toEqual(before.sessions);
    expect(client.cursor("s-bound")).toBe(before.cursor);
  });

  it("finds a session bound while it was offline by listing at reconnect", async () => {
    const client = watcher!;
    tap.refuse = true;
    tap.drop();
    await waitFor(() => client.state === "reconnecting", "the watcher to go offline");
    await device.startSession("s-missed"); // the hint reaches the demo agent, not the watcher
    tap.refuse = false;
    await waitFor(() => client.cursor("s-missed") >= 1, "the missed session, listed at reconnect", 5_000);
    expect(tap.boundFrames).toHaveLength(1);
    expect(client.stats().sessionsBound).toBe(1);
    expect(client.stats().connects).toBe(2);
    expect(tap.count("agentSession/list")).toBe(2);
    expect(client.cursor("s-bound")).toBe(1);
  });
});

describe("the demo agent on the reference AppServer", () => {
  it("answers a turn in Markdown", async () => {
    await device.startSession("s-int");
    await device.publishInventory("s-int", 1, [WHITEBOARD, POMODORO]);
    await device.startTurn("s-int", "hello", "t-hello");
    const ended = await device.waitForTurnEnd("s-int", "t-hello");
    expect(ended.kind).toBe("turn.completed");
    const reply = await device.waitForEnvelope("s-int", "lineup.message");
    expect(reply.payload).toMatchObject({ format: "markdown", text: expect.stringContaining("LineUp demo agent") as unknown });
    expect(reply.sender).toEqual({ kind: "agent", id: "demo-agent" });
  });

  it("round-trips an input card", async () => {
    await device.startTurn("s-int", "ask me something", "t-ask");
    const card = await device.waitForEnvelope("s-int", "lineup.interaction.request");
    const payload = card.payload as { interaction_id: string; kind: string };
    expect(payload.kind).toBe("input");
    await device.sendEnvelope("s-int", "lineup.interaction.response", { interaction_id: payload.interaction_id, outcome: "answered", text: "Grace" }, { sender: "user" });
    await device.waitForTurnEnd("s-int", "t-ask");
    const reply = await device.waitForEnvelope("s-int", "lineup.message", 2);
    expect((reply.payload as { text: string }).text).toBe("Nice to meet you, **Grace**! 🙂");
  });

  it("calls a tool that the device answers with receipt → progress → result", async () => {
    await device.startTurn("s-int", "open the whiteboard about ideas", "t-board");
    const invoke = await device.waitForEnvelope("s-int", "lineup.tool.invoke");
    expect(invoke.payload).toMatchObject({ method: "board.create", arguments: { title: "ideas" } });
    expect(invoke.correlation).toMatchObject({ inventory_revision: "1" });
    const correlation = { call_id: invoke.correlation!.call_id!, reply_to: invoke.id };
    await device.sendEnvelope("s-int", "lineup.tool.receipt", { status: "accepted" }, { correlation, appScope: "whiteboard" });
    await device.sendEnvelope("s-int", "lineup.tool.progress", { progress: 0.5, message: "Opening" }, { correlation, appScope: "whiteboard" });
    await device.sendEnvelope("s-int", "lineup.tool.result", { result: { board_id: "b-42" } }, { correlation, appScope: "whiteboard" });
    expect((await device.waitForTurnEnd("s-int", "t-board")).kind).toBe("turn.completed");
    const reply = (await device.waitForEnvelope("s-int", "lineup.message", 3)).payload as { text: string };
    expect(reply.text).toBe("Done — the **whiteboard** is ready:\n\n- **Board id:** b\\-42");
    const progress = device.agentEnvelopes("s-int", "lineup.task.progress").map((e) => e.payload as { state: string; progress?: number });
    expect(progress.some((p) => p.state === "running" && p.progress === 0.5)).toBe(true);
    expect(progress.at(-1)).toMatchObject({ state: "completed" });
  });

  it("shares a file in chunks; the device reads back the same bytes, and the session records artifact.added", async () => {
    const bytes = Uint8Array.from({ length: 450_000 }, (_, i) => (i * 13) % 256);
    const artifact = await client.shareArtifact("s-int", { name: "notes.bin", mime_type: "application/octet-stream", bytes });
    expect(artifact).toMatchObject({ name: "notes.bin", mime_type: "application/octet-stream", size: bytes.byteLength });
    const parts: Uint8Array[] = [];
    for (let offset = 0; ; ) {
      const chunk = (await device.call("artifact/read", { session_id: "s-int", artifact_id: artifact.artifact_id, offset })) as { data: string; eof: boolean };
      const part = Uint8Array.from(Buffer.from(chunk.data, "base64"));
      parts.push(part);
      offset += part.byteLength;
      if (chunk.eof) break;
    }
    expect(parts.length).toBeGreaterThan(1);
    expect(Buffer.concat(parts)).toEqual(Buffer.from(bytes));
    await waitFor(() => agentEvents.some((e) => e.kind === "artifact.added" && (e.data as { artifact?: { artifact_id?: string } }).artifact?.artifact_id === artifact.artifact_id), "artifact.added");
  });

  it("turns a refusal into a helpful reply", async () => {
    await device.startTurn("s-int", "start a pomodoro", "t-timer");
    const invoke = await device.waitForEnvelope("s-int", "lineup.tool.invoke", 2);
    expect(invoke.payload).toMatchObject({ method: "pomodoro.start", arguments: { minutes: 25 } });
    await device.sendEnvelope("s-int", "lineup.tool.error", { code: "app_disabled", message: "pomodoro is disabled" }, { correlation: { call_id: invoke.correlation!.call_id! }, appScope: "pomodoro" });
    expect((await device.waitForTurnEnd("s-int", "t-timer")).kind).toBe("turn.completed");
    const reply = (await device.waitForEnvelope("s-int", "lineup.message", 4)).payload as { text: string };
    expect(reply.text).toContain("installed but disabled");
  });

  it("reconnects after a server restart and resumes with no gap and no duplicate", async () => {
    const port = Number(new URL(server.url).port);
    const before = client.cursor("s-int");
    expect(before).toBeGreaterThan(0);
    device.close();
    await server.close();
    await waitFor(() => client.state === "reconnecting", "the agent to notice");
    server = await startAppServer({ dataDir, port, logger: silentLogger });
    const token = readFileSync(join(dataDir, "dev-credentials.json"), "utf8");
    device = await RawDevice.connect(server.url, (JSON.parse(token) as { device_token: string }).device_token);
    await device.call("agentSession/subscribe", { session_id: "s-int", after_seq: 0 });
    await device.startTurn("s-int", "hello again", "t-again");
    expect((await device.waitForTurnEnd("s-int", "t-again", 10_000)).kind).toBe("turn.completed");
    await waitFor(() => client.cursor("s-int") === Math.max(...device.events.filter((e) => e.session_id === "s-int").map((e) => e.seq)), "the agent to hold every event");
    const seqs = agentEvents.filter((e) => e.session_id === "s-int").map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(client.stats().connects).toBeGreaterThanOrEqual(2);
    expect(client.stats().seqGaps).toBe(0);
    expect(agent.answered).toBe(5);
  });
});
