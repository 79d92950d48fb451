/**
 * Apps' agent tasks in the loop (docs/protocol.md "In-app agent tasks"). An app's `startTask` becomes a task
 * record, its first event and its `agentSession/turn/start` in the outbox, in one commit: a task that exists
 * has been asked for, offline too. Controls — cancel, retry, resubmit, accept, reject — are inputs like any
 * other; what they change on the AppServer goes through the outbox in order, and what the agent does comes
 * back through the log (`foldLogEvent`, called from ingest).
 *
 * Every refusal is typed and writes nothing: the app's state and the conversation are as they were.
 */
import {
  AGENT_TASK_FEATURE,
  AGENT_TASK_LIMITS,
  LineUpError,
  TASK_TURN_OPTION,
  canonicalJson,
  checkWith,
  sizeWithinLimit,
  validateAgentTaskRequest,
  type AgentTaskRequest,
  type ErrorCode,
  type JsonObject,
  type JsonValue,
  type TaskTurnOptions,
} from "@lineup/protocol";
import { getInstance } from "../../app-lifecycle/instances/state.js";
import { activeManifest, appProvenance, getManagedApp } from "../../app-lifecycle/manager/records.js";
import { pendingCancel } from "../turns.js";
import { toTimestamp } from "../../core/ports.js";
import { sha256Hex } from "../../core/sha256.js";
import { isTerminal, outputSchemaValidator, publicTask, taskByKey, TaskDraft, type TaskRecord } from "../../tasks/records.js";
import { inventoryFor } from "../inventories.js";
import { commitTaskDraft, Step } from "../step.js";
import { unchanged, type RuntimeInput, type TransitionResult } from "../inputs.js";
import type { RuntimeState } from "../state.js";
import type { TransitionEnv } from "./env.js";

type TaskStartInput = Extract<RuntimeInput, { kind: "task.start" }>;
type TaskControlInput = Extract<RuntimeInput, { kind: "task.control" }>;

/** The refusal of a task input: audited, nothing else written. */
function refuse(state: RuntimeState, input: { app_scope: string; conversation_id?: string }, code: ErrorCode, message: string, path?: string): TransitionResult {
  return unchanged(state, {
    audit: [{ type: "task.refused", code, subject: input.app_scope, ...(input.conversation_id === undefined ? {} : { conversation_id: input.conversation_id }), detail: message.slice(0, 500) }],
    error: new LineUpError(code, message, path === undefined ? {} : { path }),
  });
}

