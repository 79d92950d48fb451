/**
 * The Runtime's store layout: its collections, their key shapes, and the named migrations that bring a
 * device's store to it. Keys are printable ASCII; numbers in keys are zero-padded so key order is
 * numeric order.
 *
 * | collection      | key                                  | value |
 * | ---             | ---                                  | ---   |
 * | `meta`          | `runtime` / `identity`               | the Runtime's own id; the last identity the server gave |
 * | `sessions`      | `<conversation_id>`                  | a followed conversation (server Session record or a local start) |
 * | `cursors`       | `<conversation_id>`                  | `{ seq, open_turns?, active_at? }`: the last applied event of the session's log, the turns open at it, and when something was last said in it (the log's or the session list's time, the later) |
 * | `envelope-ids`  | `<conversation_id>/<envelope id>`    | layout 0002 only: emptied into `log-chunks` by 0003 |
 * | `log-chunks`    | `<conversation_id>/<chunk>`          | a LogChunk (`log-chunks.ts`): the envelope ids applied at 64 seqs |
 * | `inbox-unseen`  | `<conversation_id>/<chunk>`          | UnseenMarks: per app, its display messages of those 64 seqs not yet delivered (only rows with a mark) |
 * | `inbox`         | `<app_scope>/<conversation_id>/<seq>`| an AgentAppMessage (history) |
 * | `inbox-pending` | `<app_scope>/<conversation_id>/<seq>`| `{ message_id }`: an explicit-ack message not yet acknowledged |
 * | `answers`       | `<conversation_id>/action:<action_id>` or `<conversation_id>/interaction:<interaction_id>` | a CardAnswer: how an interaction card was answered |
 * | `outbox`        | `<order>`                            | an OutboxEntry (pending or failed) |
 * | `audit`         | `<index>`                            | a hash-chained AuditRecord |
 * | `apps`          | `<app_scope>`                        | a ManagedApp: record, retained versions, pending update |
 * | `bundles`       | `<bundle digest>`                    | the verified bundle archive (bytes) of a retained or pending version |
 * | `instances`     | `snapshot`                           | live instances and the focus stack |
 * | `tool-calls`    | `<call_id>`                          | a CallRecord: the call's phase and every output sent for it, with its envelope id and idempotency key (the replay log; finished ones deleted at start after 7 days, `TOOL_CALL_RETENTION_MS`) |
 * | `inventory`     | `<conversation_id>`                  | `{ agent_id, revision, fingerprint, publication? }`: the last published inventory (`publication`: a SHA-256 of what was sent) |
 * | `session-data`  | `<app_scope>/<app_session_id>`       | a MiniApp session's data and revision |
 * | `settings`      | `trusted-publishers` / `grants` / `language` / `view-grant/<app_scope>/<ui uri>` | publisher keys this Runtime trusts; remembered capability decisions; the person's UI language; the origins a person granted an MCP Apps view |
 * | `artifacts`     | `<artifact_id>`                      | a StoredArtifact: its ArtifactRef, the app that made it, its conversation |
 * | `artifact-data` | `<artifact_id>`                      | the artifact's bytes |
 * | `conversation-artifacts` | `<conversation_id>/<artifact_id>` | a ConversationArtifact: an artifact shared in the conversation (by the agent or a device), its bytes here or not |
 * | `result-cards`  | `<call_id>`                          | a ResultCard: the app's session data when the call's result was recorded (spec 6.3 inline card) |
 * | `tasks`         | `<task_id>`                          | a TaskRecord (`tasks/records.ts`): an app's agent task, its status, attempts, result and decision |
 * | `task-events`   | `<task_id>/<index>`                  | one AgentTaskEvent of that task, numbered from 1 |
 * | `workflow-runs` | `<run_id>`                           | a WorkflowRun (`workflows/run.ts`) |
 * | `workflow-trace` | `<run_id>/<index>`                  | its numbered trace entries |
 *
 * `meta` also holds `default-app`, `tool-activations` (the calls waiting for an app to start),
 * `kept-artifacts` (the conversation artifacts kept after a read from the AppServer, oldest first, with sizes),
 * `shipped-publishers` (the ids of the publisher keys the host shipped that this store has seen)
 * and `release-artifacts/<app_scope>` (a removed app whose own artifacts are still to be released).
 */
