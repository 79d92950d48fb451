/**
 * The chat timeline as a pure fold over the conversation's messages (ordered by `seq`): each message either
 * adds a row, updates a row in place (task progress, a tool call's receipt → progress → result, an
 * answered card), or only changes the status line. The fold is idempotent per `message_id`, so history
 * pages and live deliveries can overlap. Payloads were validated by the Runtime; they are still read
 * defensively, since a render must never throw on an unexpected shape.
 *
 * Text an agent streams in a turn (`lineup.turn.update` `text_delta`s) is a draft agent message, one per
 * turn, its pieces joined in seq order whatever order they arrive in (`streams`). It is shown as a message
 * row marked `streaming` while the turn is open. The agent's final message for the turn replaces it: the
 * agent's `lineup.message` after the turn's last delta and before the turn's end (the server runs one turn
 * at a time, so it can only be that turn's), else, when the turn completed without one, the completed
 * turn's `text`. A turn that failed or was cancelled keeps what was streamed, marked `cut_short`.
 *
 * A turn an app started (`lineup.task.request`: an app's agent task, docs/protocol.md "In-app agent tasks") is
 * one card instead (`app_task`): which app asked for what, its live status from the turn's `lineup.turn.*`
 * messages, the text the agent streams, the structured result when the turn completes, and the app's decision
 * on it (`lineup.task.decision`). Each attempt (a retry, a resubmit) is a turn of its own, so a card of its own.
 */
import type { JsonValue } from "@lineup/protocol";
import { CHAT_CARD_TYPES, CHAT_MESSAGE_TYPES } from "@lineup/runtime";
import type { AgentAppMessage } from "../types.js";

export interface ChoiceOption {
  readonly id: string;
  readonly label: string;
  readonly description?: string;
}

export interface CardAnswer {
  readonly outcome: string;
  readonly summary: string;
}

/** A choice / confirm / input card, from an interaction request or an action.required. */
export interface Card {
  readonly kind: "choice" | "confirm" | "input";
  readonly prompt: string;
  readonly detail?: string;
  readonly options: readonly ChoiceOption[];
  readonly multiple: boolean;
  readonly confirm_label: string;
  readonly cancel_label: string;
  readonly placeholder?: string;
  readonly multiline: boolean;
  readonly max_length?: number;
  /** Which answer path the Runtime takes: an action (approval outcomes) or an interaction response. */
  readonly via: "action" | "interaction";
  /** `action_id` or `interaction_id`: how a later `action.responded` finds its card. */
  readonly answer_key: string;
}

export type TimelineRow =
  | {
      readonly kind: "message";
      readonly key: string;
      readonly seq: number;
      readonly from: "user" | "agent" | "other";
      readonly format: "text" | "markdown";
      readonly text: string;
      readonly created_at: string;
      /** A draft the agent is still writing in an open turn (its streamed text so far); key `stream:<turn_id>`. */
      readonly streaming?: true;
      /** A draft whose turn failed or was stopped before the agent's final message: what was streamed, cut short. */
      readonly cut_short?: true;
    }
  | { readonly kind: "card"; readonly key: string; readonly seq: number; readonly message_id: string; readonly card: Card; readonly answer?: CardAnswer }
  | { readonly kind: "task"; readonly key: string; readonly seq: number; readonly task_id: string; readonly title: string; readonly state: string; readonly progress?: number; readonly detail?: string }
  | {
      readonly kind: "tool";
      readonly key: string;
      readonly seq: number;
      readonly call_id: string;
      readonly app_scope: string;
      readonly phase: "received" | "running" | "succeeded" | "failed";
      readonly stage?: string;
      readonly progress?: number;
      readonly message?: string;
      readonly code?: string;
      /** The agent's name for this call: the title of its task whose `task_id` is the call's id. */
      readonly title?: string;
      /** The app's name for the tool called (from the Runtime's receipt): the card's title when the agent gave none. */
      readonly tool_title?: string;
      /** That task's latest detail (the agent's words; the phase stays the Runtime's). */
      readonly detail?: string;
      /** A Runtime-owned operation (spec 6.3) that ended early: its result says `interrupted`, and why. */
      readonly interrupted?: { readonly reason?: string };
    }
  | AppTaskRow
  | { readonly kind: "artifact"; readonly key: string; readonly seq: number; readonly artifact_id: string; readonly name: string; readonly mime_type: string; readonly size: number; readonly caption?: string }
  | { readonly kind: "notice"; readonly key: string; readonly seq: number; readonly level: "info" | "warning" | "error"; readonly text: string };

/** Where an app's agent task stands, as its card says it: `stopped` is a cancelled turn, whoever cancelled it. */
export type AppTaskCardState = "queued" | "working" | "waiting_for_user" | "done" | "failed" | "stopped";

