/**
 * In-app agent tasks (spec 003, "App 内 Agent Task 契约"): an app asks the conversation's agent for a piece
 * of work from its own UI, follows the task's events, and accepts or rejects its structured result.
 *
 * Three shapes live here, one per edge:
 * - `AgentTaskRequest`: what an app passes to `sdk.agent.startTask` (both SDKs; the Surface Bridge's
 *   `agent.start_task` params). The app and the conversation are never in it: they come from the SDK's context.
 * - `TaskTurnOptions`: what the Runtime puts in `agentSession/turn/start`'s `options.lineup_task`, so an agent
 *   knows which app asked, with what context, which tools it may use and what provenance the app has.
 * - `AgentTask` and `AgentTaskEvent`: the Runtime's durable task record and its numbered events, as apps see them.
 *
 * docs/protocol.md section "In-app agent tasks" is the prose of this file; docs/app-server-protocol.md says how
 * a task maps onto the App Server profile.
 */
import { Type, type Static } from "@sinclair/typebox";
import { AGENT_TASK_LIMITS, AGENT_TASK_STATUSES, type AgentTaskStatus } from "./agent-task-terms.js";
import type { JsonObject, JsonValue } from "./json.js";
import { AppScopeSchema as BrandedAppScopeSchema, Closed, JsonObjectSchema, JsonValueSchema, OpaqueIdSchema, StringEnum, schemaId, declared } from "./schema-kit.js";
import { ArtifactRefSchema, type ArtifactRef } from "./envelope/types.js";



/** The entry key: which of the app's task entries the person used (a form, a button). */
const EntryKeySchema = () => Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-z][a-z0-9_.-]*$" });
const MethodSchema = () => Type.String({ minLength: 3, maxLength: 128, pattern: "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$" });
const Text = (maxLength: number) => Type.String({ maxLength });
/** An app scope as a plain string (the records here are data, not typed handles). */
const AppScopeSchema = () => Type.Unsafe<string>(BrandedAppScopeSchema());

/** A tool the agent may use for the task; `app_scope` absent means the asking app's own. */
export const RequestedToolSchema = /* @__PURE__ */ declared(() => Closed({ app_scope: Type.Optional(AppScopeSchema()), method: MethodSchema() }));
export type RequestedTool = Static<typeof RequestedToolSchema>;

/** An artifact the app names: only its id; the Runtime resolves it (and refuses one the app may not see). */
export const ArtifactIdRefSchema = /* @__PURE__ */ declared(() => Closed({ artifact_id: OpaqueIdSchema() }));

export const TaskInputSchema = /* @__PURE__ */ declared(() =>
  Closed(
    {
      text: Type.Optional(Text(AGENT_TASK_LIMITS.text)),
      attachments: Type.Optional(Type.Array(ArtifactIdRefSchema, { maxItems: AGENT_TASK_LIMITS.refs })),
    },
    { $id: schemaId("agent-task.input"), title: "An agent task's input: text and attachments" },
  ),
);
export type AgentTaskInput = Static<typeof TaskInputSchema>;

export const AgentTaskRequestSchema = /* @__PURE__ */ declared(() =>
  Closed(
    {
      entry: EntryKeySchema(),
      /** Same key and same request: the same task; same key, other request: `idempotency_conflict`. */
      idempotency_key: Type.Optional(OpaqueIdSchema()),
      /** What the chat's card says the app asked ("Whiteboard asked the agent: …"). */
      title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      input: TaskInputSchema,
      context: Type.Optional(JsonObjectSchema()),
      business_object_ref: Type.Optional(Closed({ type: Type.String({ minLength: 1, maxLength: 64 }), id: Type.String({ minLength: 1, maxLength: 256 }) })),
      requested_tools: Type.Optional(Type.Array(RequestedToolSchema, { maxItems: AGENT_TASK_LIMITS.tools })),
      knowledge: Type.Optional(Type.Array(ArtifactIdRefSchema, { maxItems: AGENT_TASK_LIMITS.refs })),
      output_schema: Type.Optional(JsonObjectSchema()),
      queue: Type.Optional(StringEnum(["enqueue", "interrupt"] as const)),
    },
    { $id: schemaId("agent-task.request"), title: "An app's agent task request (sdk.agent.startTask)" },
  ),
);
export type AgentTaskRequest = Static<typeof AgentTaskRequestSchema>;

