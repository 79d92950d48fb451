/**
 * Everything that enters the Runtime's one loop, and everything a transition hands back to the shell.
 * Three ingress paths stay distinct (spec 5.1): server events (the agent's path, through the log), app
 * actions (the user's path), and the Runtime's own connection facts.
 */
import type { StepOutcome, TraceEntry, WorkflowRun } from "../workflows/run.js";
import type { AgentTask, AgentTaskControl, AgentTaskEvent, AgentTaskRequest, ArtifactRef, ErrorCode, JsonObject, JsonValue, LineUpError, Session, SessionEvent } from "@lineup/protocol";
import type { BundleCandidate } from "../app-lifecycle/manager/pipeline.js";
import type { ToolProgressPayload } from "../tools/payloads.js";
import type { ToolOutput } from "../tools/call-state.js";
import type { OutboxEntry } from "../communication/outbox.js";
import type { CapabilityHostSnapshot } from "../capabilities/loop-state.js";
import type { CapabilityStep } from "../capabilities/state.js";
import type { AgentAppMessage } from "../persistence/inbox.js";
import type { ReplaceRequest, SessionDataSnapshot } from "../session-data/semantics.js";
import type { InstanceChange } from "../app-lifecycle/instances/state.js";
import type { StoreValue, StoreWrite } from "../persistence/store.js";
import type { Identity, RuntimeState } from "./state.js";
import type { Lifecycle } from "./lifecycle.js";

/** A declarative app action (spec 6.2): apps never build raw envelopes or requests. */
export type AppAction =
  | { readonly type: "conversation.send_text"; readonly conversation_id: string; readonly text: string }
  | {
      readonly type: "interaction.answer";
      readonly conversation_id: string;
      /** The message_id of the `lineup.action.required` or `lineup.interaction.request` card. */
      readonly message_id: string;
      readonly response: InteractionAnswer;
    };

/** An answer to a card: `answered` with choices/text/data, or `approved` / `rejected` / `cancelled`. */
export interface InteractionAnswer {
  readonly outcome: "answered" | "approved" | "rejected" | "cancelled";
  readonly choice_ids?: readonly string[];
  readonly text?: string;
  readonly confirmed?: boolean;
  readonly data?: JsonValue;
}

export interface StartConversationRequest {
  readonly agent_id: string;
  readonly workspace_id: string;
  readonly title?: string;
  readonly app_scope?: string;
}

