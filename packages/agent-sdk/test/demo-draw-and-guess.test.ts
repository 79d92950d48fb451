/**
 * The demo agent playing Draw and Guess against a fake device that plays the app's side
 * (`game.start_round`, `game.get_drawing`, `game.guess` with three guesses): what it says after a
 * round starts, how it guesses when the person says "done" (deterministic order, each guess said,
 * then the end), and what it says when there is nothing to guess or the round is over.
 */
import type { JsonObject, RuntimeEnvelope } from "@lineup/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { guessOrder, readStartedRound } from "../src/demo/draw-and-guess.js";
import { APP_TARGETS, argumentsFor, parseIntent, runDemoAgent, sequentialIds, type AgentClient, type DemoAgent } from "../src/index.js";
import { FakeAppServer, tool } from "./fake-app-server.js";
import { connectToFake, waitFor } from "./helpers.js";

const running: { client: AgentClient; agent: DemoAgent }[] = [];
afterEach(async () => {
  for (const { client, agent } of running.splice(0)) {
    agent.dispose();
    await client.close();
  }
});

const CATEGORIES = ["animals", "food", "objects", "nature"];
const ANIMALS = ["cat", "dog", "fish", "bird", "horse", "snake", "rabbit", "elephant", "giraffe", "turtle", "spider", "butterfly", "lion", "duck", "frog"];
const START = tool("draw-and-guess", "game.start_round", { input_schema: { type: "object", additionalProperties: false, properties: { category: { enum: CATEGORIES } } } });
const LOOK = tool("draw-and-guess", "game.get_drawing", { call_model: "query", input_schema: { type: "object", properties: { round_id: { type: "string" } }, required: ["round_id"] } });
const AWAIT = tool("draw-and-guess", "game.await_drawing", { call_model: "interactive", input_schema: { type: "object", properties: { round_id: { type: "string" } }, required: ["round_id"] } });
const GUESS = tool("draw-and-guess", "game.guess", { input_schema: { type: "object", properties: { round_id: { type: "string" }, guess: { type: "string" } }, required: ["round_id", "guess"] } });
const ROUND_ID = "r-k3j9x0a7qe";

interface Call {
  readonly method: string;
  readonly arguments: JsonObject;
}

/**
 * Plays the app's side on the device: one round of `word`, `strokes` drawn so far, three guesses.
 * `refuse` makes a method end with that code instead.
 */
