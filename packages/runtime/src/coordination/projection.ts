/**
 * What an app sees of a session event: one `AgentAppMessage` draft (type, sender, payload, delivery),
 * or nothing for events that only change Runtime state (`session.started`, `turn.activated`, inventory
 * and evidence facts). Envelopes keep their type and payload; turn and action events get `lineup.turn.*`
 * and `lineup.action.*` types so chat needs no knowledge of the App Server protocol.
 */
import { ENVELOPE_TYPE_TERMS, isEnvelopeType, taskOptionsOf, type Action, type JsonValue, type RuntimeEnvelope, type SessionEvent, type Turn } from "@lineup/protocol";

type TurnData = { turn_id: string; [key: string]: JsonValue };

export interface MessageDraft {
  readonly type: string;
  readonly delivery: "display" | "explicit_ack";
  readonly sender: { readonly kind: string; readonly id: string };
  readonly payload: JsonValue;
  readonly turn_id?: string;
  readonly envelope?: RuntimeEnvelope;
}

const actorSender = (event: SessionEvent): { kind: string; id: string } => ({
  kind: event.actor.role === "device" ? "user" : event.actor.role === "agent" ? "agent" : "runtime",
  id: event.actor.id,
});

const compact = (fields: Record<string, JsonValue | undefined>): { [key: string]: JsonValue } => {
  const out: { [key: string]: JsonValue } = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
};

/** The draft for a non-envelope event, or undefined when apps see nothing of it. */
export function projectEvent(event: SessionEvent): MessageDraft | undefined {
  const sender = actorSender(event);
  switch (event.kind) {
    case "turn.started": {
      const turn = (event.data as unknown as { turn: Turn }).turn;
      const text = turn.input.text;
      const task = taskOptionsOf(turn.options);
      if (task !== undefined) {
        // An app's agent task: a card of its own in the chat, not a message the person typed.
        return {
          type: "lineup.task.request",
          delivery: "display",
          sender: { kind: "app", id: task.provenance.app_scope },
          turn_id: turn.turn_id,
          payload: compact({ task_id: task.task_id, attempt: task.attempt, app_scope: task.provenance.app_scope, entry: task.entry, title: task.title, text, turn_id: turn.turn_id }),
        };
      }
      return {
        type: "lineup.message",
        delivery: "display",
        sender,
        turn_id: turn.turn_id,
        payload: compact({ format: "text", text: text ?? "", content: turn.input.content as JsonValue | undefined }),
      };
    }
    case "turn.updated": {
      const { turn_id: turnId, ...rest } = event.data as unknown as TurnData;
      return { type: "lineup.turn.update", delivery: "display", sender, turn_id: turnId, payload: rest as JsonValue };
    }
    case "turn.completed": {
      const { turn_id: turnId, ...rest } = event.data as unknown as TurnData;
      return { type: "lineup.turn.completed", delivery: "display", sender, turn_id: turnId, payload: rest as JsonValue };
    }
    case "turn.failed": {
      const { turn_id: turnId, error } = event.data as unknown as TurnData;
      return { type: "lineup.turn.failed", delivery: "display", sender, turn_id: turnId, payload: { error } as JsonValue };
    }
    case "turn.cancelled": {
      const { turn_id: turnId, ...rest } = event.data as unknown as TurnData;
      return { type: "lineup.turn.cancelled", delivery: "display", sender, turn_id: turnId, payload: rest as JsonValue };
    }
    case "action.required": {
      const { action } = event.data as unknown as { action: Action };
      // A card the user must answer: it stays in the inbox until answered or acknowledged.
      return {
        type: "lineup.action.required",
        delivery: "explicit_ack",
        sender,
        ...(action.turn_id === undefined ? {} : { turn_id: action.turn_id }),
        payload: action as unknown as JsonValue,
      };
    }
    case "action.responded":
      return { type: "lineup.action.responded", delivery: "display", sender, payload: event.data as JsonValue };
    case "artifact.added":
      return { type: "lineup.artifact", delivery: "display", sender, payload: event.data as JsonValue };
    default:
      return undefined;
  }
}

/** The draft for a validated envelope. */
export function projectEnvelope(envelope: RuntimeEnvelope): MessageDraft {
  const type = envelope.type;
  return {
    type,
    delivery: isEnvelopeType(type) ? ENVELOPE_TYPE_TERMS[type].delivery : "explicit_ack",
    sender: envelope.sender,
    payload: envelope.payload,
    envelope,
  };
}
