/**
 * What an evidence pack says about apps and agent tasks, computed from its events alone — the exporter
 * and `verifyEvidencePack` run the same functions, so both claims are checkable offline:
 *
 * - `evidenceProvenance`: the package provenance (app scope, version, bundle digest) of every agent task,
 *   tool result and artifact an app produced in the events;
 * - `taskEventsOf`: the turns of one agent task and the seq of the task's last event, which is where a
 *   task-scoped pack ends.
 *
 * Both read the events in order and look only backwards (an event's meaning never depends on a later
 * one), so a pack cut at any seq gives the same answers for the events it holds. Event data is read
 * defensively: a pack's events are checked only as frames, not by kind.
 */
import type { Static } from "@sinclair/typebox";
import { taskOptionsOf, type Provenance } from "../agent-task.js";
import type { JsonValue } from "../json.js";
import { Closed, OpaqueIdSchema, StringEnum, declared } from "../schema-kit.js";
import type { SessionEvent } from "./events.js";
import { ProvenanceRef, SeqSchema } from "./records.js";

export const EVIDENCE_PROVENANCE_KINDS = ["task", "tool_result", "artifact"] as const;
export type EvidenceProvenanceKind = (typeof EVIDENCE_PROVENANCE_KINDS)[number];

/** One entry of a pack's `provenance` list: the event, what it is about, and who made it. */
export const EvidenceProvenanceEntrySchema = /* @__PURE__ */ declared(() => Closed({
  /** The event: a task's `turn.started`, a device's tool result or error `envelope`, a device's `artifact.added`. */
  seq: SeqSchema(),
  kind: StringEnum(EVIDENCE_PROVENANCE_KINDS),
  /** The task_id, call_id or artifact_id. */
  subject: OpaqueIdSchema(),
  provenance: ProvenanceRef(),
}));
export type EvidenceProvenanceEntry = Static<typeof EvidenceProvenanceEntrySchema>;

type Fields = { readonly [key: string]: JsonValue | undefined };
const fields = (value: unknown): Fields | undefined => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Fields) : undefined);
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

const TOOL_INVOKE = "lineup.tool.invoke";
const TOOL_TERMINAL: ReadonlySet<string> = /* @__PURE__ */ declared(() => new Set(["lineup.tool.result", "lineup.tool.error"]));
const TASK_DECISION = "lineup.task.decision";

interface EnvelopeView {
  readonly type: string | undefined;
  readonly appScope: string | undefined;
  readonly callId: string | undefined;
  readonly payload: Fields | undefined;
}

function envelopeOf(event: SessionEvent): EnvelopeView | undefined {
  const envelope = fields(fields(event.data)?.["envelope"]);
  if (envelope === undefined) return undefined;
  return {
    type: text(envelope["type"]),
    appScope: text(fields(envelope["scope"])?.["app_scope"]),
    callId: text(fields(envelope["correlation"])?.["call_id"]),
    payload: fields(envelope["payload"]),
  };
}

/**
 * The provenance list of a pack, in seq order, one entry for:
 * - each `turn.started` of an agent task (`options.lineup_task`): subject the task_id, the provenance the
 *   task's turn carries;
 * - each device `envelope` with `lineup.tool.result` or `lineup.tool.error`: subject the call_id, the
 *   provenance of the tool (the result's `scope.app_scope` and the method of the call's `lineup.tool.invoke`)
 *   in the latest `inventory.published` before it that gives that tool one;
 * - each device `artifact.added` with provenance: subject the artifact_id.
 */
