import type { JsonObject, RuntimeEnvelope } from "@lineup/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { APP_TARGETS, argumentsFor, matchTool, parseIntent, runDemoAgent, sequentialIds, type AgentClient, type DemoAgent } from "../src/index.js";
import { describeResult } from "../src/demo-agent.js";
import { FakeAppServer, tool } from "./fake-app-server.js";
import { connectToFake, waitFor } from "./helpers.js";

const running: { client: AgentClient; agent: DemoAgent }[] = [];
afterEach(async () => {
  for (const { client, agent } of running.splice(0)) {
    agent.dispose();
    await client.close();
  }
});

const WHITEBOARD = tool("whiteboard", "board.create", { title: "Create a whiteboard", input_schema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] } });
const POMODORO = tool("pomodoro", "pomodoro.start", { input_schema: { type: "object", properties: { minutes: { type: "integer", minimum: 1 } }, required: ["minutes"] } });

async function start(server: FakeAppServer, options: Parameters<typeof runDemoAgent>[1] = {}): Promise<{ client: AgentClient; agent: DemoAgent }> {
  const client = await connectToFake(server);
  const agent = runDemoAgent(client, options);
  running.push({ client, agent });
  await waitFor(() => [...server.sessions.keys()].every((id) => client.cursor(id) === server.sessions.get(id)!.session.last_seq), "agent caught up");
  return { client, agent };
}

/** The text of the agent's last Markdown message. */
function lastReply(server: FakeAppServer, sessionId = "s-1"): string {
  const messages = server.agentEnvelopes(sessionId, "lineup.message");
  return (messages.at(-1)?.payload as { text: string } | undefined)?.text ?? "";
}

async function turnEnds(server: FakeAppServer, turnId: string, sessionId = "s-1"): Promise<string> {
  await waitFor(() => ["completed", "failed"].includes(server.turn(sessionId, turnId)?.state ?? ""), `turn ${turnId} to end`);
  return server.turn(sessionId, turnId)!.state;
}

/** Plays the device's Runtime: answers each tool call with `script(invoke)`'s envelopes. */
function deviceAnswers(server: FakeAppServer, script: (invoke: RuntimeEnvelope, n: number) => { type: string; payload: JsonObject }[]): RuntimeEnvelope[] {
  const invokes: RuntimeEnvelope[] = [];
  server.onAgentEnvelope = (sessionId, envelope) => {
    if (envelope.type !== "lineup.tool.invoke") return;
    invokes.push(envelope);
    for (const step of script(envelope, invokes.length)) {
      server.deviceEnvelope(sessionId, step.type, step.payload, { call_id: envelope.correlation!.call_id!, reply_to: envelope.id }, envelope.scope.app_scope);
    }
  };
  return invokes;
}

/** What a started pomodoro reports: its operation and when it started and ends. */
type PomodoroStarted = { operation_id: string; started_at: string; ends_at: string };

/** Plays the device for a pomodoro: each call accepted and its 25-minute timer started; its end is the test's to send. */
function pomodoroDevice(server: FakeAppServer): { started: PomodoroStarted; invokes: RuntimeEnvelope[] } {
  const started: PomodoroStarted = { operation_id: "op-1", started_at: "2026-11-30T09:00:00.000Z", ends_at: "2026-11-30T09:25:00.000Z" };
  const invokes = deviceAnswers(server, () => [
    { type: "lineup.tool.receipt", payload: { status: "accepted" } },
    { type: "lineup.tool.progress", payload: { stage: "started", data: started } },
  ]);
  return { started, invokes };
}

/** A session with Voice Notes whose device shows the person each request (`waiting_for_user`); what they do is the test's to send. */
function voiceWorld(): { server: FakeAppServer; invokes: RuntimeEnvelope[] } {
  const server = new FakeAppServer();
  server.startSession("s-1");
  server.publishInventory("s-1", 1, [tool("voice", "voice.request_recording", { input_schema: { type: "object" } })]);
  const invokes = deviceAnswers(server, () => [
    { type: "lineup.tool.receipt", payload: { status: "accepted" } },
    { type: "lineup.tool.progress", payload: { stage: "waiting_for_user", message: "Waiting for the user to record a voice note" } },
  ]);
  return { server, invokes };
}