export function onTaskStart(state: RuntimeState, input: TaskStartInput, env: TransitionEnv): TransitionResult {
  const app = getManagedApp(state.apps, input.app_scope);
  if (app === undefined) return refuse(state, input, "app_not_installed", `no app ${input.app_scope} is installed`);
  if (!app.record.enabled || app.record.install_state === "failed") return refuse(state, input, "app_disabled", `${input.app_scope} is disabled: it may not start agent tasks`);
  const manifest = activeManifest(app);
  const features = [...(manifest?.runtime_sdk.required_features ?? []), ...(manifest?.runtime_sdk.optional_features ?? [])];
  if (manifest === undefined || !features.includes(AGENT_TASK_FEATURE)) return refuse(state, input, "capability_not_declared", `${input.app_scope} does not declare the feature ${AGENT_TASK_FEATURE}`);
  if (!env.host.features.includes(AGENT_TASK_FEATURE)) return refuse(state, input, "unsupported_on_host", `this host does not offer ${AGENT_TASK_FEATURE}`);

  const checked = checkWith<AgentTaskRequest>(validateAgentTaskRequest, input.request, "invalid_params");
  if (!checked.ok) return refuse(state, input, "invalid_params", `the task request is not valid: ${checked.error.message}`, checked.error.path);
  const request = checked.value;
  const entry = manifest.agent_tasks?.entries.find((e) => e.id === request.entry);
  if (entry === undefined) return refuse(state, input, "capability_not_declared", `${input.app_scope} declares no agent task entry "${request.entry}"`, "/entry");
  if (request.context !== undefined && !sizeWithinLimit(JSON.stringify(request.context), AGENT_TASK_LIMITS.contextBytes)) {
    return refuse(state, input, "message_too_large", `the task's context is over ${AGENT_TASK_LIMITS.contextBytes} bytes`, "/context");
  }
  if (request.output_schema !== undefined) {
    const text = JSON.stringify(request.output_schema);
    if (!sizeWithinLimit(text, AGENT_TASK_LIMITS.outputSchemaBytes)) {
      return refuse(state, input, "message_too_large", `the task's output schema is over ${AGENT_TASK_LIMITS.outputSchemaBytes} bytes`, "/output_schema");
    }
    const schema = outputSchemaValidator(request.output_schema, text);
    if (!schema.ok) return refuse(state, input, "manifest_invalid_tool_schema", `the task's output schema cannot be used: ${schema.error.message}`, `/output_schema${schema.error.path ?? ""}`);
  }

  // The conversation: the asking instance's, or the one named (a core app).
  let conversationId = input.conversation_id;
  if (input.instance_id !== undefined) {
    const instance = getInstance(state.instances, input.instance_id);
    if (instance === undefined || instance.app_scope !== input.app_scope || instance.status === "closed" || instance.status === "failed") {
      return refuse(state, input, "not_found", `${input.instance_id} is not a live instance of ${input.app_scope}`, "/instance_id");
    }
    if (instance.conversation_id === undefined) return refuse(state, input, "invalid_state", `instance ${input.instance_id} serves no conversation, so it has no agent to ask`);
    conversationId = instance.conversation_id;
  }
  const conversation = conversationId === undefined ? undefined : state.conversations.get(conversationId);
  if (conversation === undefined) return refuse(state, input, "conversation_unknown", `no conversation ${conversationId ?? "(none named)"} for the task`, "/conversation_id");
  const at = { app_scope: input.app_scope, conversation_id: conversation.conversation_id };

  // Requested tools: declared for the entry, and in the inventory the conversation's agent sees now.
  const tools = (request.requested_tools ?? []).map((t) => ({ app_scope: t.app_scope ?? input.app_scope, method: t.method }));
  const declared = (entry.tools ?? []).map((t) => `${t.app_scope ?? input.app_scope}/${t.method}`);
  const inventory = inventoryFor(state, env, conversation.agent_id, conversation.conversation_id);
  for (const [i, tool] of tools.entries()) {
    if (!declared.includes(`${tool.app_scope}/${tool.method}`)) return refuse(state, at, "capability_not_declared", `the entry "${entry.id}" does not declare the tool ${tool.app_scope}/${tool.method}`, `/requested_tools/${i}`);
    if (!inventory.tools.some((t) => t.app_scope === tool.app_scope && t.method === tool.method)) return refuse(state, at, "tool_not_visible", `${tool.app_scope}/${tool.method} is not in the agent's inventory of ${conversation.conversation_id}`, `/requested_tools/${i}`);
  }

  const requestHash = sha256Hex(canonicalJson(request as unknown as JsonValue));
  if (request.idempotency_key !== undefined) {
    const existing = taskByKey(state.tasks, input.app_scope, request.idempotency_key);
    if (existing !== undefined) {
      if (existing.request_hash !== requestHash) return refuse(state, at, "idempotency_conflict", `the idempotency key ${request.idempotency_key} was used for another task request`, "/idempotency_key");
      return unchanged(state, { reply: publicTask(existing) as unknown as JsonValue });
    }
  }
  const provenance = appProvenance(state.apps, input.app_scope)!;
  const now = toTimestamp(env.now());
  const record: TaskRecord = {
    task_id: env.newId("task"),
    app_scope: input.app_scope,
    ...(input.instance_id === undefined ? {} : { instance_id: input.instance_id }),
    conversation_id: conversation.conversation_id,
    entry: request.entry,
    ...(request.title === undefined ? {} : { title: request.title }),
    idempotency_key: request.idempotency_key ?? env.newId("tkey"),
    request_hash: requestHash,
    request,
    status: "queued",
    attempt: 1,
    turn_id: env.newId("turn"),
    trace_id: env.newId("trace"),
    created_at: now,
    updated_at: now,
    event_count: 0,
    turn_ids: [],
    provenance,
    attachments: input.attachments,
    knowledge: input.knowledge,
    requested: tools,
  };
  const step = new Step(state);
  const draft = new TaskDraft(state.tasks, now);
  draft.makeRoom(input.app_scope);
  draft.put({ ...record, turn_ids: [record.turn_id] });
  draft.append(record.task_id, 1, { kind: "status", status: "queued" });
  const created = draft.get(record.task_id)!;
  commitTaskDraft(step, draft);
  enqueueTurnStart(step, env, created, request.input.text);
  step.audit.push({ type: "task.started", conversation_id: conversation.conversation_id, subject: record.task_id, detail: `${input.app_scope}${input.instance_id === undefined ? "" : ` instance ${input.instance_id}`}: ${request.entry} → turn ${record.turn_id}` });
  return step.result({ reply: publicTask(step.state.tasks.tasks.get(record.task_id)!) as unknown as JsonValue });
}

