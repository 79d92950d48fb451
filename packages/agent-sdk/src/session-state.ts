/**
 * What the agent knows about one session, folded from its event log in seq order: the last
 * applied seq (the resume cursor), the latest inventory, the turns and which of them are running,
 * the answers to interaction cards, a short transcript for agents that need history, the agent's
 * own tool calls with what came back for them (so that one restarted mid-turn finds its calls), and the
 * apps' decisions on the results of the tasks they asked for.
 *
 * `apply` is deterministic and idempotent by seq: an event at or below the cursor is a
 * duplicate and changes nothing; one beyond `cursor + 1` is a gap and changes nothing either
 * (the client resubscribes after its cursor).
 *
 * A task decision is handed to the agent once, like a turn, and only one that happened while this state
 * followed the session: after its first catch-up seam. History replayed up to that seam (a restarted
 * process reading the log again) was handed to the process that followed then, or happened before this
 * agent, and is not handed over again; one replayed after a reconnect is new to this state, and is.
 */
import { OPAQUE_ID_MAX_LENGTH, dropOldest, type Action, type ActionResponse, type Inventory, type InventoryTool, type JsonObject, type JsonValue, type RuntimeEnvelope, type Session, type SessionEvent, type Turn } from "@lineup/protocol";
import type { InteractionAnswer } from "./messages.js";
import { taskDecisionOf, type TaskDecision } from "./task-turns.js";

/**
 * A session's inventory as the agent sees it (spec 7.2). The parts besides `tools` are absent only in an
 * inventory published before devices sent them (an old log): there, absent means "not said", not "none".
 */
export interface SessionInventory {
  readonly revision: number;
  readonly tools: readonly InventoryTool[];
  /** The enabled apps the agent may use, with their names (and localized names) and entrypoints. */
  readonly apps?: Inventory["apps"];
  /** The standard components the device's host renders (text, markdown, status, choice, …). */
  readonly components?: Inventory["components"];
  /** The display modes in which the host shows an app's surface. */
  readonly surfaces?: Inventory["surfaces"];
  /** The capabilities the device's host can carry out now. */
  readonly capabilities?: Inventory["capabilities"];
}

/** The session inventory of a published one (an `inventory.published` event's data or an `inventory/read` result). */
export function sessionInventoryOf(published: Pick<Inventory, "revision" | "tools" | "apps" | "components" | "surfaces" | "capabilities">): SessionInventory {
  const { revision, tools, apps, components, surfaces, capabilities } = published;
  return {
    revision,
    tools,
    ...(apps === undefined ? {} : { apps }),
    ...(components === undefined ? {} : { components }),
    ...(surfaces === undefined ? {} : { surfaces }),
    ...(capabilities === undefined ? {} : { capabilities }),
  };
}

export interface TranscriptEntry {
  readonly seq: number;
  /** `runtime`: a notice from the device's Runtime (something the agent sent went nowhere, and why; an app's decision on a task's result). */
  readonly role: "user" | "agent" | "runtime";
  readonly text: string;
}

/** A tool call this agent made that the log holds, with the Runtime's envelopes for it so far. */
export interface LoggedToolCall {
  /** The seq of the invoke. */
  readonly seq: number;
  readonly callId: string;
  readonly appScope: string;
  readonly method: string;
  readonly arguments: JsonObject;
  /** Receipts and progress (the most recent `LOGGED_UPDATES_KEPT`), then the result or error once there is one. */
  readonly outputs: readonly RuntimeEnvelope[];
  /** True once a `lineup.tool.result` or `lineup.tool.error` for it is in the log. */
  readonly ended: boolean;
  /** It outlived its turn: the turn completed while it ran (a timer, a request the person answers later). */
  readonly detached: boolean;
  /** The agent told its end: the log holds this agent's envelope `endEnvelopeId(callId)`. */
  readonly endTold: boolean;
}

