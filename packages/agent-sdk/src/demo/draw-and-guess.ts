/**
 * The demo agent playing Draw and Guess (the `draw-and-guess` app's `game.*` tools): the person
 * draws a secret word, the agent guesses. The agent has no vision, so it guesses from the round's
 * candidate words — those with the word's letter count first, each group in an order shuffled by a
 * seed taken from the round id (the same round always gets the same guesses; no `Math.random`).
 *
 * After `game.start_round` succeeds, `roundStarted` remembers the round for that session and says
 * what to do. The person is done either way they like: they press "I'm done drawing" in the game —
 * the agent hears it through `game.await_drawing`, a call it keeps open in the background, outside any
 * turn (a turn held open would queue everything the person says meanwhile) — or they say "done" in
 * the chat (`guessDrawing`, in that turn; the background wait is then cancelled). Either way the agent
 * glances at the drawing (an empty canvas is no time to guess), then calls `game.guess` with
 * candidates it has not tried until one is right or the guesses run out, saying each guess and its
 * result; a round is guessed once. Rounds are kept per agent client and session, in memory; an agent
 * restarted while a round waits for the button rebuilds it from the log (`resumeRound`): the round its
 * `game.start_round` began, the guesses its `game.guess` calls made, and the wait, still open on the
 * device, followed again. What it says when the wait ends goes under the wait's `endEnvelopeId`, so it
 * is said once.
 */
import { LineUpError, type InventoryTool, type JsonObject, type JsonValue } from "@lineup/protocol";
import type { AgentClient, IncomingTurn } from "../agent-client.js";
import type { DiagnosticsSink } from "../lifecycle.js";
import { escapeMarkdown } from "./text.js";
import { underlyingClient } from "../turn-scope.js";
import { endEnvelopeId, loggedOutcome, type LoggedToolCall } from "../session-state.js";

/** What `game.start_round` tells the agent. */
export interface StartedRound {
  readonly round_id: string;
  readonly round: number;
  readonly category: string;
  readonly letters: number;
  readonly candidates: readonly string[];
}

interface PlayedRound extends StartedRound {
  readonly appScope: string;
  readonly tried: string[];
  guessesLeft: number;
  /** Guesses are being made (from the button or the chat): a second start would guess twice. */
  guessing: boolean;
  /** Ends the background wait for "I'm done drawing". */
  readonly watch: AbortController;
}

export interface GuessOptions {
  /** Local deadline of each tool call (see `invokeTool`). */
  readonly toolTimeoutMs?: number;
  /** Where a background wait that failed in an unexpected way is reported. */
  readonly diagnostics?: DiagnosticsSink;
}

const GUESSES_PER_ROUND = 3;

/** The rounds being played, per agent client (so two agents never share one) and session. */
const ROUNDS = new WeakMap<AgentClient, Map<string, PlayedRound>>();

function roundsOf(scoped: AgentClient): Map<string, PlayedRound> {
  // One agent's rounds, whichever turn's view of its client asks.
  const client = underlyingClient(scoped);
  let rounds = ROUNDS.get(client);
  if (rounds === undefined) ROUNDS.set(client, (rounds = new Map()));
  return rounds;
}

const PLAY_AGAIN = "Say *let's play draw and guess* for another round.";

/**
 * The agent is stopping: it stops following the client's rounds. Their waits are not cancelled: they stay
 * open on the device, so the person's "I'm done drawing" is answered by the next process (`resumeRound`),
 * as after a crash. A wait that ends while this client is still open finds its round gone and says nothing.
 */
export function stopRounds(client: AgentClient): void {
  ROUNDS.delete(underlyingClient(client));
}

/** Forgets the session's round (over, replaced, or the game is gone) and stops waiting for it. */
function forget(client: AgentClient, sessionId: string, round: PlayedRound): void {
  round.watch.abort();
  if (roundsOf(client).get(sessionId) === round) roundsOf(client).delete(sessionId);
}

