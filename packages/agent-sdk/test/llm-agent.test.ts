import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { JsonObject, TaskTurnOptions } from "@lineup/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { llmConfigFromEnv, runLlmAgent, sequentialIds, toFunctionTools, type AgentClient, type ChatCompletionsConfig, type LlmAgent } from "../src/index.js";
import { FakeAppServer, tool } from "./fake-app-server.js";
import { connectToFake, waitFor } from "./helpers.js";

interface Recorded {
  readonly headers: IncomingHttpHeaders;
  readonly body: {
    model: string;
    stream?: boolean;
    messages: { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
    tools?: { function: { name: string; parameters: unknown } }[];
    response_format?: unknown;
  };
  /** When it arrived (ms since the epoch). */
  readonly at: number;
  /** Set when the client hung up before the answer ended. */
  hungUp?: boolean;
}

/**
 * A scripted answer: JSON (`body`, with a status and headers), or a stream — `sse` is written one string
 * per write, `gapMs` apart (each may cut an event anywhere), and when `hold` the response then stays open.
 */
type Scripted = { status?: number; headers?: Record<string, string>; body: unknown } | { sse: readonly string[]; gapMs?: number; hold?: boolean };

/** A fake OpenAI-compatible endpoint: answers each POST /v1/chat/completions with the next scripted reply. */
async function fakeLlm(script: ((request: Recorded) => Scripted)[]): Promise<{ baseUrl: string; requests: Recorded[]; server: Server }> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404).end();
        return;
      }
      const recorded: Recorded = { headers: req.headers, body: JSON.parse(text) as Recorded["body"], at: Date.now() };
      requests.push(recorded);
      const step = script[requests.length - 1] ?? ((): Scripted => ({ status: 500, body: { error: "script exhausted" } }));
      const answer = step(recorded);
      if (!("sse" in answer)) {
        res.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers }).end(JSON.stringify(answer.body));
        return;
      }
      res.on("close", () => {
        if (!res.writableEnded) recorded.hungUp = true;
      });
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      void (async () => {
        for (const piece of answer.sse) {
          if (res.destroyed) return;
          res.write(piece);
          await new Promise((resolve) => setTimeout(resolve, answer.gapMs ?? 0));
        }
        if (answer.hold !== true) res.end();
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  servers.push(server);
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests, server };
}

const servers: Server[] = [];
const running: { client: AgentClient; agent: LlmAgent }[] = [];
afterEach(async () => {
  for (const { client, agent } of running.splice(0)) {
    agent.dispose();
    await client.close();
  }
  await Promise.all(
    servers.splice(0).map((s) => {
      s.closeAllConnections();
      return new Promise((resolve) => s.close(resolve));
    }),
  );
});

const text = (content: string) => () => ({ body: { id: "c", object: "chat.completion", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }] } });
const toolCall = (name: string, args: object, id = "call_1") => () => ({
  body: { choices: [{ index: 0, finish_reason: "tool_calls", message: { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }] } }] },
});

const sseEvent = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
const chunkOf = (delta: object, finish: string | null = null) => ({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });
/** The model's answer streamed as `pieces` of text, one event per piece, then the end. */
const streamText =
  (pieces: readonly string[], gapMs = 0, more: Partial<{ hold: boolean }> = {}) =>
  (): Scripted => ({
    sse: [sseEvent(chunkOf({ role: "assistant", content: "" })), ...pieces.map((p) => sseEvent(chunkOf({ content: p }))), ...(more.hold === true ? [] : [sseEvent(chunkOf({}, "stop")), "data: [DONE]\n\n"])],
    gapMs,
    ...more,
  });

const WHITEBOARD = tool("whiteboard", "board.create", { title: "Create a board", input_schema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] } });

async function setup(baseUrl: string, llm: Partial<ChatCompletionsConfig> = {}): Promise<{ server: FakeAppServer; client: AgentClient }> {
  const server = new FakeAppServer();
  server.startSession("s-1");
  server.publishInventory("s-1", 4, [WHITEBOARD]);
  const client = await connectToFake(server);
  const agent = runLlmAgent(client, { llm: { baseUrl, apiKey: "sk-test", model: "test-model", ...llm } });
  running.push({ client, agent });
  await waitFor(() => client.inventory("s-1")?.revision === 4, "inventory");
  return { server, client };
}

async function turnEnds(server: FakeAppServer, turnId: string): Promise<string> {
  await waitFor(() => ["completed", "failed"].includes(server.turn("s-1", turnId)?.state ?? ""), `turn ${turnId}`);
  return server.turn("s-1", turnId)!.state;
}