describe("the demo agent", () => {
  it("answers a plain turn in Markdown and completes it with the same text", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    await start(server);
    server.startTurn("s-1", "The *weather* is nice", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    const reply = lastReply(server);
    expect(reply).toContain("> The *weather* is nice");
    expect(server.agentEnvelopes("s-1", "lineup.message").at(-1)!.payload).toMatchObject({ format: "markdown" });
    expect(server.turn("s-1", "t-1")!.text).toBe(reply);
  });

  it("answers in the language the person writes in: Chinese for Chinese, English for English", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [WHITEBOARD]);
    deviceAnswers(server, () => [{ type: "lineup.tool.result", payload: { result: {} } }]);
    await start(server);
    server.startTurn("s-1", "你好", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(lastReply(server)).toMatch(/^你好！👋 我是 \*\*LineUp 演示智能体\*\*。\n\n试试这些：/);
    server.startTurn("s-1", "今天天气不错", "t-2");
    expect(await turnEnds(server, "t-2")).toBe("completed");
    expect(lastReply(server)).toContain("你说：\n\n> 今天天气不错\n\n我是没有语言模型的演示智能体");
    server.startTurn("s-1", "打开白板", "t-3");
    expect(await turnEnds(server, "t-3")).toBe("completed");
    expect(lastReply(server)).toBe("完成——**白板**已准备好。");
    server.startTurn("s-1", "选择", "t-4");
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.interaction.request").length === 1, "the card");
    const card = server.agentEnvelopes("s-1", "lineup.interaction.request")[0]!.payload as { interaction_id: string; prompt: string; options: { label: string }[] };
    expect(card.prompt).toBe("你想做什么？");
    expect(card.options.map((o) => o.label)).toEqual(["打开白板", "玩你画我猜", "开始一个番茄钟", "录一段语音"]);
    server.deviceEnvelope("s-1", "lineup.interaction.response", { interaction_id: card.interaction_id, outcome: "cancelled" });
    expect(await turnEnds(server, "t-4")).toBe("completed");
    expect(lastReply(server)).toBe("好的，先不做。");
    // The next message in English is answered in English.
    server.startTurn("s-1", "hello", "t-5");
    expect(await turnEnds(server, "t-5")).toBe("completed");
    expect(lastReply(server)).toMatch(/^Hello! 👋 I'm the \*\*LineUp demo agent\*\*/);
  });

  it("opens the whiteboard through the inventory's tool, reports progress, then the result", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [POMODORO, WHITEBOARD]);
    const invokes = deviceAnswers(server, () => [
      { type: "lineup.tool.receipt", payload: { status: "accepted" } },
      { type: "lineup.tool.progress", payload: { stage: "opening", progress: 0.5, message: "Opening the board" } },
      { type: "lineup.tool.result", payload: { result: { board_id: "b-7" } } },
    ]);
    await start(server);
    server.startTurn("s-1", "Please open the whiteboard about cats", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(invokes).toHaveLength(1);
    expect(invokes[0]!.payload).toMatchObject({ method: "board.create", arguments: { title: "cats" } });
    expect(invokes[0]!.correlation!.inventory_revision).toBe("1");
    const progress = server.agentEnvelopes("s-1", "lineup.task.progress").map((e) => e.payload as { state: string; progress?: number; detail?: string });
    expect(progress.at(-1)).toMatchObject({ state: "completed", progress: 1 });
    expect(progress.some((p) => p.detail === "Opening the board" && p.progress === 0.5)).toBe(true);
    const updates = server.eventsOf("s-1").filter((e) => e.kind === "turn.updated").map((e) => e.data as { progress?: number; label?: string });
    expect(updates.some((u) => u.progress === 0.5)).toBe(true);
    // The status line names the task, not only the step.
    expect(updates.some((u) => u.label === "Create a whiteboard: Opening the board")).toBe(true);
    // A small flat result reads as a list of its fields, the app's text escaped.
    expect(lastReply(server)).toBe("Done — the **whiteboard** is ready:\n\n- **Board id:** b\\-7");
  });

  it("describes a tool's result: a small flat object field by field, anything else as JSON", () => {
    expect(describeResult({ title: "Launch *plan*", item_count: 0, isShared: false })).toBe("\n\n- **Title:** Launch \\*plan\\*\n- **Item count:** 0\n- **Is shared:** false");
    expect(describeResult({})).toBe("");
    expect(describeResult(null)).toBe("");
    const nested = describeResult({ board: { id: "b-1" } });
    expect(nested).toContain("```json");
    expect(nested).toContain('"id": "b-1"');
    expect(describeResult({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 })).toContain("```json");
    expect(describeResult({ text: "two\nlines" })).toContain("```json");
  });

  it("tells how a Runtime-owned operation ended: finished, or stopped early and after how long", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [POMODORO, WHITEBOARD]);
    const operation = (outcome: string, ended: string) => ({ outcome, operation_id: "op-1", started_at: "2026-11-30T09:00:00.000Z", ends_at: "2026-11-30T09:25:00.000Z", ended_at: ended });
    const results = [operation("interrupted", "2026-11-30T09:06:30.000Z"), operation("completed", "2026-11-30T09:25:00.000Z")];
    const invokes = deviceAnswers(server, (_invoke, n) => [
      { type: "lineup.tool.receipt", payload: { status: "accepted" } },
      { type: "lineup.tool.progress", payload: { stage: "started" } },
      { type: "lineup.tool.result", payload: { result: { ...results[n - 1]!, reason: "stopped by the user in the app" } } },
    ]);
    await start(server);
    server.startTurn("s-1", "start a 25 minute pomodoro", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(lastReply(server)).toBe("The **pomodoro timer** was stopped after 6 minutes 30 seconds of the 25 minutes planned. Tell me when you want to start another one.");
    const cards = () => server.agentEnvelopes("s-1", "lineup.task.progress").map((e) => e.payload as { state: string; detail?: string });
    expect(cards().at(-1)).toMatchObject({ state: "cancelled", detail: "stopped by the user in the app" });
    server.startTurn("s-1", "another pomodoro please", "t-2");
    expect(await turnEnds(server, "t-2")).toBe("completed");
    expect(lastReply(server)).toBe("Time's up — your 25 minutes with the **pomodoro timer** is done. Nice focus! 🍅");
    expect(cards().at(-1)).toMatchObject({ state: "completed", progress: 1 });
    expect(invokes.map((i) => (i.payload as { method: string }).method)).toEqual(["pomodoro.start", "pomodoro.start"]);
  });

  it("ends the turn once a pomodoro has started, and says how it went when the Runtime reports its end", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [POMODORO]);
    const { started, invokes } = pomodoroDevice(server);
    await start(server);
    server.startTurn("s-1", "start a 25 minute pomodoro", "t-1");
    // The server runs one turn at a time: the conversation goes on while the timer runs.
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(lastReply(server)).toBe("Started the **pomodoro timer** for 25 minutes. I'll tell you when it's over — meanwhile, ask me anything.");
    server.startTurn("s-1", "hello", "t-2");
    expect(await turnEnds(server, "t-2")).toBe("completed");
    const cards = () => server.agentEnvelopes("s-1", "lineup.task.progress").map((e) => e.payload as { state: string });
    expect(cards().at(-1)).toMatchObject({ state: "running" });

    const invoke = invokes[0]!;
    server.deviceEnvelope("s-1", "lineup.tool.result", { result: { outcome: "completed", ...started, ended_at: started.ends_at } }, { call_id: invoke.correlation!.call_id!, reply_to: invoke.id }, "pomodoro");
    await waitFor(() => lastReply(server).startsWith("Time's up"), "the end of the pomodoro");
    expect(lastReply(server)).toBe("Time's up — your 25 minutes with the **pomodoro timer** is done. Nice focus! 🍅");
    expect(cards().at(-1)).toMatchObject({ state: "completed", progress: 1 });
    expect(invokes).toHaveLength(1);
  });

  it.each([
    ["ends after the restart", false],
    ["ended while the agent was away", true],
  ])("restarted while a pomodoro it started runs on, tells its end once: the timer %s", async (_when, whileAway) => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [POMODORO]);
    const { started, invokes } = pomodoroDevice(server);
    const first = await start(server);
    server.startTurn("s-1", "start a 25 minute pomodoro", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    first.agent.dispose();
    await first.client.close();
    const invoke = invokes[0]!;
    const end = () => server.deviceEnvelope("s-1", "lineup.tool.result", { result: { outcome: "completed", ...started, ended_at: started.ends_at } }, { call_id: invoke.correlation!.call_id!, reply_to: invoke.id }, "pomodoro");
    if (whileAway) end();

    // Each process its own envelope ids, as a real one's are random.
    const restart = async (from: number) => {
      const client = await connectToFake(server, { ids: sequentialIds(from) });
      const agent = runDemoAgent(client);
      running.push({ client, agent });
      return { client, agent };
    };
    const second = await restart(1_000);
    if (!whileAway) {
      await waitFor(() => second.client.cursor("s-1") === server.sessions.get("s-1")!.session.last_seq, "caught up");
      end();
    }
    await waitFor(() => lastReply(server).startsWith("Time's up"), "the end of the pomodoro");
    expect(lastReply(server)).toBe("Time's up — your 25 minutes with the **pomodoro timer** is done. Nice focus! 🍅");
    const cards = server.agentEnvelopes("s-1", "lineup.task.progress").map((e) => e.payload as { state: string });
    expect(cards.at(-1)).toMatchObject({ state: "completed", progress: 1 });
    expect(invokes).toHaveLength(1);

    // Restarted once more: the end was told, and is not told again.
    second.agent.dispose();
    await second.client.close();
    const messages = server.agentEnvelopes("s-1", "lineup.message").length;
    const tasks = server.agentEnvelopes("s-1", "lineup.task.progress").length;
    const third = await restart(2_000);
    server.startTurn("s-1", "hello", "t-2");
    expect(await turnEnds(server, "t-2")).toBe("completed");
    await third.agent.idle();
    expect(server.agentEnvelopes("s-1", "lineup.message")).toHaveLength(messages + 1);
    // Nor is the pomodoro's task closed again (it is not followed at all).
    expect(server.agentEnvelopes("s-1", "lineup.task.progress")).toHaveLength(tasks);
    expect(server.agentEnvelopes("s-1", "lineup.message").filter((e) => (e.payload as { text: string }).text.startsWith("Time's up"))).toHaveLength(1);
  });

  it("ends the turn once Voice Notes shows the person its request, and says what came of it: a note, or no note", async () => {
    const { server, invokes } = voiceWorld();
    const answer = (n: number, type: string, payload: JsonObject) => server.deviceEnvelope("s-1", type, payload, { call_id: invokes[n]!.correlation!.call_id!, reply_to: invokes[n]!.id }, "voice");
    await start(server);
    server.startTurn("s-1", "record a voice note", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(lastReply(server)).toBe("I've asked for it in the **Voice Notes** app — answer there whenever you're ready, and I'll tell you when I have it. Meanwhile, ask me anything.");
    const cards = () => server.agentEnvelopes("s-1", "lineup.task.progress").map((e) => e.payload as { state: string; detail?: string });
    answer(0, "lineup.tool.progress", { stage: "recording", message: "The person is recording" });
    await waitFor(() => cards().at(-1)?.detail === "The person is recording", "the recording on the task");
    answer(0, "lineup.tool.result", { result: { outcome: "recorded", artifact_id: "art-7", duration_ms: 12_400, mime_type: "audio/webm", size: 20_480 } });
    await waitFor(() => lastReply(server).startsWith("Got your"), "the note");
    expect(lastReply(server)).toBe("Got your **voice note**: 12 seconds of audio (20.0 KB, audio/webm), saved in this conversation as `art-7`. Ask me for another one any time.");
    expect(cards().at(-1)).toMatchObject({ state: "completed" });

    // "Not now": the app ends the request as the person's cancellation.
    server.startTurn("s-1", "record another voice note", "t-2");
    expect(await turnEnds(server, "t-2")).toBe("completed");
    answer(1, "lineup.tool.error", { code: "cancelled_by_user", message: "the person chose not now" });
    await waitFor(() => lastReply(server).startsWith("OK — you cancelled"), "the refusal said");
    expect(cards().at(-1)).toMatchObject({ state: "cancelled" });
  });

  it("restarted while Voice Notes waits for the person, still says what came of it when they record, once", async () => {
    const { server, invokes } = voiceWorld();
    const first = await start(server);
    server.startTurn("s-1", "record a voice note", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    // The process dies while the person has the request in front of them.
    await first.client.close();
    const client = await connectToFake(server, { ids: sequentialIds(1_000) });
    running.push({ client, agent: runDemoAgent(client) });
    await waitFor(() => client.cursor("s-1") === server.sessions.get("s-1")!.session.last_seq, "caught up");
    const correlation = { call_id: invokes[0]!.correlation!.call_id!, reply_to: invokes[0]!.id };
    server.deviceEnvelope("s-1", "lineup.tool.progress", { stage: "recording", message: "The person is recording" }, correlation, "voice");
    server.deviceEnvelope("s-1", "lineup.tool.result", { result: { outcome: "recorded", artifact_id: "art-7", duration_ms: 12_400, mime_type: "audio/webm", size: 20_480 } }, correlation, "voice");
    await waitFor(() => lastReply(server).startsWith("Got your"), "the note");
    expect(lastReply(server)).toBe("Got your **voice note**: 12 seconds of audio (20.0 KB, audio/webm), saved in this conversation as `art-7`. Ask me for another one any time.");
    const cards = server.agentEnvelopes("s-1", "lineup.task.progress").map((e) => e.payload as { state: string; detail?: string });
    // The new process shows what happened after it took over, not what the task already showed.
    expect(cards.filter((c) => c.detail === "The person is recording")).toHaveLength(1);
    expect(cards.filter((c) => c.detail === "Waiting for the user to record a voice note")).toHaveLength(1);
    expect(cards.at(-1)).toMatchObject({ state: "completed" });
    expect(invokes).toHaveLength(1);
  });

  it.each([
    ["after the restart", false],
    ["while the agent was away", true],
  ])("restarted in the middle of a turn, follows the call it already made (its result comes %s) and makes none twice", async (_when, whileAway) => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const VOICE = tool("voice", "voice.request_recording", { input_schema: { type: "object" } });
    server.publishInventory("s-1", 1, [VOICE]);
    const recorded = { outcome: "recorded", artifact_id: "art-1", duration_ms: 5_000, mime_type: "audio/webm", size: 8_192 };
    // The device accepts the call and holds it: the person is recording.
    const invokes = deviceAnswers(server, () => [{ type: "lineup.tool.receipt", payload: { status: "accepted" } }]);
    const first = await start(server);
    server.startTurn("s-1", "record a voice note", "t-1");
    await waitFor(() => invokes.length === 1, "the first agent's call");
    first.agent.dispose();
    await first.client.close();
    const invoke = invokes[0]!;
    expect(invoke.correlation?.call_id).toBe("s-1.t-1.call-1");
    const finish = () => server.deviceEnvelope("s-1", "lineup.tool.result", { result: recorded }, { call_id: invoke.correlation!.call_id!, reply_to: invoke.id }, "voice");
    if (whileAway) finish();

    // The restarted process (its own envelope ids, as a real one's are random).
    const client = await connectToFake(server, { ids: sequentialIds(1_000) });
    running.push({ client, agent: runDemoAgent(client) });
    if (!whileAway) {
      await waitFor(() => client.toolCalls("s-1").length === 1, "the restarted agent's view of its call");
      finish();
    }
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(invokes).toHaveLength(1);
    expect(lastReply(server)).toContain("Got your **voice note**");
    // Nothing it had said was said again: one "Calling…" task card, one reply, every envelope once.
    const ids = server.agentEnvelopes("s-1").map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(server.agentEnvelopes("s-1", "lineup.task.progress").filter((e) => (e.payload as { detail?: string }).detail?.startsWith("Calling"))).toHaveLength(1);
    expect(server.agentEnvelopes("s-1", "lineup.message")).toHaveLength(1);
    expect(server.agentEnvelopes("s-1", "lineup.task.progress").map((e) => e.id).slice(0, 2)).toEqual(["s-1.t-1.msg-1", "s-1.t-1.msg-2"]);
  });

  it("restarted while its card waits for the person, shows the card once and goes on with the answer given to it", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const first = await start(server);
    server.startTurn("s-1", "ask me something", "t-1");
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.interaction.request").length === 1, "the card");
    const card = server.agentEnvelopes("s-1", "lineup.interaction.request")[0]!.payload as { interaction_id: string };
    first.agent.dispose();
    await first.client.close();
    // The person answers while the agent is away.
    server.deviceEnvelope("s-1", "lineup.interaction.response", { interaction_id: card.interaction_id, outcome: "answered", text: "Grace" });

    const client = await connectToFake(server, { ids: sequentialIds(1_000) });
    running.push({ client, agent: runDemoAgent(client) });
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(lastReply(server)).toBe("Nice to meet you, **Grace**! 🙂");
    expect(server.agentEnvelopes("s-1", "lineup.interaction.request")).toHaveLength(1);
    expect(server.agentEnvelopes("s-1", "lineup.message")).toHaveLength(1);
  });

  it("says what it got from a voice note in words, not as JSON", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const VOICE = tool("voice", "voice.request_recording", { input_schema: { type: "object", properties: { prompt: { type: "string" }, max_seconds: { type: "integer", minimum: 1 } } } });
    server.publishInventory("s-1", 1, [VOICE]);
    const invokes = deviceAnswers(server, () => [
      { type: "lineup.tool.receipt", payload: { status: "accepted" } },
      { type: "lineup.tool.result", payload: { result: { outcome: "recorded", artifact_id: "art-7", duration_ms: 12_400, mime_type: "audio/webm", size: 20_480 } } },
    ]);
    await start(server);
    server.startTurn("s-1", "record a voice note", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(invokes.map((i) => (i.payload as { method: string }).method)).toEqual(["voice.request_recording"]);
    expect(lastReply(server)).toBe("Got your **voice note**: 12 seconds of audio (20.0 KB, audio/webm), saved in this conversation as `art-7`. Ask me for another one any time.");
  });

  it("says how to install an app that is not in the inventory, without calling anything", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [POMODORO]);
    const invokes = deviceAnswers(server, () => []);
    await start(server);
    server.startTurn("s-1", "let's record a voice note", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(invokes).toHaveLength(0);
    expect(lastReply(server)).toContain("isn't installed");
    expect(lastReply(server)).toContain("App Registry");
  });

  it.each([
    ["tool_not_visible", "App Registry"],
    ["app_disabled", "Enable it in **Apps**"],
    ["cancelled_by_user", "you cancelled"],
    ["permission_denied", "permission"],
  ])("turns the Runtime's %s into a helpful reply", async (code, phrase) => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [WHITEBOARD]);
    deviceAnswers(server, () => [{ type: "lineup.tool.error", payload: { code, message: "refused" } }]);
    await start(server);
    server.startTurn("s-1", "open the whiteboard", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(lastReply(server)).toContain(phrase);
    const last = server.agentEnvelopes("s-1", "lineup.task.progress").at(-1)!.payload as { state: string };
    expect(last.state).toBe(code === "cancelled_by_user" ? "cancelled" : "failed");
  });

  it("refreshes the inventory and retries once after stale_inventory_revision", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [WHITEBOARD]);
    const invokes = deviceAnswers(server, (invoke, n) => {
      if (n === 1) {
        // The Runtime moved on to revision 2 before the call arrived.
        server.publishInventory("s-1", 2, [WHITEBOARD, POMODORO]);
        return [{ type: "lineup.tool.error", payload: { code: "stale_inventory_revision", message: "revision 1 is stale" } }];
      }
      return [{ type: "lineup.tool.result", payload: { result: { ok: true } } }];
    });
    await start(server);
    server.startTurn("s-1", "open the whiteboard", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(invokes.map((i) => i.correlation!.inventory_revision)).toEqual(["1", "2"]);
    expect(lastReply(server)).toContain("Done");
  });

  it("gives up on a stale revision after one retry, with a reply", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [WHITEBOARD]);
    const invokes = deviceAnswers(server, () => [{ type: "lineup.tool.error", payload: { code: "stale_inventory_revision", message: "stale" } }]);
    await start(server);
    server.startTurn("s-1", "open the whiteboard", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(invokes).toHaveLength(2);
    expect(lastReply(server)).toContain("changed while I was calling");
  });

  it("reports a tool that never answers as a timeout", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [WHITEBOARD]);
    deviceAnswers(server, () => [{ type: "lineup.tool.receipt", payload: { status: "accepted" } }]);
    await start(server, { toolTimeoutMs: 40 });
    server.startTurn("s-1", "open the whiteboard", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(lastReply(server)).toContain("didn't answer in time");
  });

  it("shows a choice card and starts the app the user picked", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [WHITEBOARD, POMODORO]);
    const invokes = deviceAnswers(server, () => [{ type: "lineup.tool.result", payload: { result: { timer_id: "p1" } } }]);
    await start(server);
    server.startTurn("s-1", "let me choose", "t-1");
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.interaction.request").length === 1, "the card");
    const card = server.agentEnvelopes("s-1", "lineup.interaction.request")[0]!.payload as { interaction_id: string; kind: string; options: { id: string }[] };
    expect(card.kind).toBe("choice");
    expect(card.options.map((o) => o.id)).toEqual(["whiteboard", "draw-and-guess", "pomodoro", "voice"]);
    await waitFor(() => server.eventsOf("s-1").some((e) => e.kind === "turn.updated" && (e.data as { status?: string }).status === "waiting_for_user"), "waiting status");
    server.deviceEnvelope("s-1", "lineup.interaction.response", { interaction_id: card.interaction_id, outcome: "answered", choice_ids: ["pomodoro"] });
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(invokes[0]!.payload).toMatchObject({ method: "pomodoro.start", arguments: { minutes: 25 } });
    expect(lastReply(server)).toContain("pomodoro timer");
  });

  it("asks for input and uses the answer, escaping Markdown", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    await start(server);
    server.startTurn("s-1", "ask me something", "t-1");
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.interaction.request").length === 1, "the card");
    const card = server.agentEnvelopes("s-1", "lineup.interaction.request")[0]!.payload as { interaction_id: string; kind: string };
    expect(card.kind).toBe("input");
    server.deviceEnvelope("s-1", "lineup.interaction.response", { interaction_id: card.interaction_id, outcome: "answered", text: "Ada *L*" });
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(lastReply(server)).toBe("Nice to meet you, **Ada \\*L\\***! 🙂");
  });

  it("drives an app it has no rule for from the inventory's declarations: the tool the person names, enums and defaults filled, the rest asked for", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const PLANT = tool("plant-care", "plants.water", {
      title: "Water a plant",
      input_schema: {
        type: "object",
        required: ["plant", "amount_ml", "mode", "note"],
        properties: { plant: { type: "string", title: "Which plant" }, amount_ml: { type: "integer", description: "How much water, in ml" }, mode: { enum: ["mist", "soak"] }, note: { type: "string", default: "from chat" } },
      },
    });
    const OPEN = tool("plant-care", "plants.open", { title: "Plant diary", input_schema: { type: "object", properties: {} } });
    server.publishInventory("s-1", 1, [WHITEBOARD, OPEN, PLANT]);
    const invokes = deviceAnswers(server, () => [
      { type: "lineup.tool.receipt", payload: { status: "accepted" } },
      { type: "lineup.tool.result", payload: { result: { watered: true } } },
    ]);
    await start(server);
    // "open <app>": the app's opening tool, by the app's name.
    server.startTurn("s-1", "open plant care", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(invokes.map((i) => i.payload)).toMatchObject([{ method: "plants.open", arguments: {} }]);
    // A tool named by its title: the named enum value and the default filled; each other required input asked for in a card.
    server.startTurn("s-1", "water a plant, soak it", "t-2");
    for (const [prompt, answer] of [
      ["Water a plant: Which plant?", "Fern"],
      ["Water a plant: How much water, in ml?", "250"],
    ] as const) {
      await waitFor(() => server.agentEnvelopes("s-1", "lineup.interaction.request").some((e) => (e.payload as { prompt: string }).prompt === prompt), prompt);
      const card = server.agentEnvelopes("s-1", "lineup.interaction.request").find((e) => (e.payload as { prompt: string }).prompt === prompt)!.payload as { interaction_id: string; kind: string };
      expect(card.kind).toBe("input");
      server.deviceEnvelope("s-1", "lineup.interaction.response", { interaction_id: card.interaction_id, outcome: "answered", text: answer });
    }
    expect(await turnEnds(server, "t-2")).toBe("completed");
    expect(invokes[1]!.payload).toMatchObject({ method: "plants.water", arguments: { plant: "Fern", amount_ml: 250, mode: "soak", note: "from chat" } });
    expect(lastReply(server)).toBe('`plants.water` answered:\n\n> {"watered":true}');
    // A number asked for and not given: nothing is called.
    server.startTurn("s-1", "water a plant", "t-3");
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.interaction.request").length === 3, "the third card");
    const plant = server.agentEnvelopes("s-1", "lineup.interaction.request")[2]!.payload as { interaction_id: string };
    server.deviceEnvelope("s-1", "lineup.interaction.response", { interaction_id: plant.interaction_id, outcome: "answered", text: "Fern" });
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.interaction.request").length === 4, "the fourth card");
    const amount = server.agentEnvelopes("s-1", "lineup.interaction.request")[3]!.payload as { interaction_id: string };
    server.deviceEnvelope("s-1", "lineup.interaction.response", { interaction_id: amount.interaction_id, outcome: "answered", text: "lots" });
    expect(await turnEnds(server, "t-3")).toBe("completed");
    expect(invokes).toHaveLength(2);
    expect(lastReply(server)).toContain("That is not a number");
    // Words that name no declared app or tool are still echoed.
    server.startTurn("s-1", "open the fridge", "t-4");
    expect(await turnEnds(server, "t-4")).toBe("completed");
    expect(lastReply(server)).toMatch(/^You said:/);
  });

  it("a declined confirm card changes nothing", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    await start(server);
    server.startTurn("s-1", "please confirm", "t-1");
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.interaction.request").length === 1, "the card");
    const card = server.agentEnvelopes("s-1", "lineup.interaction.request")[0]!.payload as { interaction_id: string; kind: string };
    expect(card.kind).toBe("confirm");
    server.deviceEnvelope("s-1", "lineup.interaction.response", { interaction_id: card.interaction_id, outcome: "answered", confirmed: false });
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(lastReply(server)).toBe("OK, I won't. Nothing was changed.");
  });

  it("stops quietly when the device cancels the turn while a card waits", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const { agent } = await start(server);
    server.startTurn("s-1", "ask me something", "t-1");
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.interaction.request").length === 1, "the card");
    server.cancelTurn("s-1", "t-1");
    await agent.idle();
    expect(server.turn("s-1", "t-1")!.state).toBe("cancelled");
    expect(server.agentEnvelopes("s-1", "lineup.message")).toHaveLength(0);
  });

  it("stops working on a turn the device cancels in the middle of a tool call: no completion, no more calls, no cancel of its own", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [POMODORO, WHITEBOARD]);
    // The device accepts the call and the app works on it; it never finishes.
    const invokes = deviceAnswers(server, () => [
      { type: "lineup.tool.receipt", payload: { status: "accepted" } },
      { type: "lineup.tool.progress", payload: { stage: "opening", progress: 0.2, message: "Opening the board" } },
    ]);
    const { agent } = await start(server);
    server.startTurn("s-1", "Please open the whiteboard about cats", "t-1");
    await waitFor(() => server.eventsOf("s-1").some((e) => e.kind === "turn.updated" && (e.data as { progress?: number }).progress === 0.2), "the call under way");
    const requestsBefore = server.requests.length;
    server.cancelTurn("s-1", "t-1");
    await agent.idle();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.turn("s-1", "t-1")!.state).toBe("cancelled");
    expect(invokes).toHaveLength(1);
    expect(server.requestCount("agentSession/turn/complete")).toBe(0);
    // The Runtime ends the turn's calls itself: the agent sends no lineup.tool.cancel, and says nothing more.
    expect(server.agentEnvelopes("s-1", "lineup.tool.cancel")).toEqual([]);
    expect(server.agentEnvelopes("s-1", "lineup.message")).toEqual([]);
    const after = server.requests.slice(requestsBefore).filter((r) => r.method !== "agentSession/list" && r.method !== "capability/list");
    expect(after.map((r) => r.method)).toEqual([]);
    expect(agent.answered).toBe(0);
  });

  it("a timer that started in the turn runs on after a cancel that came before the turn completed: its end is still told", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [POMODORO]);
    const { started, invokes } = pomodoroDevice(server);
    // The device cancels the turn the moment the timer has started, before the agent completes it.
    const original = server.onAgentEnvelope;
    server.onAgentEnvelope = (sessionId, envelope) => {
      original(sessionId, envelope);
      if (envelope.type === "lineup.tool.invoke") queueMicrotask(() => server.cancelTurn(sessionId, "t-1"));
    };
    const { agent } = await start(server);
    server.startTurn("s-1", "start a 25 minute pomodoro", "t-1");
    await waitFor(() => server.turn("s-1", "t-1")!.state === "cancelled", "the cancel");
    await agent.idle();
    expect(invokes).toHaveLength(1);
    expect(server.agentEnvelopes("s-1", "lineup.tool.cancel")).toEqual([]);
    // The Runtime keeps a running timer through a cancel of its turn; its result comes, and the agent tells it.
    server.deviceEnvelope("s-1", "lineup.tool.result", { result: { outcome: "completed", ...started, ended_at: started.ends_at } }, { call_id: invokes[0]!.correlation!.call_id! }, "pomodoro");
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.message").length > 0, "the timer's end told");
    expect(lastReply(server)).toMatch(/pomodoro/i);
  });

  it("answers turns in many sessions, including ones bound after it started", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    const { agent } = await start(server);
    server.startSession("s-2");
    server.startTurn("s-1", "hello", "t-1");
    await waitFor(() => server.sessions.get("s-2") !== undefined, "s-2");
    server.startTurn("s-2", "help", "t-2");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(await turnEnds(server, "t-2", "s-2")).toBe("completed");
    expect(lastReply(server, "s-2")).toContain("No app has offered me any tools");
    expect(agent.answered).toBe(2);
  });
});

