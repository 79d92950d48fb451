// The platform-neutral entry: no DOM, no `node:*`. Adapters for a platform live at
// `@lineup/runtime/node` and `@lineup/runtime/browser`.
export {
  StoreError,
  isStoreError,
  type StoreErrorCode,
  type JsonValue,
  type JsonObject,
  type StoreKey,
  type StoreValue,
  type StoreWrite,
  type KeyRange,
  type RangeQuery,
  type StoreEntry,
  type StoreKeyRef,
  type RuntimeStore,
} from "./persistence/store.js";
export { MAX_KEY_LENGTH, isValidKey } from "./persistence/keys.js";
export type { StoreSchema, Migration, MigrationContext, MigrationResult } from "./persistence/schema.js";
export {
  createMemoryStore,
  createMemoryStoreData,
  type MemoryStoreData,
  type MemoryStoreOptions,
} from "./persistence/memory-store.js";
export { withFaults, type FaultPlan, type FaultyStore, type InjectedFaultCode } from "./persistence/faulty-store.js";

// The Runtime core (issue 4).
export { createRuntime, toView, type LineUpRuntime, type RuntimeOptions, type AppPort, type RuntimeView, type ConversationSummary, type ConversationStatus, type FailedAction } from "./runtime.js";
export type { Clock, IdSource } from "./core/ports.js";
export { systemClock, createSystemIds } from "./core/system.js";
export { Emitter, ignoreDiagnostics, logRuntimeDiagnostics, type Unsubscribe, type DiagnosticsSink } from "./core/emitter.js";
export type { Transport, TransportConnection, TransportClose } from "./communication/transport.js";
export { createRpcClient, type RpcClient, type RpcClientOptions, type RequestOptions } from "./communication/rpc-client.js";
export { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from "./communication/backoff.js";
export { createRuntimeCatalog, type RuntimeCatalog, type CatalogRequest } from "./communication/catalog.js";
export { nextSendable, OUTBOX_MAX_IN_FLIGHT, OUTBOX_PIPELINE_DEPTH, TRANSIENT_CODES, type SendState, type OutboxEntry, type OutboxMethod, type CommandReceipt } from "./communication/outbox.js";
export { SUBSCRIPTIONS_CATCHING_UP } from "./communication/sync-driver.js";
export { LIFECYCLE_TRANSITIONS, isLegalTransition, type Lifecycle, type LifecycleStatus, type LifecycleObservable } from "./coordination/lifecycle.js";
export { filterEvent, type FilterOutcome, type FilterContext } from "./coordination/filter-chain.js";
export { transition, readsFor, type TransitionEnv } from "./coordination/transition.js";
export { createRuntimeLoop, type RuntimeLoop, type RuntimeLoopOptions } from "./coordination/loop.js";
export { verifyAuditChain, chainAudit, sha256Hex, type AuditRecord, type AuditVerdict, type AuditHead } from "./coordination/audit.js";
export type { MessageHandler, SubscribeOptions } from "./coordination/delivery.js";
export type { AppAction, InteractionAnswer, StartConversationRequest, RuntimeInput, Effect, Delivery, AuditDraft } from "./coordination/inputs.js";
export { TOOL_CALL_RETENTION_MS } from "./coordination/restore.js";
export { freshAppsState, type RuntimeState, type Conversation, type Following } from "./coordination/state.js";
export { CORE_MANIFESTS, CORE_SUBSCRIPTIONS } from "./app-lifecycle/core-manifests.js";
export { appDirectoryOf } from "./coordination/app-directory.js";
export type { ToolHub, DeliveredToolCall, ToolCallHandler } from "./coordination/tool-hub.js";
export type { AppManagerRequest, InstanceRequest, ToolReport, SettingsChange } from "./coordination/inputs.js";
export type { AppSessionData, AppSummary, ResultCard, CapabilitySummary } from "./runtime.js";
export type { ArtifactInfo, ArtifactRead } from "./coordination/artifact-access.js";
export * from "./app-lifecycle/app-manager-api.js";
export type { HostIntentOutcome } from "./app-lifecycle/host-intents.js";
export { CoreAppRegistry, CHAT_APP_SCOPE, CHAT_MESSAGE_TYPES, CHAT_CARD_TYPES, type AppDirectory, type AppRecord, type AppSubscription } from "./app-lifecycle/core-app-registry.js";
export { NO_INSTANCES, type InstanceDirectory } from "./app-lifecycle/instance-directory.js";
export { RUNTIME_SCHEMA, RUNTIME_COLLECTIONS } from "./persistence/runtime-schema.js";
export { listPendingMessageIds, type AgentAppMessage, type RecordedAnswer } from "./persistence/inbox.js";
export { chunkKey, chunkOf, CHUNK_SEQS, DEDUP_CHUNKS, type LogChunk, type UnseenMarks } from "./persistence/log-chunks.js";
export { listHistory, type AgentMessagePage, type HistoryRequest } from "./persistence/history.js";
export * from "./app-lifecycle/bundle/index.js";
export * from "./app-lifecycle/manager/index.js";
export * from "./app-lifecycle/instances/index.js";
export * from "./tools/index.js";
export * from "./capabilities/index.js";
export * from "./session-data/index.js";
export { createMemoryAppStorageHost, type AppStorageHost, type AppStoreName } from "./app-storage/host.js";
export { createAppStorageService, APP_STORE_META, type AppStorageApi, type AppStorageRecord, type AppStorageUsage, type AppStorageWrite, type AppStorageListQuery, type RecordProvenance, type AppStorageService } from "./app-storage/service.js";
export { createBackendService, remoteHttpRunners, type BackendRunners, type BackendRunnerFactory, type BackendService } from "./backends/service.js";
export { createRemoteHttpRunner, type RemoteHttpOptions } from "./backends/remote-http.js";
export * from "./backends/runner.js";
export { mcpViewOf, mcpViewOrigins, MCP_APP_MIME_TYPE, MAX_MCP_VIEW_BYTES, type McpView, type McpViewOrigins } from "./backends/mcp-view.js";
export { manifestFromMcp, mcpOutputSchema, mcpToolViewUri, MCP_BACKEND_ID, type McpManifestRequest, type McpToolInfo } from "./backends/mcp-manifest.js";
export { storageCall } from "./app-services.js";
export * from "./workflows/run.js";
export { resolveTemplate, templateRefs, pointerTarget, type TemplateDocument } from "./workflows/template.js";
export { createWorkflowShell, type WorkflowShell, type WorkflowStepExecutor } from "./workflows/shell.js";
