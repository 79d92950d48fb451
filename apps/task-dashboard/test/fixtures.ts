/** Tasks and events as the Runtime hands them to the app, for the dashboard's tests. */
import type { AgentTask, AgentTaskEvent, AgentTaskEventBody, AgentTaskStatus } from "@lineup/protocol";

export function task(overrides: Partial<AgentTask> & { status?: AgentTaskStatus } = {}): AgentTask {
  return {
    task_id: "t1",
    app_scope: "task-dashboard",
    conversation_id: "c1",
    entry: "write_note",
    title: "Write a note about tea",
    idempotency_key: "k1",
    request_hash: "0".repeat(64),
    request: { entry: "write_note", input: { text: "tea" } },
    status: "running",
    attempt: 1,
    turn_id: "turn-1",
    trace_id: "trace-1",
    created_at: "2026-03-02T09:00:00.000Z",
    updated_at: "2026-03-02T09:00:00.000Z",
    event_count: 0,
    ...overrides,
  };
}

/** Numbers events from 1 (attempt 1 unless a body says otherwise through `attempt`). */
export function events(...bodies: (AgentTaskEventBody & { attempt?: number })[]): AgentTaskEvent[] {
  return bodies.map(({ attempt, ...body }, i) => ({ task_id: "t1", index: i + 1, attempt: attempt ?? 1, at: "2026-03-02T09:00:00.000Z", ...body }) as AgentTaskEvent);
}