/** How a call ended, as the Runtime said: its result, or its typed error. */
export type ToolOutcome = { readonly ok: true; readonly result: JsonValue } | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

/** How a logged call ended (its last output); undefined while it runs. */
export function loggedOutcome(call: LoggedToolCall): ToolOutcome | undefined {
  const last = call.ended ? call.outputs.at(-1) : undefined;
  if (last === undefined) return undefined;
  if (last.type === "lineup.tool.result") return { ok: true, result: (last.payload as { result: JsonValue }).result };
  const error = last.payload as { code: string; message: string };
  return { ok: false, error: { code: error.code, message: error.message } };
}

/**
 * The id of the message an agent sends when a call that outlived its turn ends. The log then says that
 * the end was told, so an agent restarted meanwhile tells it once. Undefined when the id would be too long.
 */
export function endEnvelopeId(callId: string): string | undefined {
  const id = `${callId}${END_SUFFIX}`;
  return id.length <= OPAQUE_ID_MAX_LENGTH ? id : undefined;
}

const END_SUFFIX = ".end";

/** What one applied event means for the client. */
export type Applied =
  | { readonly status: "duplicate" }
  | { readonly status: "gap"; readonly expected: number }
  | {
      readonly status: "applied";
      /** Turns that became running and should be handed to the agent now (live only). */
      readonly turnsToStart: readonly Turn[];
      /** A turn that ended (any terminal state). */
      readonly turnEnded?: { readonly turnId: string; readonly state: "completed" | "failed" | "cancelled" };
      readonly answer?: InteractionAnswer;
      readonly envelope?: RuntimeEnvelope;
      readonly inventoryChanged?: SessionInventory;
      /** An app's decision on a task's result, to hand to the agent now (once; see the top of this file). */
      readonly taskDecision?: TaskDecision;
    };

const TRANSCRIPT_LIMIT = 200;

/** The `data` of the event kinds the agent folds (docs/app-server-protocol.md section 8), already schema-checked. */
interface EventData {
  "session.started": { session: Session };
  "turn.started": { turn: Turn };
  "turn.activated": { turn_id: string };
  "turn.completed": { turn_id: string };
  "turn.failed": { turn_id: string };
  "turn.cancelled": { turn_id: string };
  "action.required": { action: Action };
  "action.responded": { action_id: string; response: ActionResponse };
  envelope: { envelope: RuntimeEnvelope };
  "inventory.published": Pick<Inventory, "revision" | "tools" | "apps" | "components" | "surfaces" | "capabilities">;
}
const dataOf = <K extends keyof EventData>(event: SessionEvent, _kind: K): EventData[K] => event.data as unknown as EventData[K];

/** How many of its own envelope ids (and tool calls) the agent remembers per session: far more than one turn sends. */
const OWN_ENVELOPES_KEPT = 1024;
/** Receipts and progress kept per logged call: a long operation's progress is not all worth keeping. */
const LOGGED_UPDATES_KEPT = 32;

const TOOL_OUTPUT_TYPES = new Set(["lineup.tool.receipt", "lineup.tool.progress", "lineup.tool.result", "lineup.tool.error"]);

interface CallEntry {
  readonly seq: number;
  readonly callId: string;
  readonly appScope: string;
  readonly method: string;
  readonly arguments: JsonObject;
  readonly outputs: RuntimeEnvelope[];
  ended: boolean;
  detached: boolean;
  endTold: boolean;
}

export class SessionState {
  lastSeq = 0;
  caughtUp = false;
  inventory: SessionInventory | undefined;
  private readonly turns = new Map<string, Turn>();
  private readonly handedOver = new Set<string>();
  private readonly answers = new Map<string, InteractionAnswer>();
  private readonly actions = new Map<string, Action>();
  private readonly transcriptEntries: TranscriptEntry[] = [];
  /** The agent's own envelopes in the log, id → seq: the most recent `OWN_ENVELOPES_KEPT`. */
  private readonly ownEnvelopes = new Map<string, number>();
  /** The agent's own tool calls in the log, by call_id: the most recent `OWN_ENVELOPES_KEPT`. */
  private readonly ownCalls = new Map<string, CallEntry>();
  /** The cursor at the first catch-up seam: task decisions after it are handed over. Undefined before that seam. */
  private followedFrom: number | undefined;
  /** Envelope ids of the task decisions handed over (the most recent `OWN_ENVELOPES_KEPT`): a replay hands none twice. */
  private readonly decisionsHandedOver = new Set<string>();