export type RuntimeInput =
  | { readonly kind: "lifecycle"; readonly to: Lifecycle; readonly identity?: Identity }
  /** Writes the identity the Runtime holds: posted once a connect that reported a new one has synchronized (handlers/lifecycle.ts). */
  | { readonly kind: "identity.save" }
  | { readonly kind: "sessions.listed"; readonly sessions: readonly Session[] }
  | { readonly kind: "session.subscribe_failed"; readonly session_id: string; readonly code: ErrorCode; readonly message: string }
  | { readonly kind: "event"; readonly event: SessionEvent }
  /** An event whose frame places it in the log but whose content failed the schema: consumed and refused with `code`. */
  | { readonly kind: "event.malformed"; readonly session_id: string; readonly seq: number; readonly code: ErrorCode; readonly message: string }
  | { readonly kind: "caught_up"; readonly session_id: string; readonly seq: number }
  /** `agentSession/presence`: whether the session's bound agent is connected, now. */
  | { readonly kind: "agent.presence"; readonly session_id: string; readonly agent_id: string; readonly connected: boolean }
  | { readonly kind: "dispatch"; readonly app_scope: string; readonly action: AppAction }
  | { readonly kind: "conversation.start"; readonly app_scope: string; readonly request: StartConversationRequest }
  /**
   * The person stops the agent: the conversation's running (or waiting) turn is cancelled through the outbox.
   * `instance_id`: the Stop was pressed in that instance of the app (an installed app's surface), which must be
   * live, bound to the conversation and in the foreground.
   */
  | { readonly kind: "turn.cancel"; readonly app_scope: string; readonly conversation_id: string; readonly instance_id?: string }
  /**
   * An app asks the agent for a task (handlers/tasks.ts). `attachments` and `knowledge` are the request's
   * artifacts, resolved by the shell (each one the app may use, shared with the conversation).
   */
  | { readonly kind: "task.start"; readonly app_scope: string; readonly conversation_id?: string; readonly instance_id?: string; readonly request: AgentTaskRequest; readonly attachments: readonly ArtifactRef[]; readonly knowledge: readonly ArtifactRef[] }
  /** An app's workflow run: started, a step's progress or outcome (from the workflow shell), a cancel or a person's answer. */
  | { readonly kind: "workflow"; readonly app_scope: string; readonly op: WorkflowOp }
  /**
   * A workflow's `tool` step calls one of its app's tools (handlers/workflow-tools.ts), as call `call_id` (derived
   * from the step's effect key, so the step run again after a restart is the same call). `tool_app_scope`: the
   * app the step names, if any.
   */
  | { readonly kind: "workflow.tool_call"; readonly app_scope: string; readonly run_id: string; readonly step_id: string; readonly call_id: string; readonly tool_app_scope?: string; readonly method: string; readonly arguments: JsonValue; readonly timeout_ms?: number }
  /** An app controls one of its tasks; a resubmit's attachments are resolved by the shell. */
  | { readonly kind: "task.control"; readonly app_scope: string; readonly task_id: string; readonly control: AgentTaskControl; readonly attachments?: readonly ArtifactRef[] }
  /**
   * `displayed`: the Runtime's own acknowledgement of display messages it has just delivered from the
   * inbox, so their inbox rows are known to exist and only their pending marks are read.
   */
  | { readonly kind: "acknowledge"; readonly app_scope: string; readonly message_ids: readonly string[]; readonly displayed?: true }
  | { readonly kind: "outbox.settled"; readonly order: number; readonly outcome: OutboxOutcome }
  /** Once after restoring: calls, activations and instances of the previous run are resumed or ended. */
  | { readonly kind: "apps.resume" }
  /**
   * The host's facts changed at run time — the capabilities it can carry out, or the inventory policy —
   * and the shell has already put the new ones in the transition environment: republish what changed.
   */
  | { readonly kind: "host.changed"; readonly what: "capabilities" | "policy"; readonly detail: string }
  /** A host intent (`lineup.host.intent`, the third ingress path; `app-lifecycle/host-intents.ts`), checked by the shell: audited; `memory_pressure` suspends every idle background instance. */
  | { readonly kind: "host.intent"; readonly intent: HostIntent }
  | { readonly kind: "app.request"; readonly request: AppManagerRequest }
  | { readonly kind: "instance"; readonly request: InstanceRequest }
  | { readonly kind: "tool.report"; readonly app_scope: string; readonly instance_id?: string; readonly call_id: string; readonly report: ToolReport }
  /** The deadline timer fired: end what is due. */
  | { readonly kind: "tools.tick" }
  /** The idle timer fired: background instances idle long enough are suspended (spec 4.4). */
  | { readonly kind: "instances.tick" }
  | { readonly kind: "settings"; readonly change: SettingsChange }
  /** An event one of the app's instances raised (spec 8.2), for the agent of that instance's conversation. */
  | { readonly kind: "app.event"; readonly app_scope: string; readonly instance_id: string; readonly name: string; readonly data: JsonValue }
  /** An app's new artifact; `sha256` was computed by the shell over `bytes`. */
  /** `artifact_id`: chosen by the caller (a workflow step's, derived from its idempotency key): an artifact of that id already made is answered, not made again. */
  | { readonly kind: "artifact.create"; readonly app_scope: string; readonly conversation_id?: string; readonly name: string; readonly mime_type: string; readonly bytes: Uint8Array; readonly sha256: string; readonly artifact_id?: string }
  /** A conversation's artifact read whole from the AppServer (its SHA-256 checked): kept, so it reads and saves offline. */
  | { readonly kind: "artifact.cache"; readonly conversation_id: string; readonly artifact: ArtifactRef; readonly bytes: Uint8Array }
  /**
   * Artifacts an app that is no longer installed kept to itself (found by the shell): deleted, bytes and
   * record. `last`: the removal's release is done, its marker (`releaseMarkerKey`) goes.
   */
  | { readonly kind: "artifacts.release"; readonly app_scope: string; readonly artifact_ids: readonly string[]; readonly last: boolean }
  /** An app replaces one session's data (`handlers/session-data.ts`); the shell checked the SDK context it came with. */
  | { readonly kind: "session_data.replace"; readonly app_scope: string; readonly app_session_id: string; readonly request: ReplaceRequest }
  /** A tool call's result card (`result-cards.ts` made it after the result's commit): kept if the call has none yet, never replaced. */
  | { readonly kind: "result_card"; readonly call_id: string; readonly card: JsonValue }
  // --- Capability Gateway (spec 6.3; handlers/capabilities.ts). `host` is read by the shell just before posting.
  /** An app asks for a capability; the shell made `request_id` and waits for its `respond` step. */
  | { readonly kind: "capability.request"; readonly request: CapabilityRequestInput; readonly host: CapabilityHostSnapshot }
  /** The shell's confirmation dialog was answered. */
  | { readonly kind: "capability.user_answer"; readonly request_id: string; readonly answer: "allow" | "deny" | "dismiss"; readonly host: CapabilityHostSnapshot }
  /** The system's permission dialog was answered. */
  | { readonly kind: "capability.system_answer"; readonly request_id: string; readonly granted: boolean; readonly host: CapabilityHostSnapshot }
  /** The host provider finished (`result` is checked by the gateway: anything malformed is `failed`). */
  | { readonly kind: "capability.host_completed"; readonly request_id: string; readonly result: unknown }
  /** The request timer fired: waiting requests past `expires_at` end `expired`. */
  | { readonly kind: "capabilities.tick" };

