/**
 * Fixtures of the loop tests: a fixed transition env, a state following conversation s-1 (cursor 3,
 * catching up) with the core apps, an agent's chat message event, and a loop over a given store.
 */
import { RUNTIME_SDK_FEATURES, type SessionEvent } from "@lineup/protocol";
import { CORE_MANIFESTS } from "../../src/app-lifecycle/core-manifests.js";
import { PersistentMap } from "../../src/core/persistent-map.js";
import { EMPTY_AUDIT_HEAD } from "../../src/coordination/audit.js";
import type { RuntimeInput } from "../../src/coordination/inputs.js";
import { createRuntimeLoop, type RuntimeLoop, type RuntimeLoopOptions } from "../../src/coordination/loop.js";
import { freshAppsState, type RuntimeState } from "../../src/coordination/state.js";
import type { RuntimeStore, TransitionEnv } from "../../src/index.js";

export const env: TransitionEnv = {
  host: { features: Object.keys(RUNTIME_SDK_FEATURES), capabilities: [], appPolicy: {}, inventoryPolicy: {} },
  now: () => 0,
  newId: (() => {
    let n = 0;
    return (prefix: string) => `${prefix}-${++n}`;
  })(),
};

export const state: RuntimeState = {
  lifecycle: { status: "synchronizing" },
  runtime_id: "rt-1",
  identity: {},
  conversations: PersistentMap.of([["s-1", { conversation_id: "s-1", app_scope: "chat", agent_id: "agent-1", workspace_id: "w-1", origin: "server", cursor: 3, following: { status: "catching_up" }, unread: 0 }]]),
  outbox: PersistentMap.empty(),
  next_outbox_order: 0,
  ...freshAppsState(CORE_MANIFESTS, 0),
};

/** An agent's text message to chat in session s-1, carrying envelope `envelopeId`. */
export const messageEvent = (seq: number, envelopeId: string): RuntimeInput => ({
  kind: "event",
  event: {
    session_id: "s-1",
    seq,
    kind: "envelope",
    created_at: "2026-11-30T06:00:00.000Z",
    actor: { role: "agent", id: "agent-1" },
    data: {
      envelope: {
        v: 1,
        id: envelopeId,
        type: "lineup.message",
        timestamp: "2026-11-30T06:00:00.000Z",
        sender: { kind: "agent", id: "agent-1" },
        target: { kind: "app", app_scope: "chat" },
        scope: { app_scope: "chat", conversation_id: "s-1" },
        payload: { format: "text", text: `message ${seq}` },
      },
    },
  } as unknown as SessionEvent,
});


/** A loop over `store` from `state`, whose diagnostics throw; `options` adds to or replaces the rest. */
export function loopOn(store: RuntimeStore, options: Partial<RuntimeLoopOptions> = {}): RuntimeLoop {
  return createRuntimeLoop({
    store,
    state,
    auditHead: EMPTY_AUDIT_HEAD,
    env,
    diagnostics: (error) => {
      throw error;
    },
    onState: () => undefined,
    afterCommit: async () => undefined,
    ...options,
  });
}