/** One attempt of an app's agent task: one turn of the conversation (key `app-task:<turn_id>`), at its request's seq. */
export interface AppTaskRow {
  readonly kind: "app_task";
  readonly key: string;
  readonly seq: number;
  readonly task_id: string;
  readonly turn_id: string;
  /** 1 for the first run; a retry or resubmit is the next. */
  readonly attempt: number;
  /** The app that asked (the chat shows its name). */
  readonly app_scope: string;
  readonly entry: string;
  readonly title?: string;
  /** The task's text input. */
  readonly text?: string;
  readonly state: AppTaskCardState;
  /** The agent's latest words on what it does (a working or waiting turn). */
  readonly label?: string;
  readonly progress?: number;
  /** What the agent streamed in the turn, so far. */
  readonly streamed?: string;
  /** The structured result, once the turn completed (`describeOutput` reads it for people). */
  readonly output?: JsonValue;
  /** The completed turn's text, if it had one. */
  readonly result_text?: string;
  /** Why it failed. */
  readonly error?: { readonly code?: string; readonly message?: string };
  /** What the app decided on the result. */
  readonly decision?: { readonly decision: "accepted" | "rejected"; readonly reason?: string };
}

/**
 * The status line under the conversation. `waiting_for_agent`: the person spoke and the agent has not
 * taken it up yet (it says `thinking`, or answers, when it does; until then nothing says it is thinking:
 * it may not even be connected). `stopped`: the person stopped the agent's turn (the chat's Stop, on any
 * of their devices); it says so until the conversation moves on.
 */
export interface AgentStatus {
  readonly state: "waiting_for_agent" | "thinking" | "working" | "waiting_for_user" | "stopped";
  readonly label?: string;
}

export interface TimelineModel {
  readonly rows: readonly TimelineRow[];
  /** The agent's current activity (or that it was stopped), or undefined when idle. */
  readonly status: AgentStatus | undefined;
  /** The turns seen, by id, in whatever order history pages and live messages come. */
  readonly turns: ReadonlyMap<string, TurnFacts>;
  /** The text each turn streamed, by turn id: what its draft message is made of. */
  readonly streams: ReadonlyMap<string, TurnStream>;
  /** The turns apps started as agent tasks (`lineup.task.request`), by turn id. */
  readonly task_requests: ReadonlyMap<string, TaskRequest>;
  /** The apps' decisions on their tasks' results (`lineup.task.decision`), by turn id. */
  readonly task_decisions: ReadonlyMap<string, TaskDecision>;
  /** Message ids already folded in. */
  readonly seen: ReadonlySet<string>;
  /** The highest seq folded in (the status line follows only newer messages). */
  readonly lastSeq: number;
}

/**
 * What the fold knows of a turn: `open` from the person's message that started it until its end (completed,
 * failed, cancelled) arrives, then `ended`; where it began (the seq of that message) and, for one the person
 * stopped, where it was stopped — a card the agent asked in between can no longer be answered.
 */
export interface TurnFacts {
  readonly state: "open" | "ended";
  readonly started?: number;
  readonly stopped?: number;
  /** The newest thing the agent said it does in the turn: an update, or a card it asked in it (`card`: that card's row key). */
  readonly activity?: { readonly seq: number; readonly state: "working" | "waiting_for_user"; readonly label?: string; readonly progress?: number; readonly card?: string };
  /** How the turn ended. */
  readonly ended?: { readonly seq: number; readonly outcome: "completed" | "failed" | "cancelled"; readonly output?: JsonValue; readonly text?: string; readonly error?: { readonly code?: string; readonly message?: string } };
}

/** An app's agent task turn, as its `lineup.task.request` says. */
export interface TaskRequest {
  readonly seq: number;
  readonly task_id: string;
  readonly attempt: number;
  readonly app_scope: string;
  readonly entry: string;
  readonly title?: string;
  readonly text?: string;
}

export interface TaskDecision {
  readonly seq: number;
  readonly decision: "accepted" | "rejected";
  readonly reason?: string;
}

export interface TurnStream {
  /** The streamed pieces, in seq order. */
  readonly deltas: readonly { readonly seq: number; readonly text: string }[];
  /** When the first piece (by seq) was written. */
  readonly created_at: string;
  /** How the turn ended, once that arrived: its seq, and a completed turn's text. */
  readonly ended?: { readonly seq: number; readonly outcome: "completed" | "failed" | "cancelled"; readonly text?: string };
}

export const EMPTY_TIMELINE: TimelineModel = { rows: [], status: undefined, turns: new Map(), streams: new Map(), task_requests: new Map(), task_decisions: new Map(), seen: new Set(), lastSeq: 0 };

/** How a card of a stopped turn reads: nobody can answer it any more. */
export const STOPPED_CARD_ANSWER: CardAnswer = { outcome: "stopped", summary: "you stopped the agent" };

