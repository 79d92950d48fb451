/**
 * Ownership for the filter chain (spec 5.3 step 7), from the Runtime's own state: an envelope may name
 * an instance only if that instance is live, belongs to the addressed app and serves the conversation
 * (or is a global singleton), and an operation only if a call of that conversation runs it.
 */
import type { InstanceDirectory } from "../app-lifecycle/instance-directory.js";
import { getInstance } from "../app-lifecycle/instances/state.js";
import type { RuntimeState } from "./state.js";

/** The last directory made, for the instances and calls it reads: consecutive events share it. */
let last: { readonly instances: RuntimeState["instances"]; readonly tools: RuntimeState["tools"]; readonly directory: InstanceDirectory } | undefined;

/** Reads the state's instances and calls as they are (both are replaced, never mutated, by transitions). */
export function instanceDirectoryOf(state: Pick<RuntimeState, "instances" | "tools">): InstanceDirectory {
  const { instances, tools } = state;
  if (last !== undefined && last.instances === instances && last.tools === tools) return last.directory;
  const directory: InstanceDirectory = {
    ownsInstance(conversationId, appScope, instanceId) {
      const instance = getInstance(instances, instanceId);
      if (instance === undefined || instance.app_scope !== appScope) return false;
      if (instance.status === "closed" || instance.status === "failed") return false;
      return instance.policy === "singleton" || instance.conversation_id === conversationId;
    },
    hasInstanceIn(conversationId, appScope) {
      return Object.values(instances.instances).some(
        (instance) => instance.app_scope === appScope && instance.status !== "closed" && instance.status !== "failed" && (instance.policy === "singleton" || instance.conversation_id === conversationId),
      );
    },
    ownsOperation(conversationId, operationId) {
      return Object.values(tools.calls).some((call) => call.operation?.operation_id === operationId && call.conversation_id === conversationId && call.phase === "operation_running");
    },
  };
  last = { instances, tools, directory };
  return directory;
}
