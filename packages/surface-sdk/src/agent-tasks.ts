/**
 * The Surface Bridge as the source of an installed app's task handles (`agent-task-follower.ts` in @lineup/protocol): pages are
 * `agent.task_events`, live events are the host's `agent.task_event` (sent for every task of the app to each of
 * its surfaces), controls are `agent.task_control`. The host scopes all of them to this app.
 */
import type { BridgeChannel } from "./channel.js";
import type { TaskSource } from "@lineup/protocol";

export function bridgeTaskSource(channel: BridgeChannel): TaskSource {
  return {
    events: (taskId, after, limit) => channel.request("agent.task_events", { task_id: taskId, after, limit }),
    live: (listener) => channel.on("agent.task_event", ({ event, task }) => listener(event, task)),
    control: async (taskId, control) => (await channel.request("agent.task_control", { task_id: taskId, control })).task,
  };
}