function deviceGame(server: FakeAppServer, setup: { word: string; strokes?: number; refuse?: Record<string, string> }) {
  const calls: Call[] = [];
  const state = { strokes: setup.strokes ?? 3, left: 3, over: false };
  // `game.await_drawing` answers when the person presses the button (`pressDone`), or ends when the agent cancels it.
  const waiting = new Map<string, { sessionId: string; envelope: RuntimeEnvelope }>();
  const cancelled: string[] = [];
  /** What reached the device, in order: each method called, and "cancel" for each cancelled wait. */
  const sequence: string[] = [];
  const reply = (sessionId: string, envelope: RuntimeEnvelope, step: { type: string; payload: JsonObject }) =>
    server.deviceEnvelope(sessionId, step.type, step.payload, { call_id: envelope.correlation!.call_id!, reply_to: envelope.id }, envelope.scope.app_scope);
  const pressDone = (): number => {
    const answered = [...waiting.values()];
    waiting.clear();
    for (const { sessionId, envelope } of answered) reply(sessionId, envelope, { type: "lineup.tool.result", payload: { result: { round_id: ROUND_ID, strokes: state.strokes, finished: true } } });
    return answered.length;
  };
  const answer = (call: Call): { type: string; payload: JsonObject } => {
    const refused = setup.refuse?.[call.method];
    if (refused !== undefined) return { type: "lineup.tool.error", payload: { code: refused, message: "round r-old has ended; start a new round" } };
    switch (call.method) {
      case "game.start_round":
        return { type: "lineup.tool.result", payload: { result: { round_id: ROUND_ID, round: 1, category: "animals", letters: setup.word.length, candidates: ANIMALS } } };
      case "game.get_drawing":
        return { type: "lineup.tool.result", payload: { result: { round_id: ROUND_ID, strokes: state.strokes, finished: state.strokes > 0 } } };
      case "game.guess": {
        if (state.over) return { type: "lineup.tool.error", payload: { code: "invalid_arguments", message: "the round has ended" } };
        const correct = call.arguments["guess"] === setup.word;
        state.left -= 1;
        state.over = correct || state.left === 0;
        return { type: "lineup.tool.result", payload: { result: { correct, guesses_left: state.left, ...(state.over ? { word: setup.word } : {}) } } };
      }
      default:
        return { type: "lineup.tool.error", payload: { code: "tool_not_visible", message: call.method } };
    }
  };
  server.onAgentEnvelope = (sessionId, envelope: RuntimeEnvelope) => {
    const callId = envelope.correlation?.call_id;
    if (envelope.type === "lineup.tool.cancel" && callId !== undefined) {
      const held = waiting.get(callId);
      if (held === undefined) return;
      waiting.delete(callId);
      cancelled.push(callId);
      sequence.push("cancel");
      reply(held.sessionId, held.envelope, { type: "lineup.tool.error", payload: { code: "cancelled_by_user", message: "cancelled" } });
      return;
    }
    if (envelope.type !== "lineup.tool.invoke") return;
    const call = envelope.payload as unknown as Call;
    calls.push({ method: call.method, arguments: call.arguments });
    sequence.push(call.method);
    if (call.method === "game.await_drawing" && setup.refuse?.[call.method] === undefined) {
      waiting.set(callId!, { sessionId, envelope });
      return;
    }
    reply(sessionId, envelope, answer(call));
  };
  return { calls, state, pressDone, cancelled, waiting, sequence };
}

async function start(server: FakeAppServer): Promise<void> {
  const client = await connectToFake(server);
  const agent = runDemoAgent(client);
  running.push({ client, agent });
  await waitFor(() => [...server.sessions.keys()].every((id) => client.cursor(id) === server.sessions.get(id)!.session.last_seq), "agent caught up");
}

const replies = (server: FakeAppServer): string[] => server.agentEnvelopes("s-1", "lineup.message").map((e) => (e.payload as { text: string }).text);

async function say(server: FakeAppServer, text: string, turnId: string): Promise<string> {
  server.startTurn("s-1", text, turnId);
  await waitFor(() => ["completed", "failed"].includes(server.turn("s-1", turnId)?.state ?? ""), `turn ${turnId} to end`);
  expect(server.turn("s-1", turnId)!.state).toBe("completed");
  return replies(server).at(-1)!;
}

async function withRound(setup: Parameters<typeof deviceGame>[1], tools = [START, LOOK, GUESS]) {
  const server = new FakeAppServer();
  server.startSession("s-1");
  server.publishInventory("s-1", 1, tools);
  const device = deviceGame(server, setup);
  await start(server);
  const reply = await say(server, "let's play draw and guess with animals", "t-1");
  return { server, device, reply };
}

const ORDER = guessOrder({ round_id: ROUND_ID, letters: 4, candidates: ANIMALS });