/** The result of `game.start_round`, or undefined for anything else. */
export function readStartedRound(result: JsonValue): StartedRound | undefined {
  if (result === null || typeof result !== "object" || Array.isArray(result)) return undefined;
  const { round_id, round, category, letters, candidates } = result as Record<string, JsonValue>;
  if (typeof round_id !== "string" || round_id === "" || typeof round !== "number" || typeof category !== "string" || typeof letters !== "number") return undefined;
  if (!Array.isArray(candidates) || !candidates.every((c): c is string => typeof c === "string" && c.trim() !== "")) return undefined;
  return { round_id, round, category, letters, candidates: [...new Set(candidates)] };
}

/** 32-bit FNV-1a of the text: the shuffle's seed. */
function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** mulberry32: a small, fast, seeded generator of numbers in [0, 1). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const lettersOf = (word: string): number => word.replace(/[^\p{L}\p{N}]/gu, "").length;

/**
 * The order the agent guesses a round's candidates in: a Fisher–Yates shuffle seeded by the round
 * id, then the words with the round's letter count moved to the front (keeping their order).
 */
export function guessOrder(round: Pick<StartedRound, "round_id" | "letters" | "candidates">): string[] {
  const random = seeded(seedOf(round.round_id));
  const words = [...round.candidates];
  for (let i = words.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [words[i], words[j]] = [words[j]!, words[i]!];
  }
  return [...words.filter((w) => lettersOf(w) === round.letters), ...words.filter((w) => lettersOf(w) !== round.letters)];
}

/**
 * After `game.start_round` succeeded: remembers the round for the session and returns the reply
 * (undefined when the result is not a round, so the caller says what it says for any tool).
 */
export function roundStarted(client: AgentClient, sessionId: string, tool: InventoryTool, result: JsonValue, options: GuessOptions = {}): string | undefined {
  const started = readStartedRound(result);
  if (started === undefined) return undefined;
  const rounds = roundsOf(client);
  const previous = rounds.get(sessionId);
  if (previous !== undefined) forget(client, sessionId, previous);
  const round: PlayedRound = { ...started, appScope: tool.app_scope, tried: [], guessesLeft: GUESSES_PER_ROUND, guessing: false, watch: new AbortController() };
  rounds.set(sessionId, round);
  const button = toolOf(client, sessionId, round.appScope, "game.await_drawing") !== undefined;
  if (button) watchForDone(client, sessionId, round, options);
  return [
    `🎨 **Round ${round.round}** — your secret word is on the screen: a word from *${escapeMarkdown(round.category)}* with ${round.letters} letters. I can't see it!`,
    "",
    button ? "Draw it, then press **I'm done drawing** (or say **done** here) and I'll guess." : "Draw it — say **done** when you're finished and I'll guess.",
  ].join("\n");
}

/**
 * Keeps `game.await_drawing` open for the round, outside any turn; when the person presses "I'm done
 * drawing" the agent guesses and says so in the chat. Ends quietly when the round ends first, is
 * replaced, is guessed from the chat, or the agent stops.
 */
function watchForDone(client: AgentClient, sessionId: string, round: PlayedRound, options: GuessOptions, waitId?: string): void {
  const signal = round.watch.signal;
  void (async () => {
    try {
      const wait = await callFor(client, { sessionId, signal, ...(waitId === undefined ? {} : { callId: waitId }) }, round, "game.await_drawing", { round_id: round.round_id }, options);
      if (signal.aborted || round.guessing || roundsOf(client).get(sessionId) !== round) return;
      // The wait is over; the guesses are not part of it (playRound ends the wait for good).
      const reply = await playRound(client, sessionId, round, wait.result, { status: async () => {} }, options);
      const envelopeId = endEnvelopeId(wait.callId);
      await client.send(sessionId, { kind: "markdown", text: reply }, envelopeId === undefined ? {} : { envelopeId });
    } catch (error) {
      if (signal.aborted) return;
      // The game refused the wait (the round ended or is unknown), or it ran out: the person can still say done.
      if (error instanceof LineUpError && ["invalid_arguments", "operation_expired", "cancelled_by_user", "tool_not_visible", "request_cancelled"].includes(error.code)) return;
      options.diagnostics?.({ kind: "agent_error", message: `waiting for the drawing of round ${round.round_id} failed`, error });
    }
  })();
}

function toolOf(client: AgentClient, sessionId: string, appScope: string, method: string): InventoryTool | undefined {
  return client.inventory(sessionId)?.tools.find((t) => t.app_scope === appScope && t.method === method);
}