/** What an app asks of the Capability Gateway (`AppPort.requestCapability`). */
export interface CapabilityRequestInput {
  readonly request_id: string;
  readonly app_scope: string;
  /** The asking instance; without it, the app's instance in the foreground (if any) asks. */
  readonly instance_id?: string;
  /** The app's MCP Apps view that asks, instead of an instance (`AppCapabilityRequest.view`). */
  readonly view?: string;
  readonly capability: string;
  readonly purpose: string;
  readonly input: JsonValue;
}

/** An App Manager request (spec 4.3); the bundle bytes ride along so they are stored in the deciding commit. */
/** The payload of `lineup.host.intent`. */
export interface HostIntent {
  readonly intent: "open_app" | "open_conversation" | "close_app" | "suspend" | "resume" | "window_hidden" | "window_shown" | "memory_pressure";
  readonly app_scope?: string;
  readonly conversation_id?: string;
  readonly entrypoint?: string;
}

export type AppManagerRequest =
  | { readonly type: "install"; readonly operation_id: string; readonly candidate: BundleCandidate; readonly bundle: Uint8Array; readonly approved: boolean; readonly enable?: boolean }
  | { readonly type: "update"; readonly operation_id: string; readonly app_scope: string; readonly candidate: BundleCandidate; readonly bundle: Uint8Array; readonly target_version?: string }
  /** Spec 4.3 `update(appScope, targetVersion?)` without a bundle: to a retained version newer than the active one. */
  | { readonly type: "update_retained"; readonly operation_id: string; readonly app_scope: string; readonly target_version?: string }
  | { readonly type: "resolve_update"; readonly operation_id: string; readonly app_scope: string; readonly approved: boolean }
  | { readonly type: "enable" | "set_default"; readonly operation_id: string; readonly app_scope: string }
  | { readonly type: "disable"; readonly operation_id: string; readonly app_scope: string; readonly reason?: string }
  /** An accepted install or update that could not be completed (`decideInstallFailed`): the Runtime's own, not the person's. */
  | { readonly type: "install_failed"; readonly operation_id: string; readonly app_scope: string; readonly kind: "install" | "update"; readonly code: ErrorCode; readonly reason: string }
  | { readonly type: "rollback"; readonly operation_id: string; readonly app_scope: string; readonly version?: string; readonly reason: string }
  | { readonly type: "remove"; readonly operation_id: string; readonly app_scope: string; readonly confirmed: boolean };