/** Who made a thing an app produced: the app, its version and its bundle's digest (absent for a core app). */
export const ProvenanceSchema = /* @__PURE__ */ declared(() => Closed(
  {
    app_scope: AppScopeSchema(),
    app_version: Type.String({ minLength: 1, maxLength: 64 }),
    bundle_digest: Type.Optional(Type.String({ pattern: "^sha256:[0-9a-f]{64}$" })),
  },
  { $id: schemaId("agent-task.provenance"), title: "Package provenance" },
));
export type Provenance = Static<typeof ProvenanceSchema>;

/** `options.lineup_task` of a task's `agentSession/turn/start`: what the agent is told about the task. */
export const TaskTurnOptionsSchema = /* @__PURE__ */ declared(() =>
  Closed(
    {
      task_id: OpaqueIdSchema(),
      attempt: Type.Integer({ minimum: 1, maximum: 1000 }),
      entry: EntryKeySchema(),
      title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      provenance: ProvenanceSchema,
      instance_id: Type.Optional(OpaqueIdSchema()),
      context: Type.Optional(JsonObjectSchema()),
      business_object_ref: Type.Optional(Closed({ type: Type.String({ minLength: 1, maxLength: 64 }), id: Type.String({ minLength: 1, maxLength: 256 }) })),
      /** The only tools the agent may call while working on the task; empty: none. */
      requested_tools: Type.Array(Closed({ app_scope: AppScopeSchema(), method: MethodSchema() }), { maxItems: AGENT_TASK_LIMITS.tools }),
      knowledge: Type.Array(ArtifactRefSchema, { maxItems: AGENT_TASK_LIMITS.refs }),
      trace_id: OpaqueIdSchema(),
    },
    { $id: schemaId("agent-task.turn-options"), title: "options.lineup_task of a task's turn" },
  ),
);
export type TaskTurnOptions = Static<typeof TaskTurnOptionsSchema>;

/** The structured result the agent gave, valid against the request's output schema. */
export interface AgentTaskResult {
  readonly output: JsonValue;
  readonly text?: string;
}

export interface AgentTaskDecision {
  readonly decision: "accepted" | "rejected";
  readonly reason?: string;
  readonly at: string;
}

/** A task as apps see it (`sdk.agent.tasks()`, each handle's `task`). */
export interface AgentTask {
  readonly task_id: string;
  readonly app_scope: string;
  readonly instance_id?: string;
  readonly conversation_id: string;
  readonly entry: string;
  readonly title?: string;
  readonly idempotency_key: string;
  /** SHA-256 of the request as the app sent it (canonical JSON), for the idempotency check. */
  readonly request_hash: string;
  readonly request: AgentTaskRequest;
  readonly status: AgentTaskStatus;
  /** 1 for the first turn; retry and resubmit start the next. */
  readonly attempt: number;
  /** The AppServer turn of the current attempt. */
  readonly turn_id: string;
  readonly trace_id: string;
  readonly created_at: string;
  readonly updated_at: string;
  /** How many events the task has: the index of its newest one (0: none). */
  readonly event_count: number;
  readonly result?: AgentTaskResult;
  readonly error?: { readonly code: string; readonly message: string };
  readonly decision?: AgentTaskDecision;
}

/** One event of a task, numbered from 1 in the order the Runtime applied it. */
export type AgentTaskEvent = {
  readonly task_id: string;
  readonly index: number;
  readonly attempt: number;
  readonly at: string;
} & AgentTaskEventBody;

export type AgentTaskEventBody =
  | { readonly kind: "status"; readonly status: AgentTaskStatus; readonly reason?: string }
  | { readonly kind: "progress"; readonly label?: string; readonly progress?: number }
  | { readonly kind: "text"; readonly delta: string }
  | { readonly kind: "tool_call"; readonly call_id: string; readonly app_scope: string; readonly method: string }
  | { readonly kind: "tool_result"; readonly call_id: string; readonly outcome: "result" | "error"; readonly code?: string }
  | { readonly kind: "blocked"; readonly code: string; readonly message: string; readonly call_id?: string }
  | { readonly kind: "knowledge"; readonly refs: readonly JsonValue[] }
  | { readonly kind: "artifact"; readonly artifact: ArtifactRef }
  | { readonly kind: "action"; readonly action_id: string; readonly prompt: string }
  | { readonly kind: "result"; readonly output: JsonValue; readonly text?: string }
  | { readonly kind: "error"; readonly code: string; readonly message: string }
  | { readonly kind: "decision"; readonly decision: "accepted" | "rejected"; readonly reason?: string };

/** What an app asks of one of its tasks. */
export type AgentTaskControl =
  | { readonly op: "cancel"; readonly reason?: string }
  | { readonly op: "retry" }
  | { readonly op: "resubmit"; readonly input: AgentTaskInput }
  | { readonly op: "accept" }
  | { readonly op: "reject"; readonly reason?: string };