/** Calls one of the game's tools; refreshes the inventory and tries again once after `stale_inventory_revision`. */
async function call(client: AgentClient, on: { readonly sessionId: string; readonly signal?: AbortSignal }, round: PlayedRound, method: string, args: JsonObject, options: GuessOptions): Promise<JsonValue> {
  return (await callFor(client, on, round, method, args, options)).result;
}

/** `call`, with the id of the call that answered; `on.callId` follows a call already made (in the log). */
async function callFor(
  client: AgentClient,
  on: { readonly sessionId: string; readonly signal?: AbortSignal; readonly callId?: string },
  round: PlayedRound,
  method: string,
  args: JsonObject,
  options: GuessOptions,
): Promise<{ readonly result: JsonValue; readonly callId: string }> {
  for (let attempt = 0; ; attempt++) {
    if (toolOf(client, on.sessionId, round.appScope, method) === undefined) throw new LineUpError("tool_not_visible", `${method} is not in this conversation's inventory`);
    const handle = client.invokeTool(on.sessionId, method, args, {
      appScope: round.appScope,
      ...(on.signal === undefined ? {} : { signal: on.signal }),
      ...(on.callId === undefined || attempt > 0 ? {} : { callId: on.callId }),
      ...(options.toolTimeoutMs === undefined ? {} : { timeoutMs: options.toolTimeoutMs }),
    });
    try {
      return { result: await handle.result, callId: handle.callId };
    } catch (error) {
      if (error instanceof LineUpError && error.code === "stale_inventory_revision" && attempt === 0) {
        await client.refreshInventory(on.sessionId);
        continue;
      }
      throw error;
    }
  }
}

/** The result a logged call ended with; undefined while it runs, or when it ended with an error. */
function loggedResult(call: LoggedToolCall): JsonValue | undefined {
  const outcome = loggedOutcome(call);
  return outcome?.ok === true ? outcome.result : undefined;
}

/**
 * After a restart: `wait` is this agent's `game.await_drawing` that outlived its turn, its end not told.
 * Rebuilds its round from the log — the latest round `game.start_round` began, the words `game.guess`
 * tried — and follows the wait again; false (nothing done) when that round is over, was replaced, or a
 * guess of it is still running, or when this process plays a round there already.
 */
export function resumeRound(client: AgentClient, sessionId: string, wait: LoggedToolCall, options: GuessOptions = {}): boolean {
  const roundId = wait.arguments["round_id"];
  if (typeof roundId !== "string" || roundsOf(client).has(sessionId)) return false;
  const calls = client.toolCalls(sessionId);
  let latest: { readonly round: StartedRound; readonly appScope: string } | undefined;
  for (const call of calls) {
    const started = call.method === "game.start_round" ? readStartedRound(loggedResult(call) ?? null) : undefined;
    if (started !== undefined) latest = { round: started, appScope: call.appScope };
  }
  if (latest === undefined || latest.round.round_id !== roundId) return false;
  const tried: string[] = [];
  let guessesLeft = GUESSES_PER_ROUND;
  for (const call of calls) {
    if (call.method !== "game.guess" || call.arguments["round_id"] !== roundId) continue;
    const answer = loggedResult(call);
    if (answer === undefined || answer === null || typeof answer !== "object" || Array.isArray(answer)) return false;
    if (answer["correct"] === true) return false;
    const guess = call.arguments["guess"];
    if (typeof guess === "string") tried.push(guess);
    guessesLeft = typeof answer["guesses_left"] === "number" ? answer["guesses_left"] : guessesLeft - 1;
  }
  if (guessesLeft <= 0) return false;
  const round: PlayedRound = { ...latest.round, appScope: latest.appScope, tried, guessesLeft, guessing: false, watch: new AbortController() };
  roundsOf(client).set(sessionId, round);
  watchForDone(client, sessionId, round, options, wait.callId);
  return true;
}

