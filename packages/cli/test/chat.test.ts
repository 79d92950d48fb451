import { describe, expect, it } from "vitest";
import { createMemoryStore, createRuntime, RUNTIME_SCHEMA } from "@lineup/runtime";
import { createFakeClock, createSequentialIds, FakeAppServer } from "@lineup/runtime/testing";
import { createChatSession, createTerminalQuestions, renderRow } from "../src/commands/chat.js";

async function until(predicate: () => boolean, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("lineup chat (terminal client on the Runtime)", () => {
  it("starts a conversation, sends text, shows the agent's reply and answers a card by number", async () => {
    const server = new FakeAppServer();
    const store = await createMemoryStore(RUNTIME_SCHEMA);
    const runtime = createRuntime({ store, transport: server.transport, serverUrl: "mem://", token: server.deviceToken, clock: createFakeClock(), ids: createSequentialIds(), relistIntervalMs: 0 });
    await runtime.start();
    await runtime.whenOnline();
    const out: string[] = [];
    const chat = createChatSession(runtime, { out: (l) => out.push(l), err: (l) => out.push(`ERR ${l}`) }, { agentId: "agent-1", workspaceId: "w-1" });

    expect(await chat.line("hello?")).toBe(true);
    expect(out.at(-1)).toMatch(/open or start a conversation/);
    await chat.line("/new Plans");
    const id = runtime.conversations.list()[0]!.conversation_id;
    await chat.line("draw a cat");
    await until(() => server.turnTexts(id).length === 1);
    server.agentSays(id, "Here is a cat");
    server.agentRequestsAction(id, { action_id: "a-1", kind: "choice", prompt: "Which colour?", options: [{ id: "black", label: "Black" }, { id: "orange", label: "Orange" }] });
    await until(() => out.includes("  2) Orange"));
    expect(out).toEqual(expect.arrayContaining(["you: draw a cat", "agent: Here is a cat", "agent asks: Which colour?", "  1) Black"]));
    await chat.line("2");
    await until(() => server.applied.some((w) => w.method === "agentSession/action/respond"));
    expect(server.applied.find((w) => w.method === "agentSession/action/respond")!.params["response"]).toEqual({ outcome: "answered", choice_ids: ["orange"] });
    await chat.line("/list");
    expect(out.some((l) => l.startsWith("1. Plans (agent-1, live"))).toBe(true);
    // The agent goes away: the list says so.
    server.setAgentConnected("agent-1", false);
    await until(() => runtime.conversations.list()[0]!.agent_connected === false);
    await chat.line("/list");
    expect(out.at(-1)).toMatch(/^1\. Plans \(agent-1 not connected, live/);
    // /stop: the turn the agent works on ("draw a cat", still open) is cancelled, and the timeline says so; the
    // next /stop takes the turn queued behind it; with nothing left, a refusal.
    const cancels = () => server.applied.filter((w) => w.method === "agentSession/turn/cancel").length;
    await chat.line("count to a million");
    await until(() => server.turnTexts(id).length === 2);
    await chat.line("/stop");
    expect(out.at(-1)).toBe("stopping the agent…");
    await until(() => cancels() === 1);
    await until(() => out.includes("info: You stopped the agent."));
    await chat.line("/stop");
    await until(() => cancels() === 2);
    await until(() => out.filter((l) => l === "info: You stopped the agent.").length === 2);
    const refusedBefore = out.filter((l) => l.startsWith("ERR refused")).length;
    await chat.line("/stop");
    expect(out.filter((l) => l.startsWith("ERR refused")).length).toBe(refusedBefore + 1);
    expect(cancels()).toBe(2);
    expect(await chat.line("/quit")).toBe(false);
    chat.close();
    await runtime.stop();
    await store.close();
  });
});

describe("renderRow", () => {
  it("shows an app's agent task as who asked for what, where it stands, its result and the app's decision", () => {
    const base = { kind: "app_task", key: "app-task:t-2", seq: 9, task_id: "task-1", turn_id: "t-2", app_scope: "whiteboard", entry: "tidy_board", title: "Tidy the board" } as const;
    expect(renderRow({ ...base, attempt: 1, state: "waiting_for_user", label: "asking", progress: 0.5 })).toEqual(["whiteboard asked the agent: Tidy the board — waiting for user 50% · asking"]);
    expect(renderRow({ ...base, attempt: 2, state: "done", output: { summary: "ok" }, decision: { decision: "rejected", reason: "too tight" } })).toEqual([
      "whiteboard asked the agent: Tidy the board (attempt 2) — done",
      '  result: {"summary":"ok"}',
      "  whiteboard rejected it: too tight",
    ]);
    const { title: _title, ...untitled } = base;
    expect(renderRow({ ...untitled, attempt: 1, state: "failed", error: { code: "invalid_result", message: "no layout" } })).toEqual([
      "whiteboard asked the agent: tidy_board — failed",
      "  invalid_result: no layout",
    ]);
  });

  it("answers what an app's MCP server asks on the chat's cards: fields one by one, a confirmation, decline, and a withdrawn question", async () => {
    const server = new FakeAppServer();
    const store = await createMemoryStore(RUNTIME_SCHEMA);
    const runtime = createRuntime({ store, transport: server.transport, serverUrl: "mem://", token: server.deviceToken, clock: createFakeClock(), ids: createSequentialIds(), relistIntervalMs: 0 });
    await runtime.start();
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(`ERR ${l}`) };
    const questions = createTerminalQuestions(io);
    const chat = createChatSession(runtime, io, { agentId: "agent-1", workspaceId: "w-1", questions });
    const ask = (properties: Record<string, unknown>, signal = new AbortController().signal) =>
      questions.elicit({ request_id: "q", app_scope: "booking", app_name: "Booking", message: "Which table?", requested_schema: { type: "object", properties } as never }, signal);

    const booked = ask({ seats: { type: "integer", title: "Seats" }, area: { type: "string", enum: ["terrace", "inside"] }, quiet: { type: "boolean" }, name: { type: "string" } });
    await until(() => out.includes("Booking asks: Seats"));
    expect(out).toContain("Booking asks: Which table?");
    await chat.line("four");
    expect(out.at(-1)).toBe("ERR a number, please (or /decline, /cancel)");
    await chat.line("4");
    await until(() => out.includes("  2) inside"));
    await chat.line("1");
    await until(() => out.includes("Booking asks: quiet"));
    await chat.line("y");
    await until(() => out.includes("Booking asks: name"));
    await chat.line("Ada");
    expect(await booked).toEqual({ action: "accept", content: { seats: 4, area: "terrace", quiet: true, name: "Ada" } });

    // Nothing to fill in: a confirmation.
    const confirmed = ask({});
    await until(() => out.at(-1) === "  n) No");
    await chat.line("n");
    expect(await confirmed).toEqual({ action: "decline" });
    const declined = ask({ name: { type: "string" } });
    await until(() => out.at(-1) === "  (type your answer)");
    await chat.line("/decline");
    expect(await declined).toEqual({ action: "decline" });
    // The Runtime withdraws a question (the server cancelled, or nobody answered in time): it is said and closed.
    const withdraw = new AbortController();
    const withdrawn = ask({ name: { type: "string" } }, withdraw.signal);
    await until(() => out.at(-1) === "  (type your answer)");
    withdraw.abort();
    expect(await withdrawn).toEqual({ action: "cancel" });
    expect(out.at(-1)).toBe("Booking no longer asks: name");
    // With no question open, lines go to the chat as before.
    await chat.line("hello?");
    expect(out.at(-1)).toMatch(/open or start a conversation/);
    chat.close();
    await runtime.stop();
  });
});
