import { LineUpError } from "@lineup/protocol";
import { RUNTIME_COLLECTIONS as C } from "../../persistence/runtime-schema.js";
import { unchanged, type RuntimeInput, type TransitionResult } from "../inputs.js";
import { isLegalTransition } from "../lifecycle.js";
import type { Identity, RuntimeState } from "../state.js";

/**
 * A lifecycle fact from the connection shell. Illegal moves are refused (`invalid_state`) and change
 * nothing. Losing the connection drops every conversation back to `idle`: its seam must be passed again
 * before live delivery resumes, and whether its agent is connected is no longer known.
 */
export function onLifecycle(state: RuntimeState, input: Extract<RuntimeInput, { kind: "lifecycle" }>): TransitionResult {
  const from = state.lifecycle.status;
  const to = input.to.status;
  if (!isLegalTransition(from, to)) {
    return unchanged(state, { error: new LineUpError("invalid_state", `the lifecycle cannot go from ${from} to ${to}`) });
  }
  let next: RuntimeState = { ...state, lifecycle: input.to };
  // The identity the server reports at each connect holds from this turn on. A changed one is not written here but in
  // a turn of its own once the connection is synchronized (`identity.save`, which the connection shell posts when this
  // turn answers `identity_changed`): a new device's first start does not wait on that commit (a strict IndexedDB
  // commit, 15-50 ms on a new profile) to go online. Until it is written, a restart restores the identity stored
  // before, and the next connect reports the change again. A reconnect as the same user and device changes nothing.
  let reply: { identity_changed: true } | undefined;
  if (input.identity !== undefined && !sameIdentity(state.identity, input.identity)) {
    next = { ...next, identity: input.identity };
    reply = { identity_changed: true };
  }
  if (to !== "online") {
    let conversations = next.conversations;
    for (const [id, conversation] of next.conversations) {
      if (conversation.following.status === "idle" && conversation.agent_connected === undefined) continue;
      const { agent_connected: _unknown, ...rest } = conversation;
      conversations = conversations.with(id, { ...rest, following: { status: "idle" } });
    }
    next = { ...next, conversations };
  }
  return { state: next, writes: [], effects: [{ kind: "lifecycle.changed", lifecycle: input.to }], deliveries: [], audit: [], ...(reply === undefined ? {} : { reply }) };
}

/** Writes the identity the Runtime holds (`identity.save`: the one its last connect reported, when it had changed). */
export function onIdentitySave(state: RuntimeState): TransitionResult {
  return { state, writes: [{ op: "put", collection: C.meta, key: "identity", value: { ...state.identity } }], effects: [], deliveries: [], audit: [] };
}

const sameIdentity = (a: Identity, b: Identity): boolean => a.user_id === b.user_id && a.device_id === b.device_id;