/** Whether `seq` falls inside a turn the person stopped (after its start, before the stop). */
function inStoppedTurn(turns: ReadonlyMap<string, TurnFacts>, seq: number): boolean {
  for (const turn of turns.values()) if (turn.started !== undefined && turn.stopped !== undefined && turn.started < seq && seq < turn.stopped) return true;
  return false;
}

/** Adds what `facts` say to the turn's record; a turn first seen by its end is never opened again. */
function noteTurn(draft: Draft, turnId: string, facts: Partial<TurnFacts>): void {
  const known = draft.turns.get(turnId);
  draft.turns.set(turnId, { ...known, ...facts, state: facts.state ?? known?.state ?? "open" });
}

/** Closes the unanswered cards that fall inside a stopped turn (history pages may bring them after the stop). */
function closeStoppedCards(draft: Draft): void {
  draft.rows.forEach((row, index) => {
    if (row.kind === "card" && row.answer === undefined && inStoppedTurn(draft.turns, row.seq)) draft.rows[index] = { ...row, answer: STOPPED_CARD_ANSWER };
  });
}

/** The turns of the conversation still open (the agent works on one, the others wait their turn), oldest first. */
export function openTurns(model: TimelineModel): string[] {
  const open: string[] = [];
  for (const [turnId, turn] of model.turns) if (turn.state === "open") open.push(turnId);
  return open;
}

/** Whether a turn of the conversation is open: what a Stop would end. */
export function hasOpenTurn(model: TimelineModel): boolean {
  for (const turn of model.turns.values()) if (turn.state === "open") return true;
  return false;
}

/** The message types the chat timeline folds: what the Runtime declares chat subscribes to. */
export const TIMELINE_TYPES = [...CHAT_MESSAGE_TYPES, ...CHAT_CARD_TYPES] as const;

type Obj = { readonly [key: string]: unknown };
const obj = (value: unknown): Obj => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : {});
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
const clamp01 = (value: number | undefined): number | undefined => (value === undefined ? undefined : Math.min(1, Math.max(0, value)));

function optionsOf(value: unknown): ChoiceOption[] {
  if (!Array.isArray(value)) return [];
  const out: ChoiceOption[] = [];
  for (const item of value) {
    const o = obj(item);
    const id = str(o["id"]);
    const label = str(o["label"]);
    if (id === undefined || label === undefined) continue;
    const description = str(o["description"]);
    out.push(description === undefined ? { id, label } : { id, label, description });
  }
  return out;
}

function cardOf(message: AgentAppMessage): Card | undefined {
  const p = obj(message.payload);
  const prompt = str(p["prompt"]) ?? "";
  const base = { prompt, options: optionsOf(p["options"]), multiple: p["multiple"] === true, multiline: p["multiline"] === true };
  const extras = {
    ...(str(p["detail"]) === undefined ? {} : { detail: str(p["detail"])! }),
    ...(str(p["placeholder"]) === undefined ? {} : { placeholder: str(p["placeholder"])! }),
    ...(num(p["max_length"]) === undefined ? {} : { max_length: num(p["max_length"])! }),
  };
  if (message.type === "lineup.interaction.request") {
    const kind = str(p["kind"]);
    const id = str(p["interaction_id"]);
    if ((kind !== "choice" && kind !== "confirm" && kind !== "input") || id === undefined) return undefined;
    return { kind, ...base, ...extras, confirm_label: str(p["confirm_label"]) ?? "Confirm", cancel_label: str(p["cancel_label"]) ?? "Cancel", via: "interaction", answer_key: id };
  }
  const kind = str(p["kind"]);
  const id = str(p["action_id"]);
  if (id === undefined) return undefined;
  const mapped = kind === "approval" ? "confirm" : kind === "choice" ? "choice" : kind === "input" ? "input" : undefined;
  if (mapped === undefined) return undefined;
  return { kind: mapped, ...base, ...extras, confirm_label: "Approve", cancel_label: "Reject", via: "action", answer_key: id };
}

/** A short human summary of an answer, for the answered card. */
export function summarizeAnswer(card: Card, response: { outcome: string; choice_ids?: readonly string[]; text?: string; confirmed?: boolean }): CardAnswer {
  const { outcome } = response;
  if (outcome === "cancelled") return { outcome, summary: "Cancelled" };
  if (outcome === "rejected" || response.confirmed === false) return { outcome, summary: card.cancel_label };
  if (outcome === "approved" || response.confirmed === true) return { outcome, summary: card.confirm_label };
  if (card.kind === "choice") {
    const labels = (response.choice_ids ?? []).map((id) => card.options.find((o) => o.id === id)?.label ?? id);
    return { outcome, summary: labels.join(", ") || "Answered" };
  }
  return { outcome, summary: response.text ?? "Answered" };
}