export type InstanceRequest =
  | { readonly op: "launch"; readonly app_scope: string; readonly conversation_id?: string; readonly entrypoint?: string; readonly foreground: boolean; readonly new_instance?: boolean; readonly parent_instance_id?: string; readonly opened_by?: string }
  | { readonly op: "ready" | "focus" | "background" | "closed"; readonly instance_id: string }
  /** `by: "user"`: the person closed it in the shell; otherwise the app (or the Runtime on its behalf) did. */
  | { readonly op: "close"; readonly instance_id: string; readonly by?: "user" | "app" }
  | { readonly op: "failed"; readonly instance_id: string; readonly reason: string };

/** What an app's handler reports for a call delivered to it. */
export type ToolReport =
  | { readonly kind: "progress"; readonly progress: ToolProgressPayload }
  | { readonly kind: "result"; readonly result: unknown }
  | { readonly kind: "error"; readonly code: string; readonly message?: string }
  /**
   * A runtime-owned operation's handler asks the Runtime to start it (spec 6.3): with `duration_ms` a timed
   * operation whose expiry and result are the Runtime's (pomodoro); without, one the app runs and finishes
   * with its own result before the tool's deadline (an export).
   */
  | { readonly kind: "start_operation"; readonly duration_ms?: number }
  /** The app ends its own runtime-owned operations early (pomodoro's interrupt). */
  | { readonly kind: "interrupt_operations"; readonly conversation_id: string; readonly reason: string };

export type SettingsChange =
  | { readonly type: "trust"; readonly key_id: string; readonly public_key: string; readonly label?: string }
  | { readonly type: "distrust"; readonly key_id: string }
  | { readonly type: "grant"; readonly app_scope: string; readonly capability: string; readonly decision: "granted" | "denied" | "ask" }
  /** The origins of an MCP Apps view's declared CSP the person let it reach (none forgets the grant). */
  | { readonly type: "view_grant"; readonly app_scope: string; readonly resource_uri: string; readonly connect_domains: readonly string[]; readonly resource_domains: readonly string[] }
  /** The person's UI language (a canonical BCP 47 tag), or null to follow the device. */
  | { readonly type: "language"; readonly language: string | null }
  /**
   * The publisher keys the host ships with (checked by the shell): each one this store has not seen before is
   * trusted, unless it already is, and the store notes it as seen, in the same commit, so a key the person
   * removed in settings stays removed.
   */
  | { readonly type: "shipped_publishers"; readonly keys: readonly { readonly key_id: string; readonly public_key: string; readonly label?: string }[] };

export type OutboxOutcome = { readonly status: "applied"; readonly result: JsonValue } | { readonly status: "failed"; readonly code: ErrorCode; readonly message: string };

/** Store reads a transition needs, fetched by the shell before it runs (transitions never await). */
export interface ReadKey {
  readonly collection: string;
  readonly key: string;
  /** `readId` of this key, when the key was made to be reused (a hot path's memo). */
  readonly id?: string;
}

/** The values of the keys a transition declared (`readsFor`), by `readId`; undefined for a missing or undeclared key. */
export interface Reads {
  get(id: string): StoreValue | undefined;
}

export const readId = (read: ReadKey): string => read.id ?? `${read.collection}\u0000${read.key}`;

/** A ReadKey that carries its id, for keys looked up again and again. */
export const memoReadKey = (collection: string, key: string): ReadKey => ({ collection, key, id: `${collection}\u0000${key}` });

/** Something the shell does after the commit; results come back as inputs. */
export type Effect =
  | { readonly kind: "subscribe"; readonly session_id: string; readonly after_seq: number }
  | { readonly kind: "relist" }
  | { readonly kind: "outbox.flush" }
  | { readonly kind: "lifecycle.changed"; readonly lifecycle: Lifecycle }
  /** A workflow run may have a step to run (or a retry to wait for): the workflow shell looks, after the commit. */
  | { readonly kind: "workflow.advance"; readonly run_id: string }
  /** A Capability Gateway step, run by the runtime's capability shell (its audit is already committed). */
  | { readonly kind: "capability"; readonly step: CapabilityStep; readonly app_name?: string; readonly declared_purpose?: string };