describe("the demo agent plays draw and guess", () => {
  it("starts a round in the category the person named and tells them to draw, without the word", async () => {
    const { device, reply } = await withRound({ word: "bird" });
    expect(device.calls).toEqual([{ method: "game.start_round", arguments: { category: "animals" } }]);
    expect(reply).toContain("Draw it — say **done** when you're finished and I'll guess.");
    expect(reply).toContain("**Round 1**");
    expect(reply).toContain("*animals* with 4 letters");
    expect(reply).not.toContain("bird");
  });

  it("on “done” it looks at the drawing, then guesses untried candidates in a fixed order, saying each guess, until it is right", async () => {
    const word = ORDER[1]!;
    const { server, device } = await withRound({ word });
    const before = replies(server).length;
    const reply = await say(server, "I'm done!", "t-2");
    expect(device.calls.slice(1)).toEqual([
      { method: "game.get_drawing", arguments: { round_id: ROUND_ID } },
      { method: "game.guess", arguments: { round_id: ROUND_ID, guess: ORDER[0] } },
      { method: "game.guess", arguments: { round_id: ROUND_ID, guess: word } },
    ]);
    expect(replies(server).slice(before)).toEqual([
      `🤔 Is it **${ORDER[0]}**? ❌ Not it — 2 guesses left.`,
      `🎉 Is it **${word}**? Yes — I got it! Great drawing. Say *let's play draw and guess* for another round.`,
    ]);
    expect(server.turn("s-1", "t-2")!.text).toBe(reply);
    // The round is over: another "done" has nothing to guess.
    expect(await say(server, "done", "t-3")).toContain("We aren't playing Draw and Guess right now");
    expect(device.calls).toHaveLength(4);
  });

  it("after three wrong guesses it says the word the game revealed", async () => {
    const word = ORDER.slice(3).find((w) => w.length === 4)!;
    const { server, device } = await withRound({ word });
    const reply = await say(server, "guess", "t-2");
    expect(device.calls.filter((c) => c.method === "game.guess").map((c) => c.arguments["guess"])).toEqual(ORDER.slice(0, 3));
    expect(reply).toBe(`Is it **${ORDER[2]}**? ❌ No… I'm out of guesses — it was **${word}**. Nice drawing anyway! Say *let's play draw and guess* for another round.`);
    expect(replies(server).slice(-3, -1)).toEqual([`🤔 Is it **${ORDER[0]}**? ❌ Not it — 2 guesses left.`, `🤔 Is it **${ORDER[1]}**? ❌ Not it — 1 guess left.`]);
  });

  it("an empty canvas is no time to guess: it asks for a drawing and keeps the round", async () => {
    const { server, device } = await withRound({ word: ORDER[0]!, strokes: 0 });
    expect(await say(server, "done", "t-2")).toBe("The canvas is still empty — draw your word first, then say **done**.");
    expect(device.calls.map((c) => c.method)).toEqual(["game.start_round", "game.get_drawing"]);
    device.state.strokes = 2;
    expect(await say(server, "ok I'm finished", "t-3")).toContain("Yes — I got it!");
    expect(device.calls.filter((c) => c.method === "game.guess")).toHaveLength(1);
  });

  it("a round the game has ended (a new word was picked) is over for the agent too", async () => {
    const { server } = await withRound({ word: "bird", refuse: { "game.get_drawing": "invalid_arguments" } });
    expect(await say(server, "done", "t-2")).toBe("That round is already over — maybe a new word was picked in the game. Say *let's play draw and guess* for another round.");
    expect(await say(server, "done", "t-3")).toContain("We aren't playing");
  });

  it("with the game's button it waits in the background: pressing “I'm done drawing” is enough for it to guess", async () => {
    const word = ORDER[1]!;
    const { server, device, reply } = await withRound({ word }, [START, LOOK, AWAIT, GUESS]);
    expect(reply).toContain("Draw it, then press **I'm done drawing** (or say **done** here) and I'll guess.");
    // The turn ended with the reply (nothing the person says waits behind it); the wait goes on.
    expect(server.turn("s-1", "t-1")!.state).toBe("completed");
    await waitFor(() => device.waiting.size === 1, "the wait for the drawing");
    expect(device.calls.at(-1)).toEqual({ method: "game.await_drawing", arguments: { round_id: ROUND_ID } });
    const before = replies(server).length;
    expect(device.pressDone()).toBe(1);
    await waitFor(() => replies(server).length === before + 2, "the guesses");
    expect(replies(server).slice(before)).toEqual([
      `🤔 Is it **${ORDER[0]}**? ❌ Not it — 2 guesses left.`,
      `🎉 Is it **${word}**? Yes — I got it! Great drawing. Say *let's play draw and guess* for another round.`,
    ]);
    expect(device.calls.slice(2).map((c) => c.arguments["guess"])).toEqual([ORDER[0], word]);
    // No turn was needed, and the round is over.
    expect([...server.sessions.get("s-1")!.turns.keys()]).toEqual(["t-1"]);
    expect(await say(server, "done", "t-2")).toContain("We aren't playing Draw and Guess right now");
  });

  it.each([
    ["dies (a crash)", false],
    ["is stopped (dispose, then close)", true],
  ])("its process %s while it waits for the button: the next one rebuilds the round from the log and still guesses when the person presses “I'm done drawing”, once", async (_how, graceful) => {
    const word = ORDER[2]!;
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [START, LOOK, AWAIT, GUESS]);
    const device = deviceGame(server, { word });
    // Each process its own envelope ids, as a real one's are random.
    const process = async (from: number) => {
      const client = await connectToFake(server, { ids: sequentialIds(from) });
      const agent = runDemoAgent(client);
      running.push({ client, agent });
      await waitFor(() => client.cursor("s-1") === server.sessions.get("s-1")!.session.last_seq, "caught up");
      const close = async () => {
        if (graceful) {
          agent.dispose();
          // Time for anything the stopping agent would still send (a cancel of the wait) to reach the device.
          await new Promise((resolve) => setTimeout(resolve, 30));
        }
        await client.close();
      };
      return { client, close };
    };
    const first = await process(1);
    await say(server, "let's play draw and guess with animals", "t-1");
    await waitFor(() => device.waiting.size === 1, "the wait for the drawing");
    // The process ends: the wait stays open on the device, whether it crashed or was stopped.
    await first.close();
    expect(device.cancelled).toEqual([]);

    const second = await process(1_000);
    const before = replies(server).length;
    expect(device.pressDone()).toBe(1);
    await waitFor(() => replies(server).length === before + 3, "the guesses");
    expect(replies(server).slice(before)).toEqual([
      `🤔 Is it **${ORDER[0]}**? ❌ Not it — 2 guesses left.`,
      `🤔 Is it **${ORDER[1]}**? ❌ Not it — 1 guess left.`,
      `🎉 Is it **${word}**? Yes — I got it! Great drawing. Say *let's play draw and guess* for another round.`,
    ]);
    // The wait was followed, not made again.
    expect(device.calls.filter((c) => c.method === "game.await_drawing")).toHaveLength(1);

    // Restarted once more: the round is over and its end was said; nothing is called or said again.
    const calls = device.calls.length;
    const said = replies(server).length;
    await second.close();
    await process(2_000);
    expect(await say(server, "done", "t-2")).toContain("We aren't playing Draw and Guess right now");
    expect(device.calls).toHaveLength(calls);
    expect(replies(server)).toHaveLength(said + 1);
  });

  it("what it said when the wait ended is not said again by a restarted process, even with the round still on", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [START, LOOK, AWAIT, GUESS]);
    // The button pressed on an empty canvas: nothing to guess, the round stays.
    const device = deviceGame(server, { word: ORDER[0]!, strokes: 0 });
    const first = await connectToFake(server, { ids: sequentialIds(1) });
    running.push({ client: first, agent: runDemoAgent(first) });
    await say(server, "let's play draw and guess with animals", "t-1");
    await waitFor(() => device.waiting.size === 1, "the wait for the drawing");
    device.pressDone();
    await waitFor(() => replies(server).at(-1)?.startsWith("The canvas is still empty") === true, "the empty canvas said");
    const said = replies(server).length;
    await first.close();

    const second = await connectToFake(server, { ids: sequentialIds(1_000) });
    running.push({ client: second, agent: runDemoAgent(second) });
    await waitFor(() => second.cursor("s-1") === server.sessions.get("s-1")!.session.last_seq, "caught up");
    await say(server, "hello", "t-2");
    expect(replies(server)).toHaveLength(said + 1);
    expect(replies(server).filter((r) => r.startsWith("The canvas is still empty"))).toHaveLength(1);
  });

  it("“done” in the chat while it waits for the button: the wait is cancelled and the round guessed once", async () => {
    const word = ORDER[0]!;
    const { server, device } = await withRound({ word }, [START, LOOK, AWAIT, GUESS]);
    await waitFor(() => device.waiting.size === 1, "the wait for the drawing");
    expect(await say(server, "done", "t-2")).toContain("Yes — I got it!");
    await waitFor(() => device.cancelled.length === 1, "the wait cancelled");
    // Cancelled as soon as the guessing started, before the first guess.
    expect(device.sequence.slice(device.sequence.indexOf("game.get_drawing"))).toEqual(["game.get_drawing", "cancel", "game.guess"]);
    expect(device.pressDone()).toBe(0);
    await new Promise((r) => setTimeout(r, 50));
    expect(device.calls.filter((c) => c.method === "game.guess")).toHaveLength(1);
  });

  it("a new round replaces the wait of the old one", async () => {
    const { server, device } = await withRound({ word: ORDER[0]! }, [START, LOOK, AWAIT, GUESS]);
    await waitFor(() => device.waiting.size === 1, "the first wait");
    await say(server, "let's play draw and guess", "t-2");
    await waitFor(() => device.cancelled.length === 1 && device.waiting.size === 1, "the old wait cancelled, a new one open");
    expect(device.calls.filter((c) => c.method === "game.await_drawing")).toHaveLength(2);
  });

  it("“done” with no round being played calls nothing", async () => {
    const server = new FakeAppServer();
    server.startSession("s-1");
    server.publishInventory("s-1", 1, [START, LOOK, GUESS]);
    const device = deviceGame(server, { word: "cat" });
    await start(server);
    expect(await say(server, "done", "t-1")).toBe("We aren't playing Draw and Guess right now. Say *let's play draw and guess* for another round.");
    expect(device.calls).toEqual([]);
  });
});