/** The current attempt's `agentSession/turn/start`, with what the agent is told of the task. */
function enqueueTurnStart(step: Step, env: TransitionEnv, task: TaskRecord, text: string | undefined): void {
  const request = task.request;
  const options: TaskTurnOptions = {
    task_id: task.task_id,
    attempt: task.attempt,
    entry: task.entry,
    ...(task.title === undefined ? {} : { title: task.title }),
    provenance: task.provenance,
    ...(task.instance_id === undefined ? {} : { instance_id: task.instance_id }),
    ...(request.context === undefined ? {} : { context: request.context }),
    ...(request.business_object_ref === undefined ? {} : { business_object_ref: request.business_object_ref }),
    requested_tools: [...task.requested],
    knowledge: [...task.knowledge],
    trace_id: task.trace_id,
  };
  const input: JsonObject = {};
  if (text !== undefined && text !== "") input["text"] = text;
  if (task.attachments.length > 0) input["attachments"] = task.attachments as unknown as JsonValue;
  // The server needs at least one member of the input: a task named only by its entry says so.
  if (Object.keys(input).length === 0) input["text"] = task.title ?? task.entry;
  step.enqueue(env, {
    conversation_id: task.conversation_id,
    app_scope: task.app_scope,
    action_type: "task.start",
    method: "agentSession/turn/start",
    params: {
      session_id: task.conversation_id,
      turn_id: task.turn_id,
      input,
      ...(request.output_schema === undefined ? {} : { output_schema: request.output_schema }),
      queue: request.queue ?? "enqueue",
      options: { [TASK_TURN_OPTION]: options as unknown as JsonValue },
    },
  });
}