  constructor(public session: Session) {}

  get sessionId(): string {
    return this.session.session_id;
  }

  turn(turnId: string): Turn | undefined {
    return this.turns.get(turnId);
  }

  answer(interactionId: string): InteractionAnswer | undefined {
    return this.answers.get(interactionId);
  }

  /** The seq of an envelope this agent sent that the log holds (among its most recent ones), else undefined. */
  ownEnvelope(envelopeId: string): number | undefined {
    return this.ownEnvelopes.get(envelopeId);
  }

  transcript(): readonly TranscriptEntry[] {
    return this.transcriptEntries;
  }

  /** A tool call of this agent that the log holds (among its most recent ones), else undefined. */
  loggedCall(callId: string): LoggedToolCall | undefined {
    return this.ownCalls.get(callId);
  }

  /** This agent's tool calls the log holds (its most recent ones), in log order: copies, as they are now. */
  loggedCalls(): readonly LoggedToolCall[] {
    return [...this.ownCalls.values()].map((call) => ({ ...call, outputs: [...call.outputs] }));
  }

  /** Sets the inventory when it is newer than the one held (revisions never go back). */
  setInventory(inventory: SessionInventory): boolean {
    if (this.inventory !== undefined && inventory.revision <= this.inventory.revision) return false;
    this.inventory = inventory;
    return true;
  }

  /** Marks the seam; returns the running turns not yet handed to the agent. */
  markCaughtUp(): Turn[] {
    this.caughtUp = true;
    this.followedFrom ??= this.lastSeq;
    return this.takeRunningTurns();
  }

  /** The subscription starts again (after a reconnect): events are replayed until the next seam. */
  markResubscribing(): void {
    this.caughtUp = false;
  }

  /** Moves the cursor over an event the agent cannot read (it is counted and reported, not applied). */
  skip(seq: number): void {
    if (seq === this.lastSeq + 1) this.lastSeq = seq;
  }

  /** Forgets the cursor (the server said it is in the future); turns already handed over stay so. */
  resetCursor(): void {
    this.lastSeq = 0;
    this.caughtUp = false;
  }

