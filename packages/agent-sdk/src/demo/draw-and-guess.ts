/**
 * The demo agent playing Draw and Guess (the `draw-and-guess` app's `game.*` tools): the person
 * draws a secret word, the agent guesses. The agent has no vision, so it guesses from the round's
 * candidate words — those with the word's letter count first, each group in an order shuffled by a
 * seed taken from the round id (the same round always gets the same guesses; no `Math.random`).
 *
 * After `game.start_round` succeeds, `roundStarted` remembers the round for that session and says
 * what to do; when the person says they are done, `guessDrawing` glances at the drawing
 * (`game.get_drawing`: an empty canvas is no time to guess), then calls `game.guess` with candidates
 * it has not tried until one is right or the guesses run out, saying each guess and its result.
 * Rounds are kept per agent client and session, in memory.
 */
import { LineUpError, type InventoryTool, type JsonObject, type JsonValue } from "@lineup/protocol";
import type { AgentClient, IncomingTurn } from "../agent-client.js";

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
}

export interface GuessOptions {
  /** Local deadline of each tool call (see `invokeTool`). */
  readonly toolTimeoutMs?: number;
}

const GUESSES_PER_ROUND = 3;

/** The rounds being played, per agent client (so two agents never share one) and session. */
const ROUNDS = new WeakMap<AgentClient, Map<string, PlayedRound>>();

function roundsOf(client: AgentClient): Map<string, PlayedRound> {
  let rounds = ROUNDS.get(client);
  if (rounds === undefined) ROUNDS.set(client, (rounds = new Map()));
  return rounds;
}

const PLAY_AGAIN = "Say *let's play draw and guess* for another round.";

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`);
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
export function roundStarted(client: AgentClient, sessionId: string, tool: InventoryTool, result: JsonValue): string | undefined {
  const round = readStartedRound(result);
  if (round === undefined) return undefined;
  roundsOf(client).set(sessionId, { ...round, appScope: tool.app_scope, tried: [], guessesLeft: GUESSES_PER_ROUND });
  return [
    `🎨 **Round ${round.round}** — your secret word is on the screen: a word from *${escapeMarkdown(round.category)}* with ${round.letters} letters. I can't see it!`,
    "",
    "Draw it — say **done** when you're finished and I'll guess.",
  ].join("\n");
}

function toolOf(client: AgentClient, sessionId: string, appScope: string, method: string): InventoryTool | undefined {
  return client.inventory(sessionId)?.tools.find((t) => t.app_scope === appScope && t.method === method);
}

/** Calls one of the game's tools; refreshes the inventory and tries again once after `stale_inventory_revision`. */
async function call(client: AgentClient, turn: IncomingTurn, round: PlayedRound, method: string, args: JsonObject, options: GuessOptions): Promise<JsonValue> {
  for (let attempt = 0; ; attempt++) {
    if (toolOf(client, turn.sessionId, round.appScope, method) === undefined) throw new LineUpError("tool_not_visible", `${method} is not in this conversation's inventory`);
    const handle = client.invokeTool(turn.sessionId, method, args, {
      appScope: round.appScope,
      signal: turn.signal,
      ...(options.toolTimeoutMs === undefined ? {} : { timeoutMs: options.toolTimeoutMs }),
    });
    try {
      return await handle.result;
    } catch (error) {
      if (error instanceof LineUpError && error.code === "stale_inventory_revision" && attempt === 0) {
        await client.refreshInventory(turn.sessionId);
        continue;
      }
      throw error;
    }
  }
}

/** The person says they are done: look at the drawing, then guess. Returns the turn's reply. */
export async function guessDrawing(client: AgentClient, turn: IncomingTurn, options: GuessOptions = {}): Promise<string> {
  const { sessionId, turnId } = turn;
  const rounds = roundsOf(client);
  const round = rounds.get(sessionId);
  if (round === undefined) return `We aren't playing Draw and Guess right now. ${PLAY_AGAIN}`;
  try {
    if (toolOf(client, sessionId, round.appScope, "game.get_drawing") !== undefined) {
      await client.updateTurn(sessionId, turnId, { status: "working", label: "Looking at your drawing" });
      const drawing = await call(client, turn, round, "game.get_drawing", { round_id: round.round_id }, options);
      const strokes = typeof drawing === "object" && drawing !== null && !Array.isArray(drawing) ? drawing["strokes"] : undefined;
      if (strokes === 0) return "The canvas is still empty — draw your word first, then say **done**.";
    }
    const order = guessOrder(round).filter((w) => !round.tried.includes(w));
    for (const word of order) {
      if (round.guessesLeft <= 0) break;
      await client.updateTurn(sessionId, turnId, { status: "working", label: `Guessing: ${word}`.slice(0, 200) });
      const answer = await call(client, turn, round, "game.guess", { round_id: round.round_id, guess: word }, options);
      round.tried.push(word);
      const { correct, guesses_left: left, word: revealed } = (typeof answer === "object" && answer !== null && !Array.isArray(answer) ? answer : {}) as Record<string, JsonValue>;
      round.guessesLeft = typeof left === "number" ? left : round.guessesLeft - 1;
      const shown = escapeMarkdown(word);
      if (correct === true) {
        rounds.delete(sessionId);
        return `🎉 Is it **${shown}**? Yes — I got it! Great drawing. ${PLAY_AGAIN}`;
      }
      if (round.guessesLeft <= 0) {
        rounds.delete(sessionId);
        const reveal = typeof revealed === "string" ? ` — it was **${escapeMarkdown(revealed)}**` : "";
        return `Is it **${shown}**? ❌ No… I'm out of guesses${reveal}. Nice drawing anyway! ${PLAY_AGAIN}`;
      }
      await client.send(sessionId, { kind: "markdown", text: `🤔 Is it **${shown}**? ❌ Not it — ${round.guessesLeft} ${round.guessesLeft === 1 ? "guess" : "guesses"} left.` });
    }
    rounds.delete(sessionId);
    return `I've run out of ideas for this one. ${PLAY_AGAIN}`;
  } catch (error) {
    if (!(error instanceof LineUpError) || turn.signal.aborted) throw error;
    return guessRefusal(error, () => rounds.delete(sessionId));
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