export function onTaskControl(state: RuntimeState, input: TaskControlInput, env: TransitionEnv): TransitionResult {
  const task = state.tasks.tasks.get(input.task_id);
  if (task === undefined || task.app_scope !== input.app_scope) return refuse(state, input, "not_found", `${input.app_scope} has no task ${input.task_id}`, "/task_id");
  const at = { app_scope: input.app_scope, conversation_id: task.conversation_id };
  const control = input.control;
  const wrong = (what: string): TransitionResult => refuse(state, at, "invalid_state", `task ${task.task_id} is ${task.status}${task.decision === undefined ? "" : ` and ${task.decision.decision}`}: it cannot be ${what}`);
  const step = new Step(state);
  const now = toTimestamp(env.now());
  const draft = new TaskDraft(state.tasks, now);
  switch (control.op) {
    case "cancel": {
      if (isTerminal(task.status)) return wrong("cancelled");
      cancelAttempt(step, env, task, control.reason);
      step.audit.push({ type: "task.cancel", conversation_id: task.conversation_id, subject: task.task_id, detail: `turn ${task.turn_id}` });
      return step.result({ reply: publicTask(task) as unknown as JsonValue });
    }
    case "retry":
    case "resubmit": {
      if (task.decision?.decision === "accepted") return wrong(control.op === "retry" ? "retried" : "resubmitted");
      if (control.op === "retry" && !(task.status === "failed" || task.status === "cancelled" || task.decision?.decision === "rejected")) return wrong("retried");
      if (task.attempt >= 1000) return wrong("tried again (1,000 attempts)");
      if (!isTerminal(task.status)) cancelAttempt(step, env, task, "resubmitted with new input");
      const text = control.op === "resubmit" ? control.input.text : task.request.input.text;
      const request: AgentTaskRequest = control.op === "resubmit" ? { ...task.request, input: control.input } : task.request;
      const { result: _r, error: _e, decision: _d, waiting_action: _w, ...kept } = task;
      const next: TaskRecord = {
        ...kept,
        request,
        attempt: task.attempt + 1,
        turn_id: env.newId("turn"),
        turn_ids: [...task.turn_ids],
        status: "queued",
        ...(control.op === "resubmit" ? { attachments: input.attachments ?? [] } : {}),
      };
      draft.put({ ...next, turn_ids: [...task.turn_ids, next.turn_id] });
      draft.append(task.task_id, next.attempt, { kind: "status", status: "queued", reason: control.op === "retry" ? "retried" : "resubmitted" });
      const updated = draft.get(task.task_id)!;
      commitTaskDraft(step, draft);
      enqueueTurnStart(step, env, updated, text);
      step.audit.push({ type: `task.${control.op}`, conversation_id: task.conversation_id, subject: task.task_id, detail: `attempt ${next.attempt} → turn ${next.turn_id}` });
      return step.result({ reply: publicTask(step.state.tasks.tasks.get(task.task_id)!) as unknown as JsonValue });
    }
    case "accept":
    case "reject": {
      if (task.status !== "completed" || task.decision !== undefined) return wrong(control.op === "accept" ? "accepted" : "rejected");
      const decision = control.op === "accept" ? "accepted" : "rejected";
      const reason = control.op === "reject" ? control.reason : undefined;
      draft.put({ ...task, decision: { decision, ...(reason === undefined ? {} : { reason }), at: now } });
      draft.append(task.task_id, task.attempt, { kind: "decision", decision, ...(reason === undefined ? {} : { reason }) });
      commitTaskDraft(step, draft);
      step.enqueue(env, {
        conversation_id: task.conversation_id,
        app_scope: task.app_scope,
        action_type: `task.${control.op}`,
        method: "agentSession/envelope/send",
        params: {
          session_id: task.conversation_id,
          envelope: {
            v: 1,
            id: env.newId("env"),
            type: "lineup.task.decision",
            timestamp: now,
            sender: { kind: "app", id: task.app_scope },
            target: { kind: "runtime", app_scope: "runtime" },
            scope: { app_scope: task.app_scope, conversation_id: task.conversation_id },
            payload: { task_id: task.task_id, turn_id: task.turn_id, decision, ...(reason === undefined ? {} : { reason }) },
          },
        },
      });
      step.audit.push({ type: `task.${decision}`, conversation_id: task.conversation_id, subject: task.task_id, ...(reason === undefined ? {} : { detail: reason.slice(0, 500) }) });
      return step.result({ reply: publicTask(step.state.tasks.tasks.get(task.task_id)!) as unknown as JsonValue });
    }
  }
}

/** Cancels the task's current turn on the AppServer (once: a cancel already waiting is that cancel). */
function cancelAttempt(step: Step, env: TransitionEnv, task: TaskRecord, reason: string | undefined): void {
  if (pendingCancel(task.conversation_id, task.turn_id, step.state.outbox.values()) !== undefined) return;
  step.enqueue(env, {
    conversation_id: task.conversation_id,
    app_scope: task.app_scope,
    action_type: "task.cancel",
    method: "agentSession/turn/cancel",
    params: { session_id: task.conversation_id, turn_id: task.turn_id, ...(reason === undefined ? {} : { reason: reason.slice(0, AGENT_TASK_LIMITS.reason) }) },
  });
}
