/**
 * Ownership for the filter chain (spec 5.3 step 7), from the Runtime's own state: an envelope may name
 * an instance only if that instance is live, belongs to the addressed app and serves the conversation
 * (or is a global singleton), and an operation only if a call of that conversation runs it.
 */
import type { InstanceDirectory } from "../apps/instance-directory.js";
import { getInstance } from "../apps/instances/state.js";
import type { RuntimeState } from "./state.js";

/** Two closures over the state: cheaper to make per event than to cache. */
export function instanceDirectoryOf(state: Pick<RuntimeState, "instances" | "tools">): InstanceDirectory {
  return {
    ownsInstance(conversationId, appScope, instanceId) {
      const instance = getInstance(state.instances, instanceId);
      if (instance === undefined || instance.app_scope !== appScope) return false;
      if (instance.status === "closed" || instance.status === "failed") return false;
      return instance.policy === "singleton" || instance.conversation_id === conversationId;
    },
    ownsOperation(conversationId, operationId) {
      return Object.values(state.tools.calls).some((call) => call.operation?.operation_id === operationId && call.conversation_id === conversationId && call.phase === "operation_running");
    },
  };
}
