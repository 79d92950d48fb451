/**
 * The Surface Bridge v1 catalogue: every method and event, which way it flows, and the schema of
 * its body. A message whose method or event is not in the catalogue for its direction is refused
 * with `method_not_found` — an app cannot call a host → app method, and the host cannot push an
 * event the app never agreed to receive.
 *
 * A method's `direction` is the direction of its request; its response flows the other way.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import { declared } from "../schema-kit.js";
import { schemaId } from "../schema-id.js";
import {
  BridgeAgentCancelTurnResultSchema,
  BridgeAgentStartTaskParamsSchema,
  BridgeAgentTaskControlParamsSchema,
  BridgeAgentTaskEventSchema,
  BridgeAgentTaskEventsParamsSchema,
  BridgeAgentTaskEventsResultSchema,
  BridgeAgentTaskResultSchema,
  BridgeAgentTasksResultSchema,
  BridgeAgentMessageAckParamsSchema,
  BridgeAgentMessageListParamsSchema,
  BridgeAgentMessageListResultSchema,
  BridgeAgentMessageEventSchema,
  BridgeAgentMessageSubscribeParamsSchema,
  BridgeAppCloseParamsSchema,
  BridgeAppFocusParamsSchema,
  BridgeAppListResultSchema,
  BridgeAppOpenDefaultResultSchema,
  BridgeOperationInterruptParamsSchema,
  BridgeAppLaunchParamsSchema,
  BridgeAppLaunchResultSchema,
  BridgeAppToolOutcomeSchema,
  BridgeArtifactCreateParamsSchema,
  BridgeArtifactCreateResultSchema,
  BridgeArtifactGetParamsSchema,
  BridgeArtifactInfoSchema,
  BridgeArtifactListParamsSchema,
  BridgeArtifactListResultSchema,
  BridgeArtifactReadParamsSchema,
  BridgeArtifactReadResultSchema,
  BridgeArtifactSaveParamsSchema,
  BridgeEventFrameSchema,
  BridgeEvidenceExportParamsSchema,
  BridgeEvidenceExportResultSchema,
  BridgeRequestFrameSchema,
  BridgeResponseFrameSchema,
  BridgeCapabilityRequestParamsSchema,
  BridgeCapabilityResultSchema,
  BridgeDisplayModeChangedEventSchema,
  emptyBridgeBody,
  BridgeEventEmitParamsSchema,
  BridgeHostSnapshotSchema,
  BridgeLifecycleEventSchema,
  BridgeLocaleChangedEventSchema,
  BridgeSessionDataReplaceParamsSchema,
  BridgeSessionDataReplaceResultSchema,
  BridgeSessionDataSnapshotSchema,
  BridgeStatePatchEventSchema,
  BridgeSurfaceResizeParamsSchema,
  BridgeThemeChangedEventSchema,
  BridgeToolCancelledEventSchema,
  BridgeToolCompleteParamsSchema,
  BridgeToolFailParamsSchema,
  BridgeToolInvokeParamsSchema,
  BridgeToolProgressParamsSchema,
  type BridgeDirection,
  BridgeLifecycleReadyParamsSchema,
  BridgeBackendCallParamsSchema,
  BridgeWorkflowChangedEventSchema,
  BridgeWorkflowRunSchema,
  BridgeWorkflowTraceEntrySchema,
  BridgeWorkflowControlParamsSchema,
  BridgeWorkflowEvidenceParamsSchema,
  BridgeWorkflowEvidenceResultSchema,
  BridgeWorkflowRunResultSchema,
  BridgeWorkflowRunsResultSchema,
  BridgeWorkflowStartParamsSchema,
  BridgeWorkflowTraceParamsSchema,
  BridgeWorkflowTraceResultSchema,
  BridgeCapabilitiesChangedEventSchema,
  BridgeBackendCallResultSchema,
  BridgeStorageBatchParamsSchema,
  BridgeStorageGetResultSchema,
  BridgeStorageKeyParamsSchema,
  BridgeStorageListParamsSchema,
  BridgeStorageListResultSchema,
  BridgeStoragePutParamsSchema,
  BridgeStorageUsageSchema,
} from "./schemas.js";

export interface BridgeMethodSpec<P extends TSchema = TSchema, R extends TSchema = TSchema> {
  /** The direction of the request: `to_host` is an app asking the host, `to_app` the host asking the app. */
  readonly direction: BridgeDirection;
  readonly description: string;
  readonly params: P;
  readonly result: R;
}