describe("intents and tool matching", () => {
  it("recognises the requests of the product's apps in English and Chinese", () => {
    expect(parseIntent("Open the whiteboard")).toEqual({ kind: "open_app", target: "whiteboard" });
    expect(parseIntent("let's play draw-and-guess")).toEqual({ kind: "open_app", target: "draw-and-guess" });
    expect(parseIntent("Draw and guess, please")).toEqual({ kind: "open_app", target: "draw-and-guess" });
    expect(parseIntent("start a pomodoro")).toEqual({ kind: "open_app", target: "pomodoro" });
    expect(parseIntent("record a voice note")).toEqual({ kind: "open_app", target: "voice" });
    expect(parseIntent("打开白板")).toEqual({ kind: "open_app", target: "whiteboard" });
    expect(parseIntent("开始番茄钟")).toEqual({ kind: "open_app", target: "pomodoro" });
    expect(parseIntent("我想录音")).toEqual({ kind: "open_app", target: "voice" });
    expect(parseIntent("can you ask me something")).toEqual({ kind: "ask" });
    expect(parseIntent("choose one")).toEqual({ kind: "choose" });
    expect(parseIntent("confirm it")).toEqual({ kind: "confirm" });
    expect(parseIntent("hello")).toEqual({ kind: "greet" });
    expect(parseIntent("what's the capital of France")).toEqual({ kind: "echo" });
  });

  it("matches by app scope or method prefix and prefers the right verb", () => {
    const tools = [tool("whiteboard", "board.clear"), tool("whiteboard", "board.create"), tool("draw-and-guess", "game.guess"), tool("draw-and-guess", "game.start_round"), tool("voice", "voice.request_recording")];
    expect(matchTool(tools, APP_TARGETS.whiteboard)?.method).toBe("board.create");
    expect(matchTool(tools, APP_TARGETS["draw-and-guess"])?.method).toBe("game.start_round");
    expect(matchTool(tools, APP_TARGETS.voice)?.method).toBe("voice.request_recording");
    expect(matchTool(tools, APP_TARGETS.pomodoro)).toBeUndefined();
    expect(matchTool([tool("focus", "timer.start")], APP_TARGETS.pomodoro)?.method).toBe("timer.start");
  });

  it("fills required arguments from the schema and the user's words", () => {
    expect(argumentsFor(POMODORO, "start a 15 minute pomodoro", APP_TARGETS.pomodoro)).toEqual({ minutes: 15 });
    const seconds = tool("pomodoro", "pomodoro.start", { input_schema: { type: "object", properties: { duration_seconds: { type: "integer" }, label: { type: "string" } }, required: ["duration_seconds"] } });
    expect(argumentsFor(seconds, "pomodoro for 10 min", APP_TARGETS.pomodoro)).toEqual({ duration_seconds: 600 });
    const withEnum = tool("voice", "voice.request_recording", { input_schema: { type: "object", properties: { quality: { enum: ["low", "high"] }, max_seconds: { type: "integer", default: 60 } }, required: ["quality", "max_seconds"] } });
    expect(argumentsFor(withEnum, "record a voice note", APP_TARGETS.voice)).toEqual({ quality: "low", max_seconds: 60 });
    // An optional prompt is filled only when the person said what the note is about.
    const voice = tool("voice", "voice.request_recording", { input_schema: { type: "object", properties: { prompt: { type: "string", maxLength: 200 }, max_seconds: { type: "integer" } } } });
    expect(argumentsFor(voice, "record a voice note", APP_TARGETS.voice)).toEqual({});
    expect(argumentsFor(voice, "record a voice note about the trip to Lisbon", APP_TARGETS.voice)).toEqual({ prompt: "Tell me about the trip to Lisbon" });
  });
});