describe("draw and guess building blocks", () => {
  it("guesses in an order seeded by the round id: a permutation, the word's letter count first, the same every time", () => {
    expect([...ORDER].sort()).toEqual([...ANIMALS].sort());
    const fourLetters = ANIMALS.filter((w) => w.length === 4);
    expect(ORDER.slice(0, fourLetters.length).sort()).toEqual([...fourLetters].sort());
    expect(guessOrder({ round_id: ROUND_ID, letters: 4, candidates: ANIMALS })).toEqual(ORDER);
    const others = ["r-1", "r-2", "r-3", "r-4"].map((round_id) => guessOrder({ round_id, letters: 99, candidates: ANIMALS }).join());
    expect(new Set(others).size).toBeGreaterThan(1);
  });

  it("reads a start_round result, and nothing else", () => {
    expect(readStartedRound({ round_id: "r", round: 2, category: "food", letters: 5, candidates: ["apple", "apple", "pear"] })).toEqual({ round_id: "r", round: 2, category: "food", letters: 5, candidates: ["apple", "pear"] });
    expect(readStartedRound({ board_id: "b-1" })).toBeUndefined();
    expect(readStartedRound({ round_id: "r", round: 2, category: "food", letters: 5, candidates: [1] })).toBeUndefined();
    expect(readStartedRound(null)).toBeUndefined();
  });

  it("understands “done” and “guess” in English and Chinese, without taking over other requests", () => {
    for (const text of ["done", "Done!", "I'm done", "I’m finished", "ok, I'm done drawing", "guess", "Guess what it is", "can you guess it?", "画好了", "我画完了，你猜"]) {
      expect(parseIntent(text), text).toEqual({ kind: "guess_drawing" });
    }
    expect(parseIntent("let's play draw and guess")).toEqual({ kind: "open_app", target: "draw-and-guess" });
    expect(parseIntent("the guessing game please")).toEqual({ kind: "open_app", target: "draw-and-guess" });
    expect(parseIntent("I'm done with the whiteboard")).toEqual({ kind: "open_app", target: "whiteboard" });
    expect(parseIntent("what's done is done")).toEqual({ kind: "echo" });
  });

  it("fills an optional enum argument the person named: “… with animals”", () => {
    expect(argumentsFor(START, "let's play draw and guess with Food", APP_TARGETS["draw-and-guess"])).toEqual({ category: "food" });
    expect(argumentsFor(START, "let's play draw and guess", APP_TARGETS["draw-and-guess"])).toEqual({});
    expect(argumentsFor(START, "draw and guess about foods", APP_TARGETS["draw-and-guess"])).toEqual({});
  });
});