export interface BridgeEventSpec<D extends TSchema = TSchema> {
  readonly direction: BridgeDirection;
  readonly description: string;
  readonly data: D;
}

/** Gives a shared body schema its own `$id` under one method or event, so each has a generated validator. */
const named = <T extends TSchema>(schema: T, name: string): T => ({ ...schema, $id: schemaId(`surface-bridge.${name}`) });

const method = <P extends TSchema, R extends TSchema>(name: string, direction: BridgeDirection, description: string, params: P, result: R) => ({
  direction,
  description,
  params: named(params, `method.${name}.params`),
  result: named(result, `method.${name}.result`),
});

const event = <D extends TSchema>(name: string, direction: BridgeDirection, description: string, data: D) => ({
  direction,
  description,
  data: named(data, `event.${name}.data`),
});

export const BRIDGE_METHODS = /* @__PURE__ */ declared(() => ({
  // Host → app
  "tool.invoke": method("tool.invoke", "to_app", "The Runtime hands the app a validated call of one of its declared tools; the response is the app's outcome.", BridgeToolInvokeParamsSchema, BridgeAppToolOutcomeSchema),
  "surface.ping": method("surface.ping", "to_app", "The host's heartbeat after `lifecycle.ready` with `heartbeat: true`: the app's SDK answers it by itself; a surface that leaves it unanswered is treated as dead.", emptyBridgeBody(), emptyBridgeBody()),

  // App → host: lifecycle
  "lifecycle.ready": method("lifecycle.ready", "to_host", "The app has read the snapshot and can take events and tool calls; the host delivers nothing else before it. `heartbeat: true` says its SDK answers `surface.ping`.", BridgeLifecycleReadyParamsSchema, emptyBridgeBody()),
  "lifecycle.closing_done": method("lifecycle.closing_done", "to_host", "The app has flushed after `lifecycle` `closing`; the host may tear the surface down now.", emptyBridgeBody(), emptyBridgeBody()),

  // App → host: session data (spec 6.3)
  "session_data.get": method("session_data.get", "to_host", "Reads this app session's data; empty is `{ data: null, revision: 0 }`.", emptyBridgeBody(), BridgeSessionDataSnapshotSchema),
  "session_data.replace": method("session_data.replace", "to_host", "Replaces the data if `expected_revision` is current (else `revision_conflict`); returns the new revision.", BridgeSessionDataReplaceParamsSchema, BridgeSessionDataReplaceResultSchema),
  "session_data.subscribe": method("session_data.subscribe", "to_host", "Starts `session_data.changed` events; the result is the full snapshot at registration, later events have strictly greater revisions.", emptyBridgeBody(), BridgeSessionDataSnapshotSchema),
  "session_data.unsubscribe": method("session_data.unsubscribe", "to_host", "Stops `session_data.changed` events.", emptyBridgeBody(), emptyBridgeBody()),

  // App → host: agent messages (spec 5.4)
  "agent_message.subscribe": method("agent_message.subscribe", "to_host", "Starts `agent.message` events, filtered by the manifest's subscriptions ∩ `types`.", BridgeAgentMessageSubscribeParamsSchema, emptyBridgeBody()),
  "agent_message.unsubscribe": method("agent_message.unsubscribe", "to_host", "Stops `agent.message` events; undelivered messages stay in the app's inbox.", emptyBridgeBody(), emptyBridgeBody()),
  "agent_message.list": method("agent_message.list", "to_host", "One page of the stored messages this instance may see, oldest first (spec 5.4 `list()`).", BridgeAgentMessageListParamsSchema, BridgeAgentMessageListResultSchema),
  "agent_message.ack": method("agent_message.ack", "to_host", "Acknowledges a delivered message (`agent.message` with `requires_ack`, or `state.patch`); it leaves the inbox.", BridgeAgentMessageAckParamsSchema, emptyBridgeBody()),

  // App → host: tools (spec 6.2, 7.3)
  "tool.progress": method("tool.progress", "to_host", "Reports progress of a call the app answered `pending`.", BridgeToolProgressParamsSchema, emptyBridgeBody()),
  "tool.complete": method("tool.complete", "to_host", "The one terminal result of a pending call; the Runtime checks it against the tool's output schema.", BridgeToolCompleteParamsSchema, emptyBridgeBody()),
  "tool.fail": method("tool.fail", "to_host", "The one terminal failure of a pending call.", BridgeToolFailParamsSchema, emptyBridgeBody()),

  // App → host: the agent's turn (the person's Stop, in the app)
  "agent.cancel_turn": method("agent.cancel_turn", "to_host", "Stops the agent's turn in this instance's conversation (the person pressed Stop in the app): the running turn, else the one waiting first. Only an instance in the foreground may; nothing to stop is `invalid_state`. The result is the Stop's receipt.", emptyBridgeBody(), BridgeAgentCancelTurnResultSchema),

  // App → host: the app's agent tasks (docs/protocol.md "In-app agent tasks"; feature app.agent-task.v1)
  "agent.start_task": method("agent.start_task", "to_host", "Asks the agent of this instance's conversation for a task the manifest's `agent_tasks` declares; the result is the task (the same one again for the same `idempotency_key` and request). Its events follow as `agent.task_event`.", BridgeAgentStartTaskParamsSchema, BridgeAgentTaskResultSchema),
  "agent.tasks": method("agent.tasks", "to_host", "This app's tasks, newest first, kept across reloads and restarts.", emptyBridgeBody(), BridgeAgentTasksResultSchema),
  "agent.task_events": method("agent.task_events", "to_host", "One of this app's tasks as it now is, and its events after `after` in index order, at most `limit` (default 200); another app's task is `not_found`.", BridgeAgentTaskEventsParamsSchema, BridgeAgentTaskEventsResultSchema),
  "agent.task_control": method("agent.task_control", "to_host", "Cancels, retries, resubmits, accepts or rejects one of this app's tasks; the result is the task after it. A control its status does not allow is `invalid_state`.", BridgeAgentTaskControlParamsSchema, BridgeAgentTaskResultSchema),
  "evidence.export": method("evidence.export", "to_host", "Exports the evidence pack of one of this app's tasks, or without `task_id` of this instance's conversation, through the AppServer (online only): the pack is stored as an artifact of the conversation.", BridgeEvidenceExportParamsSchema, BridgeEvidenceExportResultSchema),

  // App → host: the app's own storage and back-ends (features app.storage.v1, app.backend.v1)
  "storage.get": method("storage.get", "to_host", "One record of a collection the manifest declares, with its provenance; `record: null` when there is none.", BridgeStorageKeyParamsSchema, BridgeStorageGetResultSchema),
  "storage.list": method("storage.list", "to_host", "Records of a declared collection in key order (a prefix or bounds, `limit` default 100, `reverse`).", BridgeStorageListParamsSchema, BridgeStorageListResultSchema),
  "storage.put": method("storage.put", "to_host", "Writes one record (checked against the collection's value schema and the app's quota); the result is the usage after it.", BridgeStoragePutParamsSchema, BridgeStorageUsageSchema),
  "storage.delete": method("storage.delete", "to_host", "Deletes one record; the result is the usage after it.", BridgeStorageKeyParamsSchema, BridgeStorageUsageSchema),
  "storage.batch": method("storage.batch", "to_host", "Writes and deletes up to 500 records in one transaction: all of them or none.", BridgeStorageBatchParamsSchema, BridgeStorageUsageSchema),
  "storage.usage": method("storage.usage", "to_host", "How much of its quota the app's storage uses, and its schema version.", emptyBridgeBody(), BridgeStorageUsageSchema),
  "backend.call": method("backend.call", "to_host", "Calls a method of one of the app's declared back-ends, which the host starts and supervises; the back-end's failures keep their codes.", BridgeBackendCallParamsSchema, BridgeBackendCallResultSchema),

  // App → host: the app's workflows (feature app.workflow.v1)
  "workflow.start": method("workflow.start", "to_host", "Starts a durable run of a workflow the manifest declares, in this instance's conversation; the same `idempotency_key` and input return the same run. Its changes follow as `workflow.changed`.", BridgeWorkflowStartParamsSchema, BridgeWorkflowRunResultSchema),
  "workflow.runs": method("workflow.runs", "to_host", "This app's workflow runs, newest first, kept across reloads and restarts.", emptyBridgeBody(), BridgeWorkflowRunsResultSchema),
  "workflow.trace": method("workflow.trace", "to_host", "One of this app's runs as it now is, and its trace entries after `after` (default limit 200).", BridgeWorkflowTraceParamsSchema, BridgeWorkflowTraceResultSchema),
  "workflow.control": method("workflow.control", "to_host", "Cancels one of this app's runs, or answers the confirm step it waits on; `invalid_state` when it has ended or waits on nothing.", BridgeWorkflowControlParamsSchema, BridgeWorkflowRunResultSchema),
  "workflow.evidence": method("workflow.evidence", "to_host", "Stores a run's evidence pack (who ran what, its whole trace, their SHA-256) as an artifact of the app and of the run's conversation.", BridgeWorkflowEvidenceParamsSchema, BridgeWorkflowEvidenceResultSchema),

  // App → host: capabilities, artifacts, events, navigation, layout
  "capability.request": method("capability.request", "to_host", "Asks the capability gateway for a system capability with a purpose; the result is `completed` or one of the controlled refusals.", BridgeCapabilityRequestParamsSchema, BridgeCapabilityResultSchema),
  "artifact.create": method("artifact.create", "to_host", "Stores content as an artifact of this conversation.", BridgeArtifactCreateParamsSchema, BridgeArtifactCreateResultSchema),
  "artifact.read": method("artifact.read", "to_host", "Reads an artifact this app may see, up to `max_bytes`.", BridgeArtifactReadParamsSchema, BridgeArtifactReadResultSchema),
  "artifact.get": method("artifact.get", "to_host", "What an artifact this app may see is, without its bytes: reference, origin, time, whether it is on the device.", BridgeArtifactGetParamsSchema, BridgeArtifactInfoSchema),
  "artifact.list": method("artifact.list", "to_host", "The artifacts of the instance's conversation (the app's own without one), oldest first, the newest `limit` (default 200).", BridgeArtifactListParamsSchema, BridgeArtifactListResultSchema),
  "artifact.save": method("artifact.save", "to_host", "Saves an artifact this app may see to the person's files through the host (`file.save`, which the manifest declares); the result is the capability's.", BridgeArtifactSaveParamsSchema, BridgeCapabilityResultSchema),
  "event.emit": method("event.emit", "to_host", "Emits an event the app's manifest declares; the Runtime forwards it as `lineup.app.event`.", BridgeEventEmitParamsSchema, emptyBridgeBody()),
  "app.launch": method("app.launch", "to_host", "Asks the Runtime to open another app (enabled state, entrypoint, display mode and scope are checked there).", BridgeAppLaunchParamsSchema, BridgeAppLaunchResultSchema),
  "app.close": method("app.close", "to_host", "Asks the Runtime to close this instance (or one it launched); any other is `not_owner`.", BridgeAppCloseParamsSchema, emptyBridgeBody()),
  "app.focus": method("app.focus", "to_host", "Asks the Runtime to bring one of this app's instances, or one it launched, to the front; any other is `not_owner`.", BridgeAppFocusParamsSchema, emptyBridgeBody()),
  "app.list": method("app.list", "to_host", "The enabled apps a person could open, with their entrypoints and which is the default (spec 6.2 `listAvailable`).", emptyBridgeBody(), BridgeAppListResultSchema),
  "app.open_default": method("app.open_default", "to_host", "Opens the default app: its running instance comes to the front, else it starts.", emptyBridgeBody(), BridgeAppOpenDefaultResultSchema),
  "operation.interrupt": method("operation.interrupt", "to_host", "Interrupts this app's Runtime-owned operations in the instance's conversation (the user stopped them); the Runtime sends each call its one `interrupted` result.", BridgeOperationInterruptParamsSchema, emptyBridgeBody()),
  "launcher.open": method("launcher.open", "to_host", "The person pressed the launcher's shortcut (Ctrl/⌘+K) inside the app: the host opens its launcher, only while the app's frame holds the focus. The one host action an app may ask for.", emptyBridgeBody(), emptyBridgeBody()),
  "surface.resize": method("surface.resize", "to_host", "The height the content wants; the host may clamp it.", BridgeSurfaceResizeParamsSchema, emptyBridgeBody()),
} as const satisfies Record<string, BridgeMethodSpec>));