describe("the demo agent and app events (spec 8.2)", () => {
  const NOTE = { artifact_id: "art-9", name: "voice-note-20261130-100000.webm", duration_ms: 65_000, mime_type: "audio/webm", size: 20_480 };

  it("says a word about a voice note the person recorded on their own, once, and only for live events it understands", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    // Before the agent was there: history, not answered.
    server.deviceAppEvent("s-1", "voice", "note.recorded", NOTE);
    await start(server);
    server.deviceAppEvent("s-1", "voice", "note.recorded", NOTE);
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.message").length === 1, "the reply");
    expect(lastReply(server)).toBe(
      "🎙 I see you recorded a **voice note** of your own: 1 minute 5 seconds (20.0 KB, audio/webm), kept in this conversation as *voice\\-note\\-20261130\\-100000\\.webm*. I can't listen to audio — I'm a demo agent without a model — but it's there whenever you want to share it.",
    );
    // Not understood: another app's event, another event name, data that is not a note. No reply, no turn.
    server.deviceAppEvent("s-1", "whiteboard", "stroke.added", NOTE);
    server.deviceAppEvent("s-1", "voice", "note.deleted", NOTE);
    server.deviceAppEvent("s-1", "voice", "note.recorded", { name: "x" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.agentEnvelopes("s-1", "lineup.message")).toHaveLength(1);
  });
});
