/**
 * What an agent does inside a turn, made safe to do again. An agent that restarts in the middle of a turn
 * is handed that turn again (it is still running on the server) and works on it from the start. Through
 * `turnScoped(client, turn)`, the turn's messages, state patches and tool calls get ids made of the session,
 * the turn and their place in it (`s-1.t-4.msg-2`), the same on every run, so:
 * - a message or patch the log already holds from this agent is not sent again (`SendOptions.envelopeId`);
 * - a tool call the Runtime already has is answered with its stored outputs (same `call_id`, same body),
 *   so nothing runs twice: no second pomodoro, no second recording.
 *
 * The work must be deterministic given the turn's input and the answers it gets, as the demo agent's is;
 * an id that would be too long for the wire is left fresh.
 */
import { OPAQUE_ID_MAX_LENGTH, type JsonObject } from "@lineup/protocol";
import type { AgentClient, IncomingTurn, InvokeToolOptions, SendOptions } from "./agent-client.js";
import type { OutgoingMessage } from "./messages.js";

/** Room left for what the client derives from a chosen id (an interaction card's `<id>.ask`). */
const DERIVED_SUFFIX = 4;

type Kind = "msg" | "patch" | "call";

/** Where a turn-scoped client keeps the client it wraps. */
const UNDERLYING = Symbol("lineup.agent.turnScoped");

/** The client a `turnScoped` one wraps (else `client` itself): state kept per agent is kept on this one. */
export function underlyingClient(client: AgentClient): AgentClient {
  return (client as AgentClient & { [UNDERLYING]?: AgentClient })[UNDERLYING] ?? client;
}

/** `client`, with the ids of everything sent in `turn`'s session chosen by place in the turn. */
export function turnScoped(client: AgentClient, turn: IncomingTurn): AgentClient {
  const counts: Record<Kind, number> = { msg: 0, patch: 0, call: 0 };
  const next = (kind: Kind): string | undefined => {
    counts[kind] += 1;
    const id = `${turn.sessionId}.${turn.turnId}.${kind}-${counts[kind]}`;
    return id.length <= OPAQUE_ID_MAX_LENGTH - DERIVED_SUFFIX ? id : undefined;
  };
  const overrides: Partial<AgentClient> = {
    send(sessionId: string, message: OutgoingMessage, options: SendOptions = {}) {
      const envelopeId = sessionId === turn.sessionId && options.envelopeId === undefined ? next("msg") : undefined;
      return client.send(sessionId, message, envelopeId === undefined ? options : { ...options, envelopeId });
    },
    sendStatePatch(sessionId, patch, options = {}) {
      const envelopeId = sessionId === turn.sessionId && options.envelopeId === undefined ? next("patch") : undefined;
      return client.sendStatePatch(sessionId, patch, envelopeId === undefined ? options : { ...options, envelopeId });
    },
    invokeTool(sessionId: string, method: string, args?: JsonObject, options: InvokeToolOptions = {}) {
      const callId = sessionId === turn.sessionId && options.callId === undefined ? next("call") : undefined;
      return client.invokeTool(sessionId, method, args, callId === undefined ? options : { ...options, callId });
    },
  };
  return new Proxy(client, {
    get(target, property) {
      if (property === UNDERLYING) return underlyingClient(target);
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof AgentClient];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