export const BRIDGE_EVENTS = /* @__PURE__ */ declared(() => ({
  "agent.task_event": event("agent.task_event", "to_app", "A new event of one of the app's agent tasks, with the task as it now is: sent to every live surface of the app, once per event. An app that reads a task's events (`agent.task_events`) meanwhile drops the indexes it already has.", BridgeAgentTaskEventSchema),
  "workflow.changed": event("workflow.changed", "to_app", "One of the app's workflow runs changed (a step started, ended, waits for the person; the run ended), with the trace entries the change added: sent to every live surface of the app.", BridgeWorkflowChangedEventSchema),
  "host.snapshot": event("host.snapshot", "to_app", "The first frame on the port: who the app is, where it runs, theme, locale, workspace, display mode and capabilities.", BridgeHostSnapshotSchema),
  lifecycle: event("lifecycle", "to_app", "A lifecycle transition: start, foreground, background, suspend, restore, or closing with a flush deadline.", BridgeLifecycleEventSchema),
  "theme.changed": event("theme.changed", "to_app", "The theme changed.", BridgeThemeChangedEventSchema),
  "capabilities.changed": event("capabilities.changed", "to_app", "The snapshot's capability summary changed (a decision in Settings, the host, policy): which declared capabilities are available, why the others are not, and which are allowed for good.", BridgeCapabilitiesChangedEventSchema),
  "locale.changed": event("locale.changed", "to_app", "The locale or time zone changed.", BridgeLocaleChangedEventSchema),
  "display_mode.changed": event("display_mode.changed", "to_app", "The surface moved to foreground, picture-in-picture or an inline card.", BridgeDisplayModeChangedEventSchema),
  "session_data.changed": event("session_data.changed", "to_app", "A newer session data revision (after `session_data.subscribe`).", BridgeSessionDataSnapshotSchema),
  "state.patch": event("state.patch", "to_app", "A state patch for this instance; acknowledge it with `agent_message.ack`.", BridgeStatePatchEventSchema),
  "agent.message": event("agent.message", "to_app", "A projected agent message the app subscribed to.", BridgeAgentMessageEventSchema),
  "tool.cancelled": event("tool.cancelled", "to_app", "The agent cancelled a call the app is still working on; the app stops and answers nothing more.", BridgeToolCancelledEventSchema),
} as const satisfies Record<string, BridgeEventSpec>));