/** Updates the row with `key` in place; false when there is none. */
function replaceRow(rows: TimelineRow[], key: string, update: (row: TimelineRow) => TimelineRow): boolean {
  for (let index = rows.length - 1; index >= 0; index--) {
    if (rows[index]!.key === key) {
      rows[index] = update(rows[index]!);
      return true;
    }
  }
  return false;
}

/** Inserts keeping `seq` order (history pages may arrive after live messages). */
function insertRow(rows: TimelineRow[], row: TimelineRow): void {
  let index = rows.length;
  while (index > 0 && rows[index - 1]!.seq > row.seq) index--;
  if (index === rows.length) rows.push(row);
  else rows.splice(index, 0, row);
}

interface Draft {
  rows: TimelineRow[];
  status: AgentStatus | undefined;
  turns: Map<string, TurnFacts>;
  streams: Map<string, TurnStream>;
  task_requests: Map<string, TaskRequest>;
  task_decisions: Map<string, TaskDecision>;
  seen: Set<string>;
  lastSeq: number;
}

const streamKey = (turnId: string): string => `stream:${turnId}`;

/** Whether `row` is a message the agent sent (not a draft of streamed text). */
const isAgentMessage = (row: TimelineRow): boolean => row.kind === "message" && row.from === "agent" && row.key.startsWith("m:");

/** The row a turn's streamed text shows as now, or undefined when it shows as none (replaced, or blank). */
function streamRow(rows: readonly TimelineRow[], turnId: string, stream: TurnStream): TimelineRow | undefined {
  const last = stream.deltas.at(-1);
  if (last === undefined) return undefined;
  const { ended } = stream;
  // The agent's final message for the turn: after its last piece, before its end.
  if (rows.some((row) => isAgentMessage(row) && row.seq > last.seq && (ended === undefined || row.seq < ended.seq))) return undefined;
  const streamed = stream.deltas.map((d) => d.text).join("");
  const base = { kind: "message", key: streamKey(turnId), seq: last.seq, from: "agent", format: "markdown", created_at: stream.created_at } as const;
  // Completed without a message of its own: the turn's text is the agent's final word.
  if (ended?.outcome === "completed") return { ...base, text: ended.text?.trim() ? ended.text : streamed };
  if (streamed.trim() === "") return undefined;
  return ended === undefined ? { ...base, text: streamed, streaming: true } : { ...base, text: streamed, cut_short: true };
}

/**
 * Puts the draft row of `turnId` where (and as) its stream now says: removed, replaced or moved to its last
 * piece's seq. An app's task turn has none: its card shows what it streamed.
 */
function placeStream(draft: Draft, turnId: string): void {
  const stream = draft.streams.get(turnId);
  const key = streamKey(turnId);
  const index = draft.rows.findIndex((row) => row.key === key);
  if (index >= 0) draft.rows.splice(index, 1);
  const row = stream === undefined || draft.task_requests.has(turnId) ? undefined : streamRow(draft.rows, turnId, stream);
  if (row !== undefined) insertRow(draft.rows, row);
  placeTaskCard(draft, turnId);
}

const taskCardKey = (turnId: string): string => `app-task:${turnId}`;

/** The card's status: how the turn ended, else what the agent last said it does (a card it asked, answered since, no longer waits). */
function taskState(rows: readonly TimelineRow[], turn: TurnFacts | undefined, streamed: boolean): AppTaskCardState {
  const ended = turn?.ended?.outcome;
  if (ended !== undefined) return ended === "completed" ? "done" : ended === "failed" ? "failed" : "stopped";
  const activity = turn?.activity;
  if (activity?.state === "waiting_for_user") {
    const answered = activity.card !== undefined && rows.some((row) => row.kind === "card" && row.key === activity.card && row.answer !== undefined);
    return answered ? "working" : "waiting_for_user";
  }
  return activity !== undefined || streamed ? "working" : "queued";
}

/** Puts the card of the task turn `turnId` where (and as) its request, its turn and its decision now say; nothing for another turn. */
function placeTaskCard(draft: Draft, turnId: string): void {
  const request = draft.task_requests.get(turnId);
  if (request === undefined) return;
  const turn = draft.turns.get(turnId);
  const streamed = draft.streams.get(turnId)?.deltas.map((d) => d.text).join("") ?? "";
  const state = taskState(draft.rows, turn, streamed !== "");
  const activity = state === "working" || state === "waiting_for_user" ? turn?.activity : undefined;
  const ended = turn?.ended;
  const decision = draft.task_decisions.get(turnId);
  const row: AppTaskRow = {
    kind: "app_task",
    key: taskCardKey(turnId),
    seq: request.seq,
    task_id: request.task_id,
    turn_id: turnId,
    attempt: request.attempt,
    app_scope: request.app_scope,
    entry: request.entry,
    ...(request.title === undefined ? {} : { title: request.title }),
    ...(request.text === undefined ? {} : { text: request.text }),
    state,
    ...(activity?.label === undefined ? {} : { label: activity.label }),
    ...(activity?.progress === undefined ? {} : { progress: activity.progress }),
    ...(streamed.trim() === "" ? {} : { streamed }),
    ...(state === "done" && ended?.output !== undefined ? { output: ended.output } : {}),
    ...(state === "done" && ended?.text !== undefined && ended.text.trim() !== "" ? { result_text: ended.text } : {}),
    ...(state === "failed" && ended?.error !== undefined ? { error: ended.error } : {}),
    ...(decision === undefined ? {} : { decision: decision.reason === undefined ? { decision: decision.decision } : { decision: decision.decision, reason: decision.reason } }),
  };
  if (!replaceRow(draft.rows, row.key, () => row)) insertRow(draft.rows, row);
}