export function evidenceProvenance(events: readonly SessionEvent[]): EvidenceProvenanceEntry[] {
  const entries: EvidenceProvenanceEntry[] = [];
  const methodOfCall = new Map<string, string>();
  const toolProvenance = new Map<string, Provenance>();
  for (const event of events) {
    const data = fields(event.data);
    switch (event.kind) {
      case "turn.started": {
        const task = taskOptionsOf(fields(data?.["turn"])?.["options"]);
        if (task !== undefined) entries.push({ seq: event.seq, kind: "task", subject: task.task_id, provenance: task.provenance });
        break;
      }
      case "inventory.published": {
        const tools = data?.["tools"];
        for (const tool of Array.isArray(tools) ? tools : []) {
          const t = fields(tool);
          const provenance = fields(t?.["provenance"]);
          const appScope = text(t?.["app_scope"]);
          const method = text(t?.["method"]);
          if (provenance !== undefined && appScope !== undefined && method !== undefined) toolProvenance.set(`${appScope}/${method}`, provenance as unknown as Provenance);
        }
        break;
      }
      case "envelope": {
        const envelope = envelopeOf(event);
        if (envelope?.callId === undefined) break;
        if (envelope.type === TOOL_INVOKE) {
          const method = text(envelope.payload?.["method"]);
          if (method !== undefined && !methodOfCall.has(envelope.callId)) methodOfCall.set(envelope.callId, method);
          break;
        }
        if (event.actor.role !== "device" || envelope.type === undefined || !TOOL_TERMINAL.has(envelope.type)) break;
        const method = methodOfCall.get(envelope.callId);
        const provenance = method === undefined ? undefined : toolProvenance.get(`${envelope.appScope}/${method}`);
        if (provenance !== undefined) entries.push({ seq: event.seq, kind: "tool_result", subject: envelope.callId, provenance });
        break;
      }
      case "artifact.added": {
        const provenance = fields(data?.["provenance"]);
        const artifactId = text(fields(data?.["artifact"])?.["artifact_id"]);
        if (event.actor.role === "device" && provenance !== undefined && artifactId !== undefined) {
          entries.push({ seq: event.seq, kind: "artifact", subject: artifactId, provenance: provenance as unknown as Provenance });
        }
        break;
      }
      default:
        break;
    }
  }
  return entries;
}

export interface TaskEvents {
  /** The task's turns (one per attempt), in the order they started. */
  readonly turn_ids: readonly string[];
  /** The seq of the task's last event; 0 when the events hold no turn of the task. */
  readonly last_seq: number;
}

/**
 * The turns of agent task `taskId` and its last event. An event is the task's when it is:
 * - a `turn.started` whose `options.lineup_task.task_id` is `taskId` (that turn is one of the task's turns),
 *   or any other `turn.*` event of one of those turns;
 * - an `action.required` raised in one of those turns, or the `action.responded` that answers it;
 * - a `lineup.task.decision` envelope for the task (the app's accept or reject);
 * - an envelope of a tool call (same `call_id`) whose `lineup.tool.invoke` came while one of the task's
 *   turns was running.
 */
export function taskEventsOf(events: readonly SessionEvent[], taskId: string): TaskEvents {
  const turnIds: string[] = [];
  const turns = new Set<string>();
  const actions = new Set<string>();
  const calls = new Set<string>();
  let running: string | undefined;
  let lastSeq = 0;
  for (const event of events) {
    const data = fields(event.data);
    const turnId = text(data?.["turn_id"]);
    let ours = false;
    switch (event.kind) {
      case "turn.started": {
        const turn = fields(data?.["turn"]);
        const id = text(turn?.["turn_id"]);
        if (id !== undefined && taskOptionsOf(turn?.["options"])?.task_id === taskId && !turns.has(id)) {
          turns.add(id);
          turnIds.push(id);
        }
        if (id !== undefined && turn?.["state"] === "running") running = id;
        ours = id !== undefined && turns.has(id);
        break;
      }
      case "turn.activated":
        running = turnId;
        ours = turnId !== undefined && turns.has(turnId);
        break;
      case "turn.updated":
        ours = turnId !== undefined && turns.has(turnId);
        break;
      case "turn.completed":
      case "turn.failed":
      case "turn.cancelled":
        if (turnId === running) running = undefined;
        ours = turnId !== undefined && turns.has(turnId);
        break;
      case "action.required": {
        const action = fields(data?.["action"]);
        const actionId = text(action?.["action_id"]);
        const actionTurn = text(action?.["turn_id"]);
        if (actionId !== undefined && actionTurn !== undefined && turns.has(actionTurn)) {
          actions.add(actionId);
          ours = true;
        }
        break;
      }
      case "action.responded": {
        const actionId = text(data?.["action_id"]);
        ours = actionId !== undefined && actions.has(actionId);
        break;
      }
      case "envelope": {
        const envelope = envelopeOf(event);
        if (envelope === undefined) break;
        if (envelope.type === TASK_DECISION) {
          ours = turns.size > 0 && text(envelope.payload?.["task_id"]) === taskId;
          break;
        }
        if (envelope.callId === undefined) break;
        if (envelope.type === TOOL_INVOKE && running !== undefined && turns.has(running)) calls.add(envelope.callId);
        ours = calls.has(envelope.callId);
        break;
      }
      default:
        break;
    }
    if (ours) lastSeq = event.seq;
  }
  return { turn_ids: turnIds, last_seq: lastSeq };
}