import { INBOX_UNSEEN, LOG_CHUNKS } from "./log-chunks.js";
import { migrateToLogChunks, splitUnseenMarks } from "./log-chunks-migration.js";
import { CONVERSATION_ARTIFACTS, indexConversationArtifacts } from "./conversation-artifacts.js";
import type { StoreSchema } from "./schema.js";

export const RUNTIME_COLLECTIONS = {
  meta: "meta",
  sessions: "sessions",
  cursors: "cursors",
  envelopeIds: "envelope-ids",
  logChunks: LOG_CHUNKS,
  inboxUnseen: INBOX_UNSEEN,
  inbox: "inbox",
  inboxPending: "inbox-pending",
  answers: "answers",
  outbox: "outbox",
  audit: "audit",
  apps: "apps",
  bundles: "bundles",
  instances: "instances",
  toolCalls: "tool-calls",
  inventory: "inventory",
  sessionData: "session-data",
  settings: "settings",
  artifacts: "artifacts",
  artifactData: "artifact-data",
  resultCards: "result-cards",
  conversationArtifacts: CONVERSATION_ARTIFACTS,
  tasks: "tasks",
  taskEvents: "task-events",
  workflowRuns: "workflow-runs",
  workflowTrace: "workflow-trace",
} as const;

export const RUNTIME_SCHEMA: StoreSchema = {
  collections: Object.values(RUNTIME_COLLECTIONS),
  migrations: [
    // The first layout needs no data change: the step exists so that later layouts append after it.
    { name: "0001-runtime-core", run: () => ({ ok: true }) },
    // Apps, bundles, instances, tool calls, inventory, session data and settings: new collections, no data change.
    { name: "0002-apps-and-tools", run: () => ({ ok: true }) },
    // Envelope ids and the pending marks of display messages move from a row each into log chunks.
    { name: "0003-log-chunks", run: migrateToLogChunks },
    // Pending marks of display messages leave the log chunks for rows of their own (a restart reads only those).
    { name: "0004-inbox-unseen", run: splitUnseenMarks },
    // Each conversation's shared artifacts get an index of their own, filled from the artifact messages already stored.
    { name: "0005-conversation-artifacts", run: indexConversationArtifacts },
    // Apps' agent tasks and their events: new collections, no data change.
    { name: "0006-agent-tasks", run: () => ({ ok: true }) },
    // Apps' workflow runs and their traces: new collections, no data change.
    { name: "0007-workflows", run: () => ({ ok: true }) },
  ],
  // What the restore (coordination/restore.ts) reads whole, or by a few keys, as the Runtime starts; of the audit chain
  // it reads the last record only.
  readAhead: [
    RUNTIME_COLLECTIONS.meta,
    RUNTIME_COLLECTIONS.settings,
    RUNTIME_COLLECTIONS.outbox,
    RUNTIME_COLLECTIONS.apps,
    RUNTIME_COLLECTIONS.instances,
    RUNTIME_COLLECTIONS.inboxUnseen,
    RUNTIME_COLLECTIONS.inboxPending,
    RUNTIME_COLLECTIONS.sessions,
    RUNTIME_COLLECTIONS.cursors,
    RUNTIME_COLLECTIONS.toolCalls,
    RUNTIME_COLLECTIONS.inventory,
    RUNTIME_COLLECTIONS.tasks,
    RUNTIME_COLLECTIONS.workflowRuns,
  ],
  readAheadLast: [RUNTIME_COLLECTIONS.audit],
};

export { padNumber } from "./keys.js";