export type BridgeMethodName = keyof typeof BRIDGE_METHODS;
export type BridgeEventName = keyof typeof BRIDGE_EVENTS;
export type BridgeParams<M extends BridgeMethodName> = Static<(typeof BRIDGE_METHODS)[M]["params"]>;
export type BridgeResult<M extends BridgeMethodName> = Static<(typeof BRIDGE_METHODS)[M]["result"]>;
export type BridgeEventData<N extends BridgeEventName> = Static<(typeof BRIDGE_EVENTS)[N]["data"]>;

export function isBridgeMethod(value: unknown): value is BridgeMethodName {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(BRIDGE_METHODS, value);
}

export function isBridgeEvent(value: unknown): value is BridgeEventName {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(BRIDGE_EVENTS, value);
}

/** Every schema the bridge declares, for the validator generator. */
export const SURFACE_BRIDGE_SCHEMAS: readonly TSchema[] = /* @__PURE__ */ declared(() => [
  BridgeWorkflowRunSchema,
  BridgeWorkflowTraceEntrySchema,
  BridgeRequestFrameSchema,
  BridgeResponseFrameSchema,
  BridgeEventFrameSchema,
  ...Object.values(BRIDGE_METHODS).flatMap((m): TSchema[] => [m.params, m.result]),
  ...Object.values(BRIDGE_EVENTS).map((e): TSchema => e.data),
]);

/**
 * What an app's page checks, of what the host sends it: the three frames and the params of the
 * host's requests (the app acts on those). Results and event data come from the host, which checks
 * everything an app sends it; the page does not carry their validators (`decodeBridgeMessageInApp`).
 */
export const BRIDGE_APP_SIDE_SCHEMA_IDS: ReadonlySet<string> = /* @__PURE__ */ declared(() => new Set([
  BridgeRequestFrameSchema.$id!,
  BridgeResponseFrameSchema.$id!,
  BridgeEventFrameSchema.$id!,
  ...Object.values(BRIDGE_METHODS)
    .filter((m) => m.direction === "to_app")
    .map((m) => m.params.$id!),
]));

/**
 * What the host checks, of what an app sends it (besides the frames): the params of the app's
 * requests and the app's answers to the host's requests (`decodeBridgeMessageInHost`). The bodies
 * the host itself writes (its results, its events' data) are checked only by `decodeBridgeMessage`.
 */
export const BRIDGE_HOST_SIDE_SCHEMA_IDS: ReadonlySet<string> = /* @__PURE__ */ declared(() => new Set(
  Object.values(BRIDGE_METHODS).map((m) => (m.direction === "to_host" ? m.params.$id! : m.result.$id!)),
));