/** A card was answered: the task turns that waited on it work again. */
function placeCardsWaitingOn(draft: Draft, cardKey: string): void {
  for (const [turnId, turn] of draft.turns) if (turn.activity?.card === cardKey) placeTaskCard(draft, turnId);
}

/** Records what the agent says it does in a turn, when it is newer than what is known (pages come in any order). */
function noteActivity(draft: Draft, turnId: string, activity: NonNullable<TurnFacts["activity"]>): void {
  const known = draft.turns.get(turnId)?.activity;
  if (known !== undefined && known.seq > activity.seq) return;
  noteTurn(draft, turnId, { activity });
}

/** The notice a task turn's end would have shown (it came before the request said whose turn it was): its card says it. */
function dropEndNotice(draft: Draft, turnId: string): void {
  const endSeq = draft.turns.get(turnId)?.ended?.seq;
  if (endSeq === undefined) return;
  const index = draft.rows.findIndex((row) => row.kind === "notice" && row.seq === endSeq);
  if (index >= 0) draft.rows.splice(index, 1);
}

/** Adds a streamed piece at its seq (history pages may bring earlier pieces after later ones). */
function addDelta(draft: Draft, turnId: string, seq: number, text: string, createdAt: string): void {
  const stream = draft.streams.get(turnId);
  const deltas = stream?.deltas.slice() ?? [];
  let index = deltas.length;
  while (index > 0 && deltas[index - 1]!.seq > seq) index--;
  deltas.splice(index, 0, { seq, text });
  const created_at = stream === undefined || index === 0 ? createdAt : stream.created_at;
  draft.streams.set(turnId, { ...stream, deltas, created_at });
  placeStream(draft, turnId);
}

/** Records how a turn ended, for its draft. */
function endStream(draft: Draft, turnId: string | undefined, ended: NonNullable<TurnStream["ended"]>): void {
  if (turnId === undefined) return;
  const stream = draft.streams.get(turnId);
  if (stream === undefined) {
    // The end may arrive before its pieces (a newer page first): remembered for when they come.
    draft.streams.set(turnId, { deltas: [], created_at: "", ended });
    return;
  }
  draft.streams.set(turnId, { ...stream, ended });
  placeStream(draft, turnId);
}

/** An agent message at `seq` may be the final message of a turn that streamed: its draft gives way. */
function settleStreams(draft: Draft, seq: number): void {
  for (const [turnId, stream] of draft.streams) {
    const last = stream.deltas.at(-1);
    if (last !== undefined && last.seq < seq && (stream.ended === undefined || seq < stream.ended.seq)) placeStream(draft, turnId);
  }
}

