/**
 * The app inbox of one sandboxed instance (spec 5.4, 8.2), as the Surface Bridge carries it. The Runtime
 * keeps the inbox: what reaches the app is what its manifest subscribes to, in the instance's
 * conversation, addressed to this instance or to none. This module only turns each stored message into
 * the frame the app may see — a state patch as `state.patch`, anything else as `agent.message` — a
 * projection that never carries the raw envelope.
 */
import type { BridgeEventData, EnvelopeType } from "@lineup/protocol";
import type { AgentAppMessage } from "@lineup/runtime";

// A name the type registry holds (checked by its type); the registry itself, with its schemas, stays out of the page.
const STATE_PATCH_TYPE: EnvelopeType = "lineup.app.state.patch";

export type SurfaceInboxFrame =
  | { readonly event: "state.patch"; readonly data: BridgeEventData<"state.patch"> }
  | { readonly event: "agent.message"; readonly data: BridgeEventData<"agent.message"> };

const SENDERS: ReadonlySet<string> = new Set(["agent", "runtime", "user"]);

/** The frame for `message`, or undefined when the bridge has no way to say it (a sender kind apps never hear from). */
export function surfaceFrameOf(message: AgentAppMessage): SurfaceInboxFrame | undefined {
  if (message.type === STATE_PATCH_TYPE) {
    const payload = message.payload as { patch?: unknown; base_revision?: unknown } | null;
    if (payload === null || typeof payload !== "object" || payload.patch === null || typeof payload.patch !== "object" || Array.isArray(payload.patch)) return undefined;
    return {
      event: "state.patch",
      data: {
        message_id: message.message_id,
        patch: payload.patch as BridgeEventData<"state.patch">["patch"],
        ...(typeof payload.base_revision === "number" ? { base_revision: payload.base_revision } : {}),
      },
    };
  }
  const data = agentMessageDataOf(message);
  return data === undefined ? undefined : { event: "agent.message", data };
}

/** `message` as `agent.message` carries it (and `agent_message.list` lists it), or undefined for a sender kind apps never hear from. */
export function agentMessageDataOf(message: AgentAppMessage): BridgeEventData<"agent.message"> | undefined {
  if (!SENDERS.has(message.sender.kind)) return undefined;
  // Ids come from the Runtime's records (already checked); the event's schema checks them again on the wire.
  const data = {
    message_id: message.message_id,
    type: message.type,
    conversation_id: message.conversation_id,
    ...(message.instance_id === undefined ? {} : { instance_id: message.instance_id }),
    sender: { kind: message.sender.kind as "agent" | "runtime" | "user", id: message.sender.id },
    timestamp: message.created_at,
    payload: message.payload,
    requires_ack: message.delivery === "explicit_ack",
  };
  return data as unknown as BridgeEventData<"agent.message">;
}