describe("the LLM adapter", () => {
  it("offers the inventory as function tools, relays the model's tool call, and returns its answer", async () => {
    const llm = await fakeLlm([toolCall("whiteboard__board_create", { title: "cat" }), text("Your **cat** board is ready.")]);
    const { server } = await setup(llm.baseUrl);
    server.onAgentEnvelope = (sessionId, envelope) => {
      if (envelope.type !== "lineup.tool.invoke") return;
      const correlation = { call_id: envelope.correlation!.call_id! };
      server.deviceEnvelope(sessionId, "lineup.tool.progress", { progress: 0.3, message: "drawing" }, correlation, "whiteboard");
      server.deviceEnvelope(sessionId, "lineup.tool.result", { result: { board_id: "b-1" } }, correlation, "whiteboard");
    };
    server.startTurn("s-1", "Draw a cat on the whiteboard", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");

    expect(llm.requests).toHaveLength(2);
    const first = llm.requests[0]!;
    expect(first.headers["authorization"]).toBe("Bearer sk-test");
    expect(first.body.model).toBe("test-model");
    // Asked for a stream; this endpoint answers JSON anyway, which is read as before.
    expect(first.body.stream).toBe(true);
    expect(first.body.messages[0]!.role).toBe("system");
    expect(first.body.messages.at(-1)).toEqual({ role: "user", content: "Draw a cat on the whiteboard" });
    expect(first.body.tools).toEqual([
      { type: "function", function: { name: "whiteboard__board_create", description: expect.stringContaining("Create a board") as unknown, parameters: WHITEBOARD.input_schema } },
    ]);

    const invoke = server.agentEnvelopes("s-1", "lineup.tool.invoke")[0]!;
    expect(invoke.payload).toMatchObject({ method: "board.create", arguments: { title: "cat" } });
    expect(invoke.correlation!.inventory_revision).toBe("4");

    const second = llm.requests[1]!.body.messages;
    expect(second.at(-2)).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_1" }] });
    expect(second.at(-1)).toEqual({ role: "tool", tool_call_id: "call_1", content: JSON.stringify({ ok: true, result: { board_id: "b-1" } }) });

    const reply = server.agentEnvelopes("s-1", "lineup.message").at(-1)!.payload;
    expect(reply).toEqual({ format: "markdown", text: "Your **cat** board is ready." });
    expect(server.turn("s-1", "t-1")!.text).toBe("Your **cat** board is ready.");
    expect(server.eventsOf("s-1").some((e) => e.kind === "turn.updated" && (e.data as { progress?: number }).progress === 0.3)).toBe(true);
  });

  it("ends the turn once a Runtime-owned timer has started, and asks the model what to say when the Runtime reports its end", async () => {
    const llm = await fakeLlm([toolCall("pomodoro__pomodoro_start", { minutes: 25 }), text("Your 25-minute focus session is running."), text("Time's up — well done!")]);
    const POMODORO = tool("pomodoro", "pomodoro.start", { title: "Start a pomodoro", input_schema: { type: "object", properties: { minutes: { type: "integer" } } } });
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [POMODORO]);
    const client = await connectToFake(server);
    running.push({ client, agent: runLlmAgent(client, { llm: { baseUrl: llm.baseUrl, apiKey: "sk-test", model: "test-model" } }) });
    await waitFor(() => client.inventory("s-1")?.revision === 1, "inventory");
    const started = { operation_id: "op-1", started_at: "2026-12-01T09:00:00.000Z", ends_at: "2026-12-01T09:25:00.000Z" };
    let callId = "";
    server.onAgentEnvelope = (sessionId, envelope) => {
      if (envelope.type !== "lineup.tool.invoke") return;
      callId = envelope.correlation!.call_id!;
      server.deviceEnvelope(sessionId, "lineup.tool.receipt", { status: "accepted" }, { call_id: callId }, "pomodoro");
      server.deviceEnvelope(sessionId, "lineup.tool.progress", { stage: "started", data: started }, { call_id: callId }, "pomodoro");
    };
    server.startTurn("s-1", "start a pomodoro", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(llm.requests[1]!.body.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_1", content: JSON.stringify({ ok: true, status: "started", ...{ started_at: started.started_at, ends_at: started.ends_at }, note: "It runs on by itself; you will be told how it ended." }) });
    expect(server.turn("s-1", "t-1")!.text).toBe("Your 25-minute focus session is running.");

    server.deviceEnvelope("s-1", "lineup.tool.result", { result: { outcome: "completed", ...started, ended_at: started.ends_at } }, { call_id: callId }, "pomodoro");
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.message").some((e) => (e.payload as { text: string }).text === "Time's up — well done!"), "the end told");
    const asked = llm.requests[2]!.body;
    expect(asked.tools ?? []).toEqual([]);
    expect(asked.messages.at(-1)).toMatchObject({ role: "system", content: expect.stringContaining('"outcome":"completed"') as unknown });
  });

  it("restarted while a timer it started runs on, asks the model what to say when the timer ends, once", async () => {
    const llm = await fakeLlm([toolCall("pomodoro__pomodoro_start", { minutes: 25 }), text("Your 25-minute focus session is running."), text("Time's up — well done!")]);
    const POMODORO = tool("pomodoro", "pomodoro.start", { title: "Start a pomodoro", input_schema: { type: "object", properties: { minutes: { type: "integer" } } } });
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [POMODORO]);
    const started = { operation_id: "op-1", started_at: "2026-12-01T09:00:00.000Z", ends_at: "2026-12-01T09:25:00.000Z" };
    const invokes: string[] = [];
    server.onAgentEnvelope = (sessionId, envelope) => {
      if (envelope.type !== "lineup.tool.invoke") return;
      invokes.push(envelope.correlation!.call_id!);
      server.deviceEnvelope(sessionId, "lineup.tool.receipt", { status: "accepted" }, { call_id: invokes.at(-1)! }, "pomodoro");
      server.deviceEnvelope(sessionId, "lineup.tool.progress", { stage: "started", data: started }, { call_id: invokes.at(-1)! }, "pomodoro");
    };
    const process = async (from: number) => {
      const client = await connectToFake(server, { ids: sequentialIds(from) });
      const agent = runLlmAgent(client, { llm: { baseUrl: llm.baseUrl, apiKey: "sk-test", model: "test-model" } });
      running.push({ client, agent });
      await waitFor(() => client.cursor("s-1") === server.sessions.get("s-1")!.session.last_seq, "caught up");
      return { client, agent };
    };
    const first = await process(1);
    server.startTurn("s-1", "start a pomodoro", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    first.agent.dispose();
    await first.client.close();

    await process(1_000);
    server.deviceEnvelope("s-1", "lineup.tool.result", { result: { outcome: "completed", ...started, ended_at: started.ends_at } }, { call_id: invokes[0]! }, "pomodoro");
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.message").some((e) => (e.payload as { text: string }).text === "Time's up — well done!"), "the end told");
    expect(llm.requests).toHaveLength(3);
    expect(llm.requests[2]!.body.messages.at(-1)).toMatchObject({ role: "system", content: expect.stringContaining('"outcome":"completed"') as unknown });
    expect(invokes).toHaveLength(1);
    expect(server.agentEnvelopes("s-1", "lineup.message").filter((e) => (e.payload as { text: string }).text === "Time's up — well done!")).toHaveLength(1);
  });

  it("restarted after it replied but before the turn completed, completes the turn with that reply: the model is not asked again", async () => {
    const llm = await fakeLlm([text("should not be asked")]);
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 4, [WHITEBOARD]);
    // The process before: the turn started, it replied, and it stopped before completing the turn.
    const before = await connectToFake(server);
    await waitFor(() => before.cursor("s-1") === server.sessions.get("s-1")!.session.last_seq, "caught up");
    server.startTurn("s-1", "make a board", "t-1");
    await waitFor(() => server.turn("s-1", "t-1") !== undefined, "the turn");
    await before.send("s-1", { kind: "markdown", text: "Done: your board is open." });
    await before.close();

    const client = await connectToFake(server);
    const agent = runLlmAgent(client, { llm: { baseUrl: llm.baseUrl, apiKey: "sk-test", model: "test-model" } });
    running.push({ client, agent });
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(server.turn("s-1", "t-1")!.text).toBe("Done: your board is open.");
    expect(server.agentEnvelopes("s-1", "lineup.message")).toHaveLength(1);
    expect(llm.requests).toHaveLength(0);
  });

  it.each([
    ["had ended while it was away", true],
    ["was still running", false],
  ])("restarted after a tool call whose call %s, shows the model that call as its own with its result, and does not call the tool again", async (_when, endedWhileAway) => {
    const llm = await fakeLlm([text("Your **cat** board is ready.")]);
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 4, [WHITEBOARD]);
    const invokes: string[] = [];
    server.onAgentEnvelope = (sessionId, envelope) => {
      if (envelope.type !== "lineup.tool.invoke") return;
      invokes.push(envelope.correlation!.call_id!);
      server.deviceEnvelope(sessionId, "lineup.tool.receipt", { status: "accepted" }, { call_id: envelope.correlation!.call_id! }, "whiteboard");
    };
    const finish = (callId: string) => server.deviceEnvelope("s-1", "lineup.tool.result", { result: { board_id: "b-1" } }, { call_id: callId }, "whiteboard");
    // The process before: the turn started, the model asked for the tool, the call was made, and the process stopped.
    const before = await connectToFake(server);
    await waitFor(() => before.inventory("s-1")?.revision === 4, "inventory");
    server.startTurn("s-1", "Draw a cat on the whiteboard", "t-1");
    await waitFor(() => server.turn("s-1", "t-1") !== undefined, "the turn");
    const call = before.invokeTool("s-1", "board.create", { title: "cat" });
    await waitFor(() => invokes.length === 1, "the call");
    await before.close();
    await call.result.catch(() => undefined);
    if (endedWhileAway) finish(call.callId);

    const client = await connectToFake(server);
    running.push({ client, agent: runLlmAgent(client, { llm: { baseUrl: llm.baseUrl, apiKey: "sk-test", model: "test-model" } }) });
    if (!endedWhileAway) {
      await waitFor(() => client.toolCalls("s-1").length === 1, "the restarted agent's view of its call");
      finish(call.callId);
    }
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(invokes).toEqual([call.callId]);
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]!.body.messages.slice(-3)).toEqual([
      { role: "user", content: "Draw a cat on the whiteboard" },
      { role: "assistant", content: null, tool_calls: [{ id: call.callId, type: "function", function: { name: "whiteboard__board_create", arguments: JSON.stringify({ title: "cat" }) } }] },
      { role: "tool", tool_call_id: call.callId, content: JSON.stringify({ ok: true, result: { board_id: "b-1" } }) },
    ]);
    expect(server.turn("s-1", "t-1")!.text).toBe("Your **cat** board is ready.");
  });

  it("sends the conversation history with the next turn", async () => {
    const llm = await fakeLlm([text("Hi Ada!"), text("You are Ada.")]);
    const { server } = await setup(llm.baseUrl);
    server.startTurn("s-1", "I am Ada", "t-1");
    await turnEnds(server, "t-1");
    server.startTurn("s-1", "Who am I?", "t-2");
    await turnEnds(server, "t-2");
    expect(llm.requests[1]!.body.messages.slice(1)).toEqual([
      { role: "user", content: "I am Ada" },
      { role: "assistant", content: "Hi Ada!" },
      { role: "user", content: "Who am I?" },
    ]);
  });

  it("tells the model, where it happened, that the device could not deliver something the agent sent", async () => {
    const llm = await fakeLlm([text("Hi Ada!"), text("Sorry, the board did not get that.")]);
    const { server } = await setup(llm.baseUrl);
    server.startTurn("s-1", "I am Ada", "t-1");
    await turnEnds(server, "t-1");
    server.deviceEnvelope("s-1", "lineup.runtime.notice", { level: "warning", code: "inbox_full", message: "lineup.app.state.patch p-1 was not delivered to whiteboard: too many messages wait for acknowledgement there" });
    server.startTurn("s-1", "Did it work?", "t-2");
    await turnEnds(server, "t-2");
    expect(llm.requests[1]!.body.messages.slice(1)).toEqual([
      { role: "user", content: "I am Ada" },
      { role: "assistant", content: "Hi Ada!" },
      { role: "system", content: "LineUp on the user's device: lineup.app.state.patch p-1 was not delivered to whiteboard: too many messages wait for acknowledgement there (inbox_full)" },
      { role: "user", content: "Did it work?" },
    ]);
  });

  it("hands a refused tool call back to the model as a typed error", async () => {
    const llm = await fakeLlm([toolCall("whiteboard__board_create", { title: "x" }), text("You cancelled it.")]);
    const { server } = await setup(llm.baseUrl);
    server.onAgentEnvelope = (sessionId, envelope) => {
      if (envelope.type === "lineup.tool.invoke") server.deviceEnvelope(sessionId, "lineup.tool.error", { code: "cancelled_by_user", message: "no" }, { call_id: envelope.correlation!.call_id! });
    };
    server.startTurn("s-1", "whiteboard please", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    const toolMessage = llm.requests[1]!.body.messages.at(-1)!;
    expect(JSON.parse(toolMessage.content!)).toMatchObject({ ok: false, error: { code: "cancelled_by_user" } });
  });

  it("answers an unknown function name without calling the device", async () => {
    const llm = await fakeLlm([toolCall("pomodoro__pomodoro_start", {}), text("That app is not installed.")]);
    const { server } = await setup(llm.baseUrl);
    server.startTurn("s-1", "start a timer", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(server.agentEnvelopes("s-1", "lineup.tool.invoke")).toHaveLength(0);
    expect(JSON.parse(llm.requests[1]!.body.messages.at(-1)!.content!)).toMatchObject({ ok: false, error: { code: "tool_not_visible" } });
  });

  it("explains an unreachable model instead of failing the turn", async () => {
    const down = () => ({ status: 503, body: { error: "down" } });
    const llm = await fakeLlm([down, down, down]);
    const { server } = await setup(llm.baseUrl, { retry: { initialMs: 10 } });
    server.startTurn("s-1", "hello", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    const reply = server.agentEnvelopes("s-1", "lineup.message").at(-1)!.payload as { text: string };
    expect(reply.text).toContain("couldn't reach the language model");
    expect(reply.text).toContain("HTTP 503");
  });
});

/** The turn updates of s-1 that carry text, in log order. */
const textUpdates = (server: FakeAppServer) =>
  server.eventsOf("s-1").flatMap((e) => {
    const delta = e.kind === "turn.updated" ? (e.data as { text_delta?: unknown }).text_delta : undefined;
    return typeof delta === "string" ? [{ seq: e.seq, text: delta }] : [];
  });
const seqOfMessage = (server: FakeAppServer, text: string) =>
  server.eventsOf("s-1").find((e) => e.kind === "envelope" && ((e.data as { envelope: { type: string; payload: { text?: string } } }).envelope.payload.text ?? "") === text)?.seq;

describe("the LLM adapter streaming the model's answer", () => {
  it("sends the text as it arrives as batched turn updates, then the whole reply once", async () => {
    const words = Array.from({ length: 60 }, (_, i) => `word${i} `);
    const llm = await fakeLlm([streamText(words, 5)]);
    const { server } = await setup(llm.baseUrl);
    server.startTurn("s-1", "tell me a story", "t-1");
    // The person sees text while the model still writes.
    await waitFor(() => textUpdates(server).length >= 2, "streamed text");
    expect(server.turn("s-1", "t-1")!.state).toBe("running");
    expect(server.agentEnvelopes("s-1", "lineup.message")).toEqual([]);
    expect(await turnEnds(server, "t-1")).toBe("completed");
    const streamedForMs = Date.now() - llm.requests[0]!.at;

    const full = words.join("").trim();
    const updates = textUpdates(server);
    expect(updates.map((u) => u.text).join("")).toBe(words.join(""));
    // 60 pieces over ~400 ms, at most one update per 80 ms (the first at once): a handful of writes (6 or 7
    // here), not 60 — however slow the machine, no more than its time allows.
    expect(updates.length).toBeGreaterThanOrEqual(2);
    expect(updates.length).toBeLessThanOrEqual(Math.min(20, Math.ceil(streamedForMs / 80) + 1));
    expect(server.agentEnvelopes("s-1", "lineup.message").map((e) => e.payload)).toEqual([{ format: "markdown", text: full }]);
    expect(server.turn("s-1", "t-1")!.text).toBe(full);
    // Every piece is in the log before the message that replaces the draft.
    expect(Math.max(...updates.map((u) => u.seq))).toBeLessThan(seqOfMessage(server, full)!);
    expect(llm.requests[0]!.body.stream).toBe(true);
  });

  it("assembles tool-call arguments that arrive in pieces (events cut mid-line too) and calls the tool with them", async () => {
    const args = JSON.stringify({ title: "cat" });
    const toolStream = (): Scripted => {
      const events = [
        sseEvent(chunkOf({ role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_9", type: "function", function: { name: "whiteboard__board_create", arguments: "" } }] })),
        ...[args.slice(0, 3), args.slice(3, 9), args.slice(9)].map((piece) => sseEvent(chunkOf({ tool_calls: [{ index: 0, function: { arguments: piece } }] }))),
        sseEvent(chunkOf({}, "tool_calls")),
        "data: [DONE]\n\n",
      ].join("");
      // Written in 7-byte writes: events, lines and the JSON inside them are cut anywhere.
      return { sse: Array.from({ length: Math.ceil(events.length / 7) }, (_, i) => events.slice(i * 7, i * 7 + 7)), gapMs: 1 };
    };
    const llm = await fakeLlm([toolStream, streamText(["Your **cat** ", "board is ready."])]);
    const { server } = await setup(llm.baseUrl);
    server.onAgentEnvelope = (sessionId, envelope) => {
      if (envelope.type !== "lineup.tool.invoke") return;
      server.deviceEnvelope(sessionId, "lineup.tool.result", { result: { board_id: "b-1" } }, { call_id: envelope.correlation!.call_id! }, "whiteboard");
    };
    server.startTurn("s-1", "Draw a cat on the whiteboard", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(server.agentEnvelopes("s-1", "lineup.tool.invoke").map((e) => e.payload)).toEqual([expect.objectContaining({ method: "board.create", arguments: { title: "cat" } })]);
    const second = llm.requests[1]!.body.messages;
    expect(second.at(-2)).toEqual({ role: "assistant", content: null, tool_calls: [{ id: "call_9", type: "function", function: { name: "whiteboard__board_create", arguments: args } }] });
    expect(second.at(-1)).toEqual({ role: "tool", tool_call_id: "call_9", content: JSON.stringify({ ok: true, result: { board_id: "b-1" } }) });
    expect(server.turn("s-1", "t-1")!.text).toBe("Your **cat** board is ready.");
    expect(textUpdates(server).map((u) => u.text).join("")).toBe("Your **cat** board is ready.");
  });

  it("retries a 429 after the wait its Retry-After names, then streams the answer", async () => {
    const llm = await fakeLlm([() => ({ status: 429, headers: { "retry-after": "1" }, body: { error: { message: "slow down" } } }), streamText(["Back ", "again."])]);
    const { server } = await setup(llm.baseUrl);
    server.startTurn("s-1", "hello", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(llm.requests).toHaveLength(2);
    // Honoured: not asked again before the second the server named (timer slack aside).
    expect(llm.requests[1]!.at - llm.requests[0]!.at).toBeGreaterThanOrEqual(990);
    expect(server.turn("s-1", "t-1")!.text).toBe("Back again.");
  });

  it("gives up after three 500s with a typed failure the person is told about", async () => {
    const broken = () => ({ status: 500, body: { error: "boom" } });
    const llm = await fakeLlm([broken, broken, broken, streamText(["never"])]);
    const { server } = await setup(llm.baseUrl, { retry: { initialMs: 20 } });
    server.startTurn("s-1", "hello", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(llm.requests).toHaveLength(3);
    const reply = (server.agentEnvelopes("s-1", "lineup.message").at(-1)!.payload as { text: string }).text;
    expect(reply).toContain("couldn't reach the language model");
    expect(reply).toContain("failed: the model endpoint answered HTTP 500 (3 attempts)");
    expect(textUpdates(server)).toEqual([]);
  });

  it("fails at once on another 4xx: one request, the person is told", async () => {
    const llm = await fakeLlm([() => ({ status: 401, body: { error: { message: "bad key" } } }), streamText(["never"])]);
    const { server } = await setup(llm.baseUrl, { retry: { initialMs: 20 } });
    server.startTurn("s-1", "hello", "t-1");
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(llm.requests).toHaveLength(1);
    expect((server.agentEnvelopes("s-1", "lineup.message").at(-1)!.payload as { text: string }).text).toContain("HTTP 401: ");
  });

  it("cancelled mid-stream: stops reading the model and sends nothing more for the turn", async () => {
    // The model would write for 10 s; the person stops it after the first text shows.
    const llm = await fakeLlm([streamText(Array.from({ length: 500 }, (_, i) => `w${i} `), 20, { hold: true })]);
    const { server } = await setup(llm.baseUrl);
    server.startTurn("s-1", "write a lot", "t-1");
    await waitFor(() => textUpdates(server).length >= 2, "streamed text");
    server.cancelTurn("s-1", "t-1");
    await waitFor(() => llm.requests[0]!.hungUp === true, "the stream given up");
    const { agent } = running.at(-1)!;
    await agent.idle();
    const after = server.requests.length;
    const updates = textUpdates(server).length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.requests.slice(after).map((r) => r.method).filter((m) => m !== "agentSession/list" && m !== "capability/list")).toEqual([]);
    expect(textUpdates(server)).toHaveLength(updates);
    const cancelledAt = server.eventsOf("s-1").find((e) => e.kind === "turn.cancelled")!.seq;
    // At most what was already on its way when the cancel was recorded lands after it; nothing once the agent heard it.
    expect(textUpdates(server).filter((u) => u.seq > cancelledAt).length).toBeLessThanOrEqual(1);
    expect(server.agentEnvelopes("s-1", "lineup.message")).toEqual([]);
    expect(server.requestCount("agentSession/turn/complete")).toBe(0);
    expect(server.turn("s-1", "t-1")!.state).toBe("cancelled");
  });
});

/** A fake endpoint that never answers: it records each request and whether the client hung up on it. */
async function silentLlm(): Promise<{ baseUrl: string; requests: number; aborted: number }> {
  const seen = { requests: 0, aborted: 0 };
  const server = createServer((req, res) => {
    seen.requests += 1;
    req.resume();
    res.on("close", () => {
      if (!res.writableEnded) seen.aborted += 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  const { port } = server.address() as AddressInfo;
  return Object.assign(seen, { baseUrl: `http://127.0.0.1:${port}/v1` });
}

describe("the LLM adapter when the device cancels the turn", () => {
  it("aborts the model's HTTP request and sends nothing more for the turn", async () => {
    const llm = await silentLlm();
    const { server } = await setup(llm.baseUrl);
    server.startTurn("s-1", "Think about it for a long time", "t-1");
    await waitFor(() => llm.requests === 1, "the model asked");
    const before = server.requests.length;
    server.cancelTurn("s-1", "t-1");
    await waitFor(() => llm.aborted === 1, "the request aborted");
    const { agent } = running.at(-1)!;
    await agent.idle();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.turn("s-1", "t-1")!.state).toBe("cancelled");
    expect(server.requests.slice(before).map((r) => r.method).filter((m) => m !== "agentSession/list" && m !== "capability/list")).toEqual([]);
    expect(server.agentEnvelopes("s-1", "lineup.message")).toEqual([]);
    expect(llm.requests).toBe(1);
  });

  it("cancelled while a tool call it relayed runs: the model is not asked again, no completion, no cancel of its own", async () => {
    const llm = await fakeLlm([toolCall("whiteboard__board_create", { title: "cat" }), text("never asked")]);
    const { server } = await setup(llm.baseUrl);
    server.onAgentEnvelope = (sessionId, envelope) => {
      if (envelope.type !== "lineup.tool.invoke") return;
      server.deviceEnvelope(sessionId, "lineup.tool.receipt", { status: "accepted" }, { call_id: envelope.correlation!.call_id! }, "whiteboard");
    };
    server.startTurn("s-1", "Draw a cat on the whiteboard", "t-1");
    await waitFor(() => server.agentEnvelopes("s-1", "lineup.tool.invoke").length === 1, "the call relayed");
    await waitFor(() => server.eventsOf("s-1").some((e) => e.kind === "turn.updated" && String((e.data as { label?: string }).label).includes("accepted")), "the receipt relayed");
    server.cancelTurn("s-1", "t-1");
    const { agent } = running.at(-1)!;
    await agent.idle();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(llm.requests).toHaveLength(1);
    expect(server.requestCount("agentSession/turn/complete")).toBe(0);
    expect(server.agentEnvelopes("s-1", "lineup.tool.cancel")).toEqual([]);
    expect(server.agentEnvelopes("s-1", "lineup.tool.invoke")).toHaveLength(1);
    expect(server.agentEnvelopes("s-1", "lineup.message")).toEqual([]);
  });
});

describe("configuration and tool names", () => {
  it("reads LINEUP_LLM_* from the environment", () => {
    expect(llmConfigFromEnv({})).toBeUndefined();
    expect(llmConfigFromEnv({ LINEUP_LLM_BASE_URL: "http://x/v1", LINEUP_LLM_API_KEY: "k", LINEUP_LLM_MODEL: "m" })).toEqual({ baseUrl: "http://x/v1", apiKey: "k", model: "m" });
    expect(llmConfigFromEnv({ LINEUP_LLM_BASE_URL: "http://x/v1" })).toEqual({ baseUrl: "http://x/v1", model: "gpt-4o-mini" });
  });

  it("falls back to OPENAI_BASE_URL and OPENAI_API_KEY, each only when its LINEUP_LLM_* is unset or blank", () => {
    expect(llmConfigFromEnv({ OPENAI_API_KEY: "sk-o" })).toBeUndefined();
    expect(llmConfigFromEnv({ OPENAI_BASE_URL: "https://api.openai.com/v1", OPENAI_API_KEY: "sk-o" })).toEqual({ baseUrl: "https://api.openai.com/v1", apiKey: "sk-o", model: "gpt-4o-mini" });
    expect(llmConfigFromEnv({ LINEUP_LLM_BASE_URL: "http://x/v1", OPENAI_BASE_URL: "http://o/v1", OPENAI_API_KEY: "sk-o" })).toEqual({ baseUrl: "http://x/v1", apiKey: "sk-o", model: "gpt-4o-mini" });
    expect(llmConfigFromEnv({ LINEUP_LLM_BASE_URL: " ", LINEUP_LLM_API_KEY: "", OPENAI_BASE_URL: "http://o/v1", OPENAI_API_KEY: "sk-o", LINEUP_LLM_MODEL: "m" })).toEqual({ baseUrl: "http://o/v1", apiKey: "sk-o", model: "m" });
    expect(llmConfigFromEnv({ LINEUP_LLM_BASE_URL: "http://x/v1", LINEUP_LLM_API_KEY: "k", OPENAI_BASE_URL: "http://o/v1", OPENAI_API_KEY: "sk-o" })).toEqual({ baseUrl: "http://x/v1", apiKey: "k", model: "gpt-4o-mini" });
  });

  it("mangles names to the function-name grammar and keeps them unique", () => {
    const long = "a".repeat(40);
    const set = toFunctionTools([tool("draw-and-guess", "game.start_round"), tool(long, `${long}.x`), tool(long, `${long}.y`)]);
    const names = set.tools.map((t) => t.function.name);
    expect(names[0]).toBe("draw-and-guess__game_start_round");
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(new Set(names).size).toBe(3);
    expect(set.byName.get(names[2]!)!.method).toBe(`${long}.y`);
  });
});

describe("the LLM adapter on an app's task", () => {
  const TIDY_SCHEMA: JsonObject = {
    type: "object",
    required: ["layout", "summary"],
    additionalProperties: false,
    properties: {
      layout: { type: "array", items: { type: "object", required: ["id", "x", "y"], additionalProperties: false, properties: { id: { type: "string" }, x: { type: "number" }, y: { type: "number" } } } },
      summary: { type: "string" },
    },
  };
  const READ = tool("whiteboard", "board.read", { title: "Read the board", input_schema: { type: "object", properties: {} } });
  const POMODORO = tool("pomodoro", "pomodoro.start", { title: "Start a pomodoro", input_schema: { type: "object", properties: { minutes: { type: "integer" } } } });
  const CONTEXT = { board: { width: 800, height: 600, items: [{ id: "a", x: 3, y: 9, w: 100, h: 50, label: "Idea" }] } };
  const ANSWER = { layout: [{ id: "a", x: 24, y: 24 }], summary: "Arranged 1 items in a 1×1 grid." };

  const taskTurn = (requested: TaskTurnOptions["requested_tools"]) => ({
    options: {
      lineup_task: {
        task_id: "task-7",
        attempt: 1,
        entry: "tidy_board",
        title: "Tidy this board",
        provenance: { app_scope: "whiteboard", app_version: "2.1.0" },
        context: CONTEXT,
        requested_tools: requested,
        knowledge: [],
        trace_id: "trace-7",
      } satisfies TaskTurnOptions as unknown as JsonObject,
    },
    output_schema: TIDY_SCHEMA,
  });

  async function setupTask(llmUrl: string): Promise<FakeAppServer> {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 2, [WHITEBOARD, READ, POMODORO]);
    const client = await connectToFake(server);
    running.push({ client, agent: runLlmAgent(client, { llm: { baseUrl: llmUrl, apiKey: "sk-test", model: "test-model" } }) });
    await waitFor(() => client.inventory("s-1")?.revision === 2, "inventory");
    return server;
  }

  const completed = (server: FakeAppServer) => server.requests.filter((r) => r.method === "agentSession/turn/complete" && r.params["outcome"] === "completed");

  it("asks for the output schema as structured output, offers only the requested tools, says which app asked, and completes with the parsed output", async () => {
    const answer = JSON.stringify(ANSWER);
    const llm = await fakeLlm([toolCall("whiteboard__board_read", {}), streamText([answer.slice(0, 10), answer.slice(10, 30), answer.slice(30)])]);
    const server = await setupTask(llm.baseUrl);
    server.onAgentEnvelope = (sessionId, envelope) => {
      if (envelope.type === "lineup.tool.invoke") server.deviceEnvelope(sessionId, "lineup.tool.result", { result: { items: 1 } }, { call_id: envelope.correlation!.call_id! }, "whiteboard");
    };
    server.startTurn("s-1", "make it neat", "t-1", taskTurn([{ app_scope: "whiteboard", method: "board.read" }]));
    expect(await turnEnds(server, "t-1")).toBe("completed");

    expect(llm.requests).toHaveLength(2);
    for (const request of llm.requests) {
      expect(request.body.response_format).toEqual({ type: "json_schema", json_schema: { name: "tidy_board", schema: TIDY_SCHEMA, strict: true } });
      // Only what the task requested: not board.create, not the pomodoro, though the inventory has them.
      expect(request.body.tools!.map((t) => t.function.name)).toEqual(["whiteboard__board_read"]);
    }
    const asked = llm.requests[0]!.body.messages.at(-1)!;
    expect(asked.role).toBe("user");
    for (const part of ['The app "whiteboard" (version 2.1.0)', "Entry: tidy_board", "Title: Tidy this board", `Context (JSON): ${JSON.stringify(CONTEXT)}`, "Input: make it neat", JSON.stringify(TIDY_SCHEMA)]) {
      expect(asked.content).toContain(part);
    }
    expect(server.agentEnvelopes("s-1", "lineup.tool.invoke").map((e) => (e.payload as { method: string }).method)).toEqual(["board.read"]);
    expect(server.turn("s-1", "t-1")!.output).toEqual(ANSWER);
    // The answer streamed as the turn's text; no chat message: the app shows the result.
    expect(textUpdates(server).map((u) => u.text).join("")).toBe(answer);
    expect(server.agentEnvelopes("s-1", "lineup.message")).toEqual([]);
  });

  it("offers no tools at all when the task requested none", async () => {
    const llm = await fakeLlm([text(JSON.stringify(ANSWER))]);
    const server = await setupTask(llm.baseUrl);
    server.startTurn("s-1", "tidy", "t-1", taskTurn([]));
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(llm.requests[0]!.body.tools).toBeUndefined();
    expect(llm.requests[0]!.body.messages.at(-1)!.content).toContain("Tools the app allows: none");
  });

  it("refuses an answer the schema does not allow, asks once more with the reason, and completes with the second", async () => {
    const llm = await fakeLlm([text(JSON.stringify({ layout: [{ id: "a", x: "24", y: 24 }], summary: "ok" })), text(`\`\`\`json\n${JSON.stringify(ANSWER)}\n\`\`\``)]);
    const server = await setupTask(llm.baseUrl);
    server.startTurn("s-1", "tidy", "t-1", taskTurn([]));
    expect(await turnEnds(server, "t-1")).toBe("completed");
    expect(llm.requests).toHaveLength(2);
    const retry = llm.requests[1]!.body.messages;
    expect(retry.at(-2)).toEqual({ role: "assistant", content: JSON.stringify({ layout: [{ id: "a", x: "24", y: 24 }], summary: "ok" }) });
    expect(retry.at(-1)!.role).toBe("user");
    expect(retry.at(-1)!.content).toContain("That answer was refused");
    expect(retry.at(-1)!.content).toContain("/layout/0/x");
    expect(server.turn("s-1", "t-1")!.output).toEqual(ANSWER);
  });

  it("refused twice (not JSON, then not the schema): the turn fails invalid_result, the model asked only twice, no output sent", async () => {
    const llm = await fakeLlm([text("Sure! I tidied the board."), text(JSON.stringify({ layout: [], summary: 3 })), text(JSON.stringify(ANSWER))]);
    const server = await setupTask(llm.baseUrl);
    server.startTurn("s-1", "tidy", "t-1", taskTurn([]));
    expect(await turnEnds(server, "t-1")).toBe("failed");
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1]!.body.messages.at(-1)!.content).toContain("not JSON");
    expect(server.turn("s-1", "t-1")!.error).toMatchObject({ code: "invalid_result", message: expect.stringContaining("/summary") as unknown });
    expect(completed(server)).toEqual([]);
    expect(server.agentEnvelopes("s-1", "lineup.message")).toEqual([]);
  });

  it("a model that cannot be reached fails the task with its typed code instead of answering in the chat", async () => {
    const limited = () => ({ status: 429, headers: { "retry-after": "0" }, body: { error: { message: "slow down" } } });
    const llm = await fakeLlm([limited, limited, limited]);
    const server = await setupTask(llm.baseUrl);
    server.startTurn("s-1", "tidy", "t-1", taskTurn([]));
    expect(await turnEnds(server, "t-1")).toBe("failed");
    expect(llm.requests).toHaveLength(3);
    expect(server.turn("s-1", "t-1")!.error).toMatchObject({ code: "rate_limited" });
    expect(server.agentEnvelopes("s-1", "lineup.message")).toEqual([]);
  });
});