/** Folds one message into the draft (mutating it: callers copy once per batch). */
function fold(draft: Draft, message: AgentAppMessage): void {
  if (draft.seen.has(message.message_id)) return;
  draft.seen.add(message.message_id);
  const newest = message.seq >= draft.lastSeq;
  draft.lastSeq = Math.max(draft.lastSeq, message.seq);
  const p = obj(message.payload);
  const rows = draft.rows;
  let status = draft.status;
  const key = `m:${message.message_id}`;

  switch (message.type) {
    case "lineup.message": {
      const from = message.sender.kind === "user" ? "user" : message.sender.kind === "agent" ? "agent" : "other";
      const format = str(p["format"]) === "markdown" ? "markdown" : "text";
      insertRow(rows, { kind: "message", key, seq: message.seq, from, format, text: str(p["text"]) ?? "", created_at: message.created_at });
      if (from === "agent") settleStreams(draft, message.seq);
      if (newest && from === "user") status = { state: "waiting_for_agent" };
      // The person's message that started a turn (an older page may bring it after the turn's end).
      if (from === "user" && message.turn_id !== undefined) {
        noteTurn(draft, message.turn_id, { started: message.seq });
        closeStoppedCards(draft);
      }
      break;
    }
    case "lineup.status": {
      if (!newest) break;
      const state = str(p["state"]);
      const label = str(p["label"]);
      status = state === "thinking" || state === "working" || state === "waiting_for_user" ? { state, ...(label === undefined ? {} : { label }) } : undefined;
      break;
    }
    case "lineup.turn.update": {
      const delta = str(p["text_delta"]);
      const label = str(p["label"]);
      const state = str(p["status"]);
      if (message.turn_id !== undefined && (label !== undefined || state !== undefined || num(p["progress"]) !== undefined)) {
        const progress = clamp01(num(p["progress"]));
        noteActivity(draft, message.turn_id, { seq: message.seq, state: state === "waiting_for_user" ? "waiting_for_user" : "working", ...(label === undefined ? {} : { label }), ...(progress === undefined ? {} : { progress }) });
        placeTaskCard(draft, message.turn_id);
      }
      if (delta !== undefined && delta !== "" && message.turn_id !== undefined && message.sender.kind === "agent") addDelta(draft, message.turn_id, message.seq, delta, message.created_at);
      if (!newest) break;
      if (label !== undefined || state !== undefined) status = { state: state === "waiting_for_user" || state === "thinking" ? state : "working", ...(label === undefined ? {} : { label }) };
      break;
    }
    case "lineup.turn.completed": {
      // The turn's text repeats the agent's last message: the messages are the record, not the turn (only a
      // turn that streamed and sent no message of its own shows its text, in place of the draft).
      const text = str(p["text"]);
      if (message.turn_id !== undefined) {
        const output = p["output"] as JsonValue | undefined;
        noteTurn(draft, message.turn_id, { state: "ended", ended: { seq: message.seq, outcome: "completed", ...(output === undefined ? {} : { output }), ...(text === undefined ? {} : { text }) } });
        placeTaskCard(draft, message.turn_id);
      }
      endStream(draft, message.turn_id, { seq: message.seq, outcome: "completed", ...(text === undefined ? {} : { text }) });
      if (newest) status = undefined;
      break;
    }
    case "lineup.turn.cancelled": {
      if (message.turn_id !== undefined) {
        noteTurn(draft, message.turn_id, { state: "ended", ended: { seq: message.seq, outcome: "cancelled" } });
        placeTaskCard(draft, message.turn_id);
      }
      endStream(draft, message.turn_id, { seq: message.seq, outcome: "cancelled" });
      // Stopped by the person (not `interrupted` by a newer message, which speaks for itself). An app's task
      // says so on its card.
      const stopped = str(p["reason"]) !== "interrupted";
      const taskTurn = message.turn_id !== undefined && draft.task_requests.has(message.turn_id);
      if (stopped && !taskTurn) insertRow(rows, { kind: "notice", key, seq: message.seq, level: "info", text: "You stopped the agent." });
      if (stopped && message.turn_id !== undefined) {
        noteTurn(draft, message.turn_id, { stopped: message.seq });
        closeStoppedCards(draft);
      }
      if (newest) status = stopped ? { state: "stopped" } : undefined;
      break;
    }
    case "lineup.turn.failed": {
      const error = obj(p["error"]);
      const code = str(error["code"]);
      const why = str(error["message"]);
      if (message.turn_id !== undefined) {
        noteTurn(draft, message.turn_id, { state: "ended", ended: { seq: message.seq, outcome: "failed", error: { ...(code === undefined ? {} : { code }), ...(why === undefined ? {} : { message: why }) } } });
        placeTaskCard(draft, message.turn_id);
      }
      endStream(draft, message.turn_id, { seq: message.seq, outcome: "failed" });
      if (newest) status = undefined;
      // An app's task says so on its card.
      if (message.turn_id === undefined || !draft.task_requests.has(message.turn_id)) insertRow(rows, { kind: "notice", key, seq: message.seq, level: "error", text: `The agent's turn failed: ${why ?? code ?? "unknown error"}` });
      break;
    }
    case "lineup.task.request": {
      const turnId = str(p["turn_id"]) ?? message.turn_id;
      const taskId = str(p["task_id"]);
      const entry = str(p["entry"]);
      if (turnId === undefined || taskId === undefined || entry === undefined) break;
      const title = str(p["title"]);
      const text = str(p["text"]);
      const attempt = num(p["attempt"]);
      draft.task_requests.set(turnId, {
        seq: message.seq,
        task_id: taskId,
        attempt: attempt !== undefined && attempt >= 1 ? Math.floor(attempt) : 1,
        app_scope: str(p["app_scope"]) ?? message.source_app_scope ?? message.app_scope,
        entry,
        ...(title === undefined ? {} : { title }),
        ...(text === undefined ? {} : { text }),
      });
      // The turn began here (what a Stop ends); an end or a draft seen before it belongs to the card.
      noteTurn(draft, turnId, { started: message.seq });
      closeStoppedCards(draft);
      dropEndNotice(draft, turnId);
      placeStream(draft, turnId);
      break;
    }
    case "lineup.task.decision": {
      const turnId = str(p["turn_id"]);
      const decision = str(p["decision"]);
      if (turnId === undefined || (decision !== "accepted" && decision !== "rejected")) break;
      const known = draft.task_decisions.get(turnId);
      if (known !== undefined && known.seq > message.seq) break;
      const reason = str(p["reason"]);
      draft.task_decisions.set(turnId, { seq: message.seq, decision, ...(reason === undefined ? {} : { reason }) });
      placeTaskCard(draft, turnId);
      break;
    }
    case "lineup.task.progress": {
      const taskId = str(p["task_id"]) ?? message.message_id;
      const title = str(p["title"]);
      const progress = clamp01(num(p["progress"]));
      const detail = str(p["detail"]);
      const state = str(p["state"]) ?? "running";
      // The agent's task for a tool call (its task_id is the call's id) is told on the call's card: one card per call.
      if (replaceRow(rows, `tool:${taskId}`, (row) => (row.kind !== "tool" ? row : { ...row, ...(title === undefined ? {} : { title }), ...(detail === undefined ? {} : { detail }) }))) break;
      const taskKey = `task:${taskId}`;
      const update = (row: TimelineRow): TimelineRow =>
        row.kind !== "task" ? row : { kind: "task", key: taskKey, seq: row.seq, task_id: taskId, title: title ?? row.title, state, ...(progress === undefined ? (row.progress === undefined ? {} : { progress: row.progress }) : { progress }), ...(detail === undefined ? {} : { detail }) };
      if (!replaceRow(rows, taskKey, update)) insertRow(rows, { kind: "task", key: taskKey, seq: message.seq, task_id: taskId, title: title ?? "Task", state, ...(progress === undefined ? {} : { progress }), ...(detail === undefined ? {} : { detail }) });
      break;
    }
    case "lineup.interaction.request":
    case "lineup.action.required": {
      const card = cardOf(message);
      if (card === undefined) break;
      // The Runtime records how a card was answered (by this device or another): an answered card never looks open again.
      const answer = message.answer !== undefined ? summarizeAnswer(card, message.answer) : inStoppedTurn(draft.turns, message.seq) ? STOPPED_CARD_ANSWER : undefined;
      insertRow(rows, { kind: "card", key, seq: message.seq, message_id: message.message_id, card, ...(answer === undefined ? {} : { answer }) });
      if (newest && answer === undefined) status = { state: "waiting_for_user" };
      // A card the agent asked in a turn: that turn waits for the person (until the card is answered).
      if (message.turn_id !== undefined) {
        noteActivity(draft, message.turn_id, { seq: message.seq, state: "waiting_for_user", card: key });
        placeTaskCard(draft, message.turn_id);
      }
      break;
    }
    case "lineup.action.responded": {
      const actionId = str(p["action_id"]);
      const response = obj(p["response"]);
      const index = rows.findIndex((row) => row.kind === "card" && row.card.via === "action" && row.card.answer_key === actionId);
      const row = rows[index];
      if (row !== undefined && row.kind === "card") {
        const choiceIds = Array.isArray(response["choice_ids"]) ? response["choice_ids"].filter((v): v is string => typeof v === "string") : undefined;
        const text = str(response["text"]);
        const answer = summarizeAnswer(row.card, { outcome: str(response["outcome"]) ?? "answered", ...(choiceIds === undefined ? {} : { choice_ids: choiceIds }), ...(text === undefined ? {} : { text }) });
        rows[index] = { ...row, answer };
        placeCardsWaitingOn(draft, row.key);
      }
      break;
    }
    case "lineup.tool.receipt":
    case "lineup.tool.progress":
    case "lineup.tool.result":
    case "lineup.tool.error": {
      const callId = str(message.correlation?.["call_id"]) ?? message.message_id;
      const toolKey = `tool:${callId}`;
      const phaseOf = (before: "received" | "running"): "received" | "running" | "succeeded" | "failed" => {
        if (message.type === "lineup.tool.result") return "succeeded";
        if (message.type === "lineup.tool.error") return "failed";
        if (message.type === "lineup.tool.progress") return "running";
        const receipt = str(p["status"]);
        return receipt === "activation_failed" || receipt === "activation_cancelled" ? "failed" : before;
      };
      const stage = str(p["stage"]) ?? (message.type === "lineup.tool.receipt" ? str(p["status"]) : undefined);
      const progress = clamp01(num(p["progress"]));
      const text = str(p["message"]);
      const code = str(p["code"]);
      const toolTitle = message.type === "lineup.tool.receipt" ? str(obj(p["tool"])["title"]) : undefined;
      const apply = (row: TimelineRow): TimelineRow => {
        if (row.kind !== "tool") return row;
        if (toolTitle !== undefined && row.tool_title === undefined) row = { ...row, tool_title: toolTitle };
        // One terminal outcome: nothing that arrives after it (a late error, a stray progress) changes the card.
        if (row.phase === "succeeded" || row.phase === "failed") return row;
        const phase = phaseOf(row.phase);
        if (phase === "succeeded") {
          // The last progress line ("Saving the recording") is not how the call ended: the result card says that.
          const { message: _lastProgress, ...rest } = row;
          const interrupted = interruptedOperation(p["result"]);
          return { ...rest, phase, ...(stage === undefined ? {} : { stage }), ...(progress === undefined ? {} : { progress }), ...(interrupted === undefined ? {} : { interrupted }) };
        }
        return {
          ...row,
          phase,
          ...(stage === undefined ? {} : { stage }),
          ...(progress === undefined ? {} : { progress }),
          ...(text === undefined ? {} : { message: text }),
          ...(code === undefined ? {} : { code }),
        };
      };
      const fresh: TimelineRow = { kind: "tool", key: toolKey, seq: message.seq, call_id: callId, app_scope: message.source_app_scope ?? message.app_scope, phase: "received" };
      if (replaceRow(rows, toolKey, apply)) break;
      // The agent announced the call as a task before the Runtime's first word on it: the task row becomes the call's card, where it stood.
      const announced = (row: TimelineRow): TimelineRow =>
        row.kind !== "task" ? row : apply({ ...fresh, seq: row.seq, title: row.title, ...(row.detail === undefined ? {} : { detail: row.detail }) });
      if (!replaceRow(rows, `task:${callId}`, announced)) insertRow(rows, apply(fresh));
      break;
    }
    case "lineup.artifact": {
      const artifact = obj(p["artifact"]);
      const artifactId = str(artifact["artifact_id"]);
      if (artifactId === undefined) break;
      const caption = str(p["caption"]);
      insertRow(rows, {
        kind: "artifact",
        key,
        seq: message.seq,
        artifact_id: artifactId,
        name: str(artifact["name"]) ?? artifactId,
        mime_type: str(artifact["mime_type"]) ?? "application/octet-stream",
        size: num(artifact["size"]) ?? 0,
        ...(caption === undefined ? {} : { caption }),
      });
      break;
    }
    case "lineup.runtime.notice": {
      const level = str(p["level"]);
      insertRow(rows, { kind: "notice", key, seq: message.seq, level: level === "error" || level === "warning" ? level : "info", text: str(p["message"]) ?? "" });
      break;
    }
    default:
      break;
  }
  draft.status = status;
}