/** A call as an app's handler receives it. */
export interface DeliveredToolCall {
  readonly call_id: string;
  readonly app_scope: string;
  readonly conversation_id: string;
  readonly instance_id?: string;
  readonly method: string;
  readonly arguments: JsonObject;
  /** `run`: do the work and report a result; `operation`: a runtime-owned operation — report `start_operation`. */
  readonly mode: "run" | "operation";
}

/** What apps get after the commit: a message (if its conversation is live), a catch-up flush, or acks to forget. */
export type Delivery =
  | { readonly kind: "message"; readonly message: AgentAppMessage }
  | { readonly kind: "flush"; readonly conversation_id?: string }
  | { readonly kind: "acknowledged"; readonly app_scope: string; readonly message_ids: readonly string[] }
  /** A tool call for an app's handler: `run` it, or (`operation`) ask it to start a runtime-owned operation. */
  | ({ readonly kind: "tool.call" } & DeliveredToolCall)
  /** The call is over (cancelled, expired, app disabled): the handler stops and reports nothing more. */
  | { readonly kind: "tool.cancel"; readonly call_id: string; readonly instance_id?: string }
  /** A call a workflow step made ended: its one terminal output, for the step waiting on it. */
  | { readonly kind: "tool.settled"; readonly app_scope: string; readonly call_id: string; readonly output: ToolOutput }
  /** An app's data went away (remove): its session data contexts and subscribers are dropped. */
  | { readonly kind: "app.removed"; readonly app_scope: string }
  /** A session's data as the commit left it, for its subscribers. */
  | { readonly kind: "session_data.changed"; readonly app_scope: string; readonly app_session_id: string; readonly snapshot: SessionDataSnapshot }
  /** A new event of one of an app's agent tasks, with the task as it is after the commit. */
  | { readonly kind: "task.event"; readonly app_scope: string; readonly event: AgentTaskEvent; readonly task: AgentTask }
  /** A workflow run changed, with the trace entries the commit added. */
  | { readonly kind: "workflow.changed"; readonly app_scope: string; readonly run: WorkflowRun; readonly trace: readonly TraceEntry[] }
  /** Every instance lifecycle step the commit made, in order (two steps of one instance in one commit stay two). */
  | { readonly kind: "instances.changed"; readonly changes: readonly InstanceChange[] };

/** An audit fact before it is chained (the shell hashes and stores it in the same commit). */
export interface AuditDraft {
  /** `ingress.agent.refused`, `ingress.user.action`, `tool.refused`, `sync.cursor_refused`, … */
  readonly type: string;
  readonly code?: ErrorCode;
  readonly conversation_id?: string;
  readonly subject?: string;
  readonly detail?: string;
}

/** What happens to a workflow run (handlers/workflows.ts). */
export type WorkflowOp =
  | { readonly type: "start"; readonly workflow_id: string; readonly input: JsonValue; readonly run_id: string; readonly idempotency_key?: string; readonly conversation_id?: string; readonly instance_id?: string }
  | { readonly type: "started"; readonly run_id: string; readonly step_id: string }
  | { readonly type: "waiting"; readonly run_id: string; readonly step_id: string }
  | { readonly type: "outcome"; readonly run_id: string; readonly step_id: string; readonly attempt: number; readonly outcome: StepOutcome }
  | { readonly type: "cancel"; readonly run_id: string; readonly reason?: string }
  | { readonly type: "answer"; readonly run_id: string; readonly step_id: string; readonly confirmed: boolean };

export interface TransitionResult {
  readonly state: RuntimeState;
  readonly writes: readonly StoreWrite[];
  readonly effects: readonly Effect[];
  readonly deliveries: readonly Delivery[];
  readonly audit: readonly AuditDraft[];
  /** What the input's promise resolves with, or the typed refusal it rejects with. */
  readonly reply?: JsonValue | OutboxEntry;
  readonly error?: LineUpError;
}

export function unchanged(state: RuntimeState, extra: Partial<Omit<TransitionResult, "state">> = {}): TransitionResult {
  return { state, writes: [], effects: [], deliveries: [], audit: [], ...extra };
}