/** The person says they are done in the chat: look at the drawing, then guess. Returns the turn's reply. */
export async function guessDrawing(client: AgentClient, turn: IncomingTurn, options: GuessOptions = {}): Promise<string> {
  const { sessionId, turnId } = turn;
  const round = roundsOf(client).get(sessionId);
  if (round === undefined) return `We aren't playing Draw and Guess right now. ${PLAY_AGAIN}`;
  if (round.guessing) return "I'm on it — my guesses are coming up in the game.";
  try {
    let drawing: JsonValue | undefined;
    if (toolOf(client, sessionId, round.appScope, "game.get_drawing") !== undefined) {
      await client.updateTurn(sessionId, turnId, { status: "working", label: "Looking at your drawing" });
      drawing = await call(client, turn, round, "game.get_drawing", { round_id: round.round_id }, options);
    }
    return await playRound(client, sessionId, round, drawing, { status: (label) => client.updateTurn(sessionId, turnId, { status: "working", label }).then(() => undefined), signal: turn.signal }, options);
  } catch (error) {
    if (!(error instanceof LineUpError) || turn.signal.aborted) throw error;
    return guessRefusal(error, () => forget(client, sessionId, round));
  }
}

/**
 * Guesses the round's untried candidates until one is right or the guesses run out, saying each miss;
 * returns the last thing to say. `drawing` is what the game showed of it (an empty canvas: nothing
 * guessed, the round kept). The round is guessed once: the wait for the button stops here.
 */
async function playRound(
  client: AgentClient,
  sessionId: string,
  round: PlayedRound,
  drawing: JsonValue | undefined,
  on: { readonly status: (label: string) => Promise<void>; readonly signal?: AbortSignal },
  options: GuessOptions,
): Promise<string> {
  const strokes = typeof drawing === "object" && drawing !== null && !Array.isArray(drawing) ? drawing["strokes"] : undefined;
  if (strokes === 0) return "The canvas is still empty — draw your word first, then say **done**.";
  round.guessing = true;
  round.watch.abort();
  try {
    const order = guessOrder(round).filter((w) => !round.tried.includes(w));
    for (const word of order) {
      if (round.guessesLeft <= 0) break;
      await on.status(`Guessing: ${word}`.slice(0, 200));
      const answer = await call(client, { sessionId, ...(on.signal === undefined ? {} : { signal: on.signal }) }, round, "game.guess", { round_id: round.round_id, guess: word }, options);
      round.tried.push(word);
      const { correct, guesses_left: left, word: revealed } = (typeof answer === "object" && answer !== null && !Array.isArray(answer) ? answer : {}) as Record<string, JsonValue>;
      round.guessesLeft = typeof left === "number" ? left : round.guessesLeft - 1;
      const shown = escapeMarkdown(word);
      if (correct === true) {
        forget(client, sessionId, round);
        return `🎉 Is it **${shown}**? Yes — I got it! Great drawing. ${PLAY_AGAIN}`;
      }
      if (round.guessesLeft <= 0) {
        forget(client, sessionId, round);
        const reveal = typeof revealed === "string" ? ` — it was **${escapeMarkdown(revealed)}**` : "";
        return `Is it **${shown}**? ❌ No… I'm out of guesses${reveal}. Nice drawing anyway! ${PLAY_AGAIN}`;
      }
      await client.send(sessionId, { kind: "markdown", text: `🤔 Is it **${shown}**? ❌ Not it — ${round.guessesLeft} ${round.guessesLeft === 1 ? "guess" : "guesses"} left.` });
    }
    forget(client, sessionId, round);
    return `I've run out of ideas for this one. ${PLAY_AGAIN}`;
  } finally {
    round.guessing = false;
  }
}

function guessRefusal(error: LineUpError, forget: () => void): string {
  switch (error.code) {
    case "invalid_arguments":
      // The app refuses a round that ended or that it does not know: a new word was picked, or the game was reset.
      forget();
      return `That round is already over — maybe a new word was picked in the game. ${PLAY_AGAIN}`;
    case "tool_not_visible":
    case "app_not_installed":
    case "app_disabled":
      forget();
      return `I can't reach the **Draw and Guess** game in this conversation any more (\`${error.code}\`). Install or enable it in **Apps**, then ${PLAY_AGAIN.charAt(0).toLowerCase()}${PLAY_AGAIN.slice(1)}`;
    case "operation_expired":
    case "request_timeout":
    case "expired":
      return "The game didn't answer in time. Say **done** again in a moment and I'll keep guessing.";
    default:
      return `Something went wrong while guessing: \`${error.code}\` — ${escapeMarkdown(error.message)}. Say **done** to try again.`;
  }
}
