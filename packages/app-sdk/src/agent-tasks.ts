/**
 * `sdk.agent` and `sdk.evidence` of a core app: agent tasks and evidence packs over the app's `AppPort`. The
 * app and the conversation come from the SDK (its port and its bound instance), never from the request; a
 * core app's global face, bound to no instance, names its conversation as `actions.cancelTurn` does.
 */
import { LineUpError, type AgentTask } from "@lineup/protocol";
import type { AppPort } from "@lineup/runtime";
import type { Diagnostics } from "./diagnostics.js";
import { TaskFollower, type TaskSource, type TaskTroubleSink } from "@lineup/protocol";
import type { AppAgentAPI, AppEvidenceAPI } from "./types.js";

interface Binding {
  readonly instance_id: string;
  readonly conversation_id?: string;
}

/**
 * The port as a handle's source: pages of stored events, live events, controls. A page's task is read before its
 * events: every event it counts is stored by then, so the page has them all (see `TaskSource.events`).
 */
function portSource(port: AppPort): TaskSource {
  return {
    async events(taskId, after, limit) {
      const task = port.getTask(taskId);
      return { task, events: await port.taskEvents(taskId, after, limit) };
    },
    live: (listener) => port.subscribeTasks(listener),
    control: (taskId, control) => port.controlTask(taskId, control),
  };
}

function noConversation(port: AppPort, what: string): LineUpError {
  return new LineUpError("invalid_params", `${port.app_scope}'s SDK is bound to no conversation: name the conversation ${what}`, { path: "/conversation_id" });
}

export function createAgentTasks(port: AppPort, instance: Binding | undefined, diagnostics: Diagnostics): AppAgentAPI {
  const source = portSource(port);
  const trouble: TaskTroubleSink = ({ kind, task_id, error }) =>
    diagnostics.report(kind === "listener_threw" ? `a listener of task ${task_id} threw` : `the events of task ${task_id} could not be read`, error);
  const handle = (task: AgentTask) => new TaskFollower(task, source, trouble);
  return {
    async startTask(request, options = {}) {
      const conversationId = options.conversation_id ?? instance?.conversation_id;
      if (conversationId === undefined) throw noConversation(port, "to ask the agent in");
      return handle(await port.startTask(request, { conversation_id: conversationId, ...(instance === undefined ? {} : { instance_id: instance.instance_id }) }));
    },
    async tasks() {
      return [...port.listTasks()];
    },
    async task(taskId) {
      return handle(port.getTask(taskId));
    },
  };
}

export function createEvidence(port: AppPort, instance: Binding | undefined): AppEvidenceAPI {
  return {
    async export(request) {
      if ("task_id" in request && typeof request.task_id === "string") return port.exportEvidence({ task_id: request.task_id });
      if (!("conversation" in request) || request.conversation !== true) throw new LineUpError("invalid_params", "export { task_id } or { conversation: true }");
      const conversationId = request.conversation_id ?? instance?.conversation_id;
      if (conversationId === undefined) throw noConversation(port, "whose evidence to export");
      return port.exportEvidence({ conversation_id: conversationId });
    },
  };
}
