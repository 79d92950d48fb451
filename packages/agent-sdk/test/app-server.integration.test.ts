/**
 * The demo agent against the real reference AppServer on an ephemeral port; the test plays the
 * device with a raw JSON-RPC client.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionEvent } from "@lineup/protocol";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDemoAgent, type AgentClient, type DemoAgent } from "../src/index.js";
import { connectAgent } from "../src/node/index.js";
import { waitFor } from "./helpers.js";
import { RawDevice } from "./raw-device.js";

let server: AppServerHandle;
let dataDir: string;
let device: RawDevice;
let client: AgentClient;
let agent: DemoAgent;
const agentEvents: SessionEvent[] = [];

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
  agent?.dispose();
  await client?.close();
  device?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
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
    expect(reply.text).toContain("Done — the **whiteboard** is ready.");
    expect(reply.text).toContain("b-42");
    const progress = device.agentEnvelopes("s-int", "lineup.task.progress").map((e) => e.payload as { state: string; progress?: number });
    expect(progress.some((p) => p.state === "running" && p.progress === 0.5)).toBe(true);
    expect(progress.at(-1)).toMatchObject({ state: "completed" });
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