/** A Runtime-owned operation's result (`{ outcome, operation_id, … reason? }`) that says it was interrupted. */
function interruptedOperation(result: unknown): { readonly reason?: string } | undefined {
  const r = obj(result);
  if (r["outcome"] !== "interrupted" || str(r["operation_id"]) === undefined) return undefined;
  const reason = str(r["reason"]);
  return reason === undefined ? {} : { reason };
}

/** Folds messages into a new model (the input model is not changed). Messages already seen are skipped. */
export function foldMessages(model: TimelineModel, messages: Iterable<AgentAppMessage>): TimelineModel {
  const fresh = [...messages].filter((m) => !model.seen.has(m.message_id));
  if (fresh.length === 0) return model;
  const draft: Draft = {
    rows: model.rows.slice(),
    status: model.status,
    turns: new Map(model.turns),
    streams: new Map(model.streams),
    task_requests: new Map(model.task_requests),
    task_decisions: new Map(model.task_decisions),
    seen: new Set(model.seen),
    lastSeq: model.lastSeq,
  };
  for (const message of fresh) fold(draft, message);
  return draft;
}

export function foldMessage(model: TimelineModel, message: AgentAppMessage): TimelineModel {
  return foldMessages(model, [message]);
}

/** Marks a card answered locally (before, or without, a server echo of the answer). */
export function markAnswered(model: TimelineModel, messageId: string, answer: CardAnswer): TimelineModel {
  const key = `m:${messageId}`;
  const draft: Draft = { ...model, rows: model.rows.slice(), turns: new Map(model.turns), streams: new Map(model.streams), task_requests: new Map(model.task_requests), task_decisions: new Map(model.task_decisions), seen: new Set(model.seen) };
  if (!replaceRow(draft.rows, key, (row) => (row.kind === "card" ? { ...row, answer } : row))) return model;
  placeCardsWaitingOn(draft, key);
  return draft;
}

/** The answer that accepts (`yes`) or declines a confirm card, in the form its answer path expects. */
export function confirmAnswer(card: Card, yes: boolean): { readonly outcome: "approved" | "rejected" | "answered"; readonly confirmed?: boolean } {
  if (card.via === "action") return { outcome: yes ? "approved" : "rejected" };
  return { outcome: "answered", confirmed: yes };
}