  apply(event: SessionEvent): Applied {
    if (event.seq <= this.lastSeq) return { status: "duplicate" };
    if (event.seq !== this.lastSeq + 1) return { status: "gap", expected: this.lastSeq + 1 };
    this.lastSeq = event.seq;
    this.session = { ...this.session, last_seq: Math.max(this.session.last_seq, event.seq) };
    const result: {
      turnsToStart: Turn[];
      turnEnded?: { turnId: string; state: "completed" | "failed" | "cancelled" };
      answer?: InteractionAnswer;
      envelope?: RuntimeEnvelope;
      inventoryChanged?: SessionInventory;
      taskDecision?: TaskDecision;
    } = { turnsToStart: [] };
    switch (event.kind) {
      case "session.started": {
        const { session } = dataOf(event, "session.started");
        this.session = { ...session, last_seq: this.session.last_seq, inventory_revision: Math.max(this.session.inventory_revision, session.inventory_revision) };
        break;
      }
      case "turn.started": {
        const turn = dataOf(event, "turn.started").turn;
        this.turns.set(turn.turn_id, turn);
        if (turn.input.text !== undefined) this.record(event.seq, "user", turn.input.text);
        break;
      }
      case "turn.activated": {
        const turn = this.turns.get(dataOf(event, "turn.activated").turn_id);
        if (turn !== undefined) this.turns.set(turn.turn_id, { ...turn, state: "running" });
        break;
      }
      case "turn.completed":
      case "turn.failed":
      case "turn.cancelled": {
        const state = event.kind === "turn.completed" ? "completed" : event.kind === "turn.failed" ? "failed" : "cancelled";
        const turnId = dataOf(event, "turn.completed").turn_id;
        const turn = this.turns.get(turnId);
        if (turn !== undefined) this.turns.set(turn.turn_id, { ...turn, state });
        // Its calls still running go on without it (a cancelled or failed turn's calls are given up).
        if (turn !== undefined && state === "completed") {
          for (const call of this.ownCalls.values()) if (!call.ended && call.seq > turn.started_seq) call.detached = true;
        }
        result.turnEnded = { turnId, state };
        break;
      }
      case "action.required": {
        const { action } = dataOf(event, "action.required");
        this.actions.set(action.action_id, action);
        break;
      }
      case "action.responded": {
        const { action_id: actionId, response } = dataOf(event, "action.responded");
        const answer = answerFromAction(this.actions.get(actionId), actionId, response);
        this.answers.set(answer.interactionId, answer);
        result.answer = answer;
        break;
      }
      case "envelope": {
        const { envelope } = dataOf(event, "envelope");
        result.envelope = envelope;
        if (event.actor.role === "agent") {
          this.ownEnvelopes.set(envelope.id, event.seq);
          dropOldest(this.ownEnvelopes, OWN_ENVELOPES_KEPT);
          if (envelope.type === "lineup.tool.invoke") this.recordCall(event.seq, envelope);
          else if (envelope.id.endsWith(END_SUFFIX)) {
            const call = this.ownCalls.get(envelope.id.slice(0, -END_SUFFIX.length));
            if (call !== undefined) call.endTold = true;
          }
        } else if (TOOL_OUTPUT_TYPES.has(envelope.type)) {
          this.recordOutput(envelope);
        }
        const answer = answerFromEnvelope(envelope);
        if (answer !== undefined) {
          this.answers.set(answer.interactionId, answer);
          result.answer = answer;
        }
        if (envelope.type === "lineup.message") {
          const payload = envelope.payload as { text?: unknown };
          if (typeof payload.text === "string") this.record(event.seq, envelope.sender.kind === "agent" ? "agent" : "user", payload.text);
        } else if (envelope.type === "lineup.runtime.notice" && envelope.sender.kind === "runtime") {
          const payload = envelope.payload as { message?: unknown; code?: unknown };
          if (typeof payload.message === "string") this.record(event.seq, "runtime", typeof payload.code === "string" ? `${payload.message} (${payload.code})` : payload.message);
        } else if (envelope.type === "lineup.task.decision") {
          const decision = taskDecisionOf(event);
          if (decision !== undefined) {
            this.record(event.seq, "runtime", describeDecision(decision));
            if (this.handOverDecision(decision)) result.taskDecision = decision;
          }
        }
        break;
      }
      case "inventory.published": {
        const data = dataOf(event, "inventory.published");
        const inventory = sessionInventoryOf(data);
        if (this.setInventory(inventory)) result.inventoryChanged = inventory;
        this.session = { ...this.session, inventory_revision: Math.max(this.session.inventory_revision, data.revision) };
        break;
      }
      default:
        break;
    }
    if (this.caughtUp) result.turnsToStart = this.takeRunningTurns();
    return { status: "applied", ...result };
  }

  private handOverDecision(decision: TaskDecision): boolean {
    if (this.followedFrom === undefined || decision.seq <= this.followedFrom || this.decisionsHandedOver.has(decision.envelopeId)) return false;
    this.decisionsHandedOver.add(decision.envelopeId);
    dropOldest(this.decisionsHandedOver, OWN_ENVELOPES_KEPT);
    return true;
  }