export const AgentTaskControlSchema = /* @__PURE__ */ declared(() =>
  Type.Union(
    [
      Closed({ op: Type.Literal("cancel"), reason: Type.Optional(Text(AGENT_TASK_LIMITS.reason)) }),
      Closed({ op: Type.Literal("retry") }),
      Closed({ op: Type.Literal("resubmit"), input: TaskInputSchema }),
      Closed({ op: Type.Literal("accept") }),
      Closed({ op: Type.Literal("reject"), reason: Type.Optional(Text(AGENT_TASK_LIMITS.reason)) }),
    ],
    { $id: schemaId("agent-task.control"), title: "An app's control of its task" },
  ),
);

/** A task record on the wire (the Surface Bridge): the fields of `AgentTask`, checked at the edge. */
export const AgentTaskSchema = /* @__PURE__ */ declared(() =>
  Closed(
    {
      task_id: OpaqueIdSchema(),
      app_scope: AppScopeSchema(),
      instance_id: Type.Optional(OpaqueIdSchema()),
      conversation_id: OpaqueIdSchema(),
      entry: EntryKeySchema(),
      title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      idempotency_key: OpaqueIdSchema(),
      request_hash: Type.String({ pattern: "^[0-9a-f]{64}$" }),
      /** The request as the app made it (checked when the task started; not checked again on the way back). */
      request: Type.Unsafe<AgentTaskRequest>(JsonObjectSchema()),
      status: StringEnum(AGENT_TASK_STATUSES),
      attempt: Type.Integer({ minimum: 1, maximum: 1000 }),
      turn_id: OpaqueIdSchema(),
      trace_id: OpaqueIdSchema(),
      created_at: Type.String({ maxLength: 40 }),
      updated_at: Type.String({ maxLength: 40 }),
      event_count: Type.Integer({ minimum: 0 }),
      result: Type.Optional(Closed({ output: JsonValueSchema(), text: Type.Optional(Text(65_536)) })),
      error: Type.Optional(Closed({ code: Type.String({ minLength: 1, maxLength: 64 }), message: Text(2_000) })),
      decision: Type.Optional(Closed({ decision: StringEnum(["accepted", "rejected"] as const), reason: Type.Optional(Text(AGENT_TASK_LIMITS.reason)), at: Type.String({ maxLength: 40 }) })),
    },
    { $id: schemaId("agent-task.task"), title: "An agent task as apps see it" },
  ),
);

export const AGENT_TASK_EVENT_KINDS = ["status", "progress", "text", "tool_call", "tool_result", "blocked", "knowledge", "artifact", "action", "result", "error", "decision"] as const;

/** A task event on the wire: its frame is checked; the members of each kind are as `AgentTaskEventBody` says. */
export const AgentTaskEventSchema = /* @__PURE__ */ declared(() => Type.Object(
  {
    task_id: OpaqueIdSchema(),
    index: Type.Integer({ minimum: 1 }),
    attempt: Type.Integer({ minimum: 1, maximum: 1000 }),
    at: Type.String({ maxLength: 40 }),
    kind: StringEnum(AGENT_TASK_EVENT_KINDS),
  },
  { $id: schemaId("agent-task.event"), title: "An agent task's event" },
));


/** The `options` key of a task's turn. */
export const TASK_TURN_OPTION = "lineup_task";

/** The task options of a turn's `options`, or undefined when the turn is not an app's task (or they are malformed). */
export function taskOptionsOf(options: unknown): TaskTurnOptions | undefined {
  if (typeof options !== "object" || options === null || Array.isArray(options)) return undefined;
  const task = (options as JsonObject)[TASK_TURN_OPTION];
  if (typeof task !== "object" || task === null || Array.isArray(task)) return undefined;
  const t = task as JsonObject;
  if (typeof t["task_id"] !== "string" || typeof t["entry"] !== "string" || typeof t["attempt"] !== "number" || typeof t["trace_id"] !== "string") return undefined;
  const provenance = t["provenance"] as JsonObject | undefined;
  if (typeof provenance !== "object" || provenance === null || typeof provenance["app_scope"] !== "string") return undefined;
  if (!Array.isArray(t["requested_tools"]) || !Array.isArray(t["knowledge"])) return undefined;
  return task as unknown as TaskTurnOptions;
}


export const AGENT_TASK_SCHEMAS = [TaskInputSchema, AgentTaskRequestSchema, ProvenanceSchema, TaskTurnOptionsSchema, AgentTaskControlSchema, AgentTaskSchema, AgentTaskEventSchema] as const;