  private takeRunningTurns(): Turn[] {
    const out: Turn[] = [];
    for (const turn of this.turns.values()) {
      if (turn.state === "running" && !this.handedOver.has(turn.turn_id)) {
        this.handedOver.add(turn.turn_id);
        out.push(turn);
      }
    }
    return out;
  }

  private recordCall(seq: number, envelope: RuntimeEnvelope): void {
    const callId = envelope.correlation?.call_id;
    const payload = envelope.payload as { method?: unknown; arguments?: unknown };
    const appScope = envelope.scope.app_scope;
    // The first invoke of a call_id is the call; an invoke sent again for it (same body) adds nothing.
    if (callId === undefined || this.ownCalls.has(callId) || typeof payload.method !== "string" || appScope === undefined) return;
    const args = payload.arguments;
    this.ownCalls.set(callId, {
      seq,
      callId,
      appScope,
      method: payload.method,
      arguments: args !== null && typeof args === "object" && !Array.isArray(args) ? (args as JsonObject) : {},
      outputs: [],
      ended: false,
      detached: false,
      endTold: false,
    });
    dropOldest(this.ownCalls, OWN_ENVELOPES_KEPT);
  }

  private recordOutput(envelope: RuntimeEnvelope): void {
    const callId = envelope.correlation?.call_id;
    const call = callId === undefined ? undefined : this.ownCalls.get(callId);
    if (call === undefined || call.ended) return;
    if (envelope.type === "lineup.tool.result" || envelope.type === "lineup.tool.error") {
      call.ended = true;
    } else if (call.outputs.length >= LOGGED_UPDATES_KEPT) {
      call.outputs.shift();
    }
    call.outputs.push(envelope);
  }

  private record(seq: number, role: TranscriptEntry["role"], text: string): void {
    this.transcriptEntries.push({ seq, role, text });
    if (this.transcriptEntries.length > TRANSCRIPT_LIMIT) this.transcriptEntries.splice(0, this.transcriptEntries.length - TRANSCRIPT_LIMIT);
  }
}

/** A decision as a line of the transcript (what a model reads of it). */
function describeDecision(decision: TaskDecision): string {
  const verb = decision.decision === "accepted" ? "accepted" : "rejected";
  const reason = decision.reason === undefined ? "" : `: ${decision.reason}`;
  return `The ${decision.appScope} app ${verb} the result of its task ${decision.taskId} (turn ${decision.turnId})${reason}`;
}

function answerFromEnvelope(envelope: RuntimeEnvelope): InteractionAnswer | undefined {
  if (envelope.type !== "lineup.interaction.response") return undefined;
  const p = envelope.payload as { interaction_id: string; outcome: "answered" | "cancelled"; choice_ids?: string[]; confirmed?: boolean; text?: string };
  return {
    interactionId: p.interaction_id,
    outcome: p.outcome,
    via: "envelope",
    ...(p.choice_ids === undefined ? {} : { choiceIds: p.choice_ids }),
    ...(p.confirmed === undefined ? {} : { confirmed: p.confirmed }),
    ...(p.text === undefined ? {} : { text: p.text }),
  };
}

function answerFromAction(
  action: Action | undefined,
  actionId: string,
  response: { outcome: "approved" | "rejected" | "answered" | "cancelled"; choice_ids?: string[]; text?: string; data?: JsonValue },
): InteractionAnswer {
  const base = { interactionId: actionId, via: "action" as const };
  if (response.outcome === "cancelled") return { ...base, outcome: "cancelled" };
  if (response.outcome === "approved" || response.outcome === "rejected") return { ...base, outcome: "answered", confirmed: response.outcome === "approved" };
  return {
    ...base,
    outcome: "answered",
    ...(response.choice_ids === undefined ? {} : { choiceIds: response.choice_ids }),
    ...(response.text === undefined ? {} : { text: response.text }),
    ...(response.data === undefined ? {} : { data: response.data }),
    ...(action?.kind === "approval" ? { confirmed: true } : {}),
  };
}
