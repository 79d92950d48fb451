/**
 * Restoring (spec 3.3): the Runtime's state comes back from the store — its id, the last identity, the
 * followed conversations with their cursors, the outbox, unread counts and the audit head. Inbox messages
 * and history stay in the store (paged on demand).
 */
import type { IdSource } from "../core/ports.js";
import { CHAT_APP_SCOPE } from "../app-lifecycle/core-app-registry.js";
import { parseInboxKey } from "../persistence/inbox.js";
import { asMarks, marksOf, marksWrite, parseChunkKey, unseenOf } from "../persistence/log-chunks.js";
import { RUNTIME_COLLECTIONS as C } from "../persistence/runtime-schema.js";
import type { RuntimeStore, StoreWrite } from "../persistence/store.js";
import type { OutboxEntry } from "../communication/outbox.js";
import { PersistentMap } from "../core/persistent-map.js";
import { readAuditHead, type AuditHead } from "./audit.js";
import { compareSessionStarts, type AppManifest } from "@lineup/protocol";
import type { CapabilityGrant, TrustedPublisher } from "../app-lifecycle/app-manager-api.js";
import { restoreInstances, type InstancesSnapshot } from "../app-lifecycle/instances/snapshot.js";
import { EMPTY_INSTANCES } from "../app-lifecycle/instances/state.js";
import { pruneFinishedInstances } from "../app-lifecycle/instances/transitions.js";
import { createAppRegistryState, type AppRegistryState, type ManagedApp } from "../app-lifecycle/manager/records.js";
import type { CallRecord, ToolCallsState } from "../tools/call-state.js";
import { inventorySessionKey, type PublishedRevision } from "../tools/inventory.js";
import { appDirectoryOf } from "./app-directory.js";
import { EMPTY_CAPABILITIES } from "../capabilities/loop-state.js";
import type { Conversation, Identity, RuntimeState } from "./state.js";
import { tasksStateOf, type TaskRecord } from "../tasks/records.js";
import type { WorkflowRun } from "../workflows/run.js";
import { RELEASE_MARKER_PREFIX } from "./handlers/artifacts.js";

/** How long a finished call's record is kept to answer a repeated call_id with its stored outputs. */
export const TOOL_CALL_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export interface RestoreOptions {
  /** The core apps' manifests: every store starts with them installed and enabled. */
  readonly coreManifests: readonly AppManifest[];
  /** The clock's reading at restore (install times of core apps, instance restore times). */
  readonly now: number;
}

/** The reads of a store that holds nothing (`RuntimeStore.isNew`), answered without asking it. */
const NOTHING_STORED: Pick<RuntimeStore, "get" | "getMany" | "range"> = {
  get: () => Promise.resolve(undefined),
  getMany: (keys) => Promise.resolve(keys.map(() => undefined)),
  range: () => Promise.resolve([]),
};

/**
 * The state the Runtime starts from, read from `store` in one round. `shippedPublishers`: the ids of the publisher
 * keys the host shipped that this store has seen (`RuntimeApps.trustShippedKeys` compares the host's keys with them).
 * `releasing`: the apps whose removal a crash interrupted before their artifacts were released (their markers).
 */
export async function restoreState(
  store: RuntimeStore,
  ids: IdSource,
  options: RestoreOptions,
): Promise<{ state: RuntimeState; auditHead: AuditHead; shippedPublishers: readonly string[]; releasing: readonly string[] }> {
  // A new store (a new profile's first start) holds nothing: its reads are not made.
  const reads = store.isNew?.() === true ? NOTHING_STORED : store;
  // No read depends on another and nothing else writes yet: they all go out at once, so a store whose reads
  // are round trips (IndexedDB: a transaction and an IPC each) answers them in about the time of one.
  const [
    [storedRuntime, storedIdentity, storedDefaultApp, storedActivations, storedShipped],
    [storedTrusted, storedGrants, language],
    outboxRows,
    appRows,
    snapshot,
    unseenRows,
    pendingRows,
    sessionRows,
    cursorRows,
    callRows,
    inventoryRows,
    taskRows,
    workflowRows,
    releaseMarkers,
    auditHead,
  ] = await Promise.all([
    reads.getMany(["runtime", "identity", "default-app", "tool-activations", "shipped-publishers"].map((key) => ({ collection: C.meta, key }))),
    reads.getMany(["trusted-publishers", "grants", "language"].map((key) => ({ collection: C.settings, key }))),
    reads.range(C.outbox),
    reads.range(C.apps),
    reads.get(C.instances, "snapshot") as Promise<InstancesSnapshot | undefined>,
    reads.range(C.inboxUnseen),
    reads.range(C.inboxPending),
    reads.range(C.sessions),
    reads.range(C.cursors),
    reads.range(C.toolCalls),
    reads.range(C.inventory),
    reads.range(C.tasks),
    reads.range(C.workflowRuns),
    reads.range(C.meta, { prefix: RELEASE_MARKER_PREFIX }),
    readAuditHead(reads),
  ]);
  // What restoring writes (a new store's id, marks of removed apps, expired calls) is one commit.
  const writes: StoreWrite[] = [];
  let runtimeId = (storedRuntime as { runtime_id?: string } | undefined)?.runtime_id;
  if (runtimeId === undefined) {
    runtimeId = ids.next("rt");
    writes.push({ op: "put", collection: C.meta, key: "runtime", value: { runtime_id: runtimeId } });
  }
  const identity = (storedIdentity as Identity | undefined) ?? {};

  const outbox = new Map<number, OutboxEntry>();
  for (const { value } of outboxRows) {
    const entry = value as unknown as OutboxEntry;
    outbox.set(entry.order, entry);
  }
  const lastOrder = Math.max(-1, ...outbox.keys());

  // The App Manager's records: the core apps as shipped, then every stored app over them.
  const core = createAppRegistryState(options.coreManifests, options.now);
  const stored: Record<string, ManagedApp> = {};
  for (const { key, value } of appRows) stored[key] = value as unknown as ManagedApp;
  const defaultApp = (storedDefaultApp as { app_scope?: string } | undefined)?.app_scope;
  const apps: AppRegistryState = {
    apps: { ...core.apps, ...Object.fromEntries(Object.entries(stored).filter(([scope]) => core.apps[scope] === undefined || stored[scope]!.record.kind === "core")) },
    default_app: defaultApp ?? core.default_app,
  };
  const directory = appDirectoryOf(apps);
  const instances = snapshot === undefined ? EMPTY_INSTANCES : restoreInstances(snapshot, options.now, (i) => directory.get(i.app_scope)?.enabled === true).state;

  // Chat's unread count per conversation: its explicit-ack rows plus its unseen display marks. Marks of an
  // app that is no longer installed (removed since they were written) go now.
  const unseenChat = new Map<string, number>();
  // Only chunks with a mark have a row: this reads what is pending, not the history.
  for (const { key, value } of unseenRows) {
    const parsed = parseChunkKey(key);
    if (parsed === undefined) continue;
    const marks = asMarks(value);
    const kept = marksOf(marks, (scope) => apps.apps[scope] !== undefined);
    if (kept !== marks) writes.push(marksWrite(key, kept));
    unseenChat.set(parsed.conversation_id, (unseenChat.get(parsed.conversation_id) ?? 0) + unseenOf(marks, CHAT_APP_SCOPE).length);
  }
  // Each app's backlog of explicit-ack messages per conversation (backlog.ts): one read of the pending
  // rows, which that bound keeps small. Keys are `<app>/<conversation>/<seq>`.
  const pending = new Map<string, Record<string, number>>();
  for (const { key } of pendingRows) {
    const parsed = parseInboxKey(key);
    if (parsed === undefined) continue;
    const counts = pending.get(parsed.conversation_id) ?? (Object.create(null) as Record<string, number>);
    counts[parsed.app_scope] = (counts[parsed.app_scope] ?? 0) + 1;
    pending.set(parsed.conversation_id, counts);
  }
  const cursors = new Map(cursorRows.map(({ key, value }) => [key, value as { seq?: number; open_turns?: Conversation["open_turns"]; active_at?: unknown }]));
  const conversations = new Map<string, Conversation>();
  // In the order they were started (the store gives them by key), as a listing adds them.
  const started = (row: (typeof sessionRows)[number]): string | undefined => (row.value as { created_at?: string }).created_at;
  const byStart = [...sessionRows].sort((a, b) => compareSessionStarts(started(a), a.key, started(b), b.key));
  for (const { key, value } of byStart) {
    const record = value as unknown as Omit<Conversation, "cursor" | "following" | "unread" | "pending" | "open_turns" | "active_at">;
    const at = cursors.get(key);
    const cursor = at?.seq ?? 0;
    const counts = pending.get(key);
    const unread = (counts?.[CHAT_APP_SCOPE] ?? 0) + (unseenChat.get(key) ?? 0);
    conversations.set(key, {
      ...record,
      cursor,
      following: { status: "idle" },
      unread,
      ...(counts === undefined ? {} : { pending: counts }),
      ...(at?.open_turns === undefined || at.open_turns.length === 0 ? {} : { open_turns: at.open_turns }),
      ...(typeof at?.active_at === "string" ? { active_at: at.active_at } : {}),
    });
  }

  const calls: Record<string, CallRecord> = {};
  // Finished calls stay in the store (the replay log) for TOOL_CALL_RETENTION_MS, then go; only unfinished
  // ones come back into the state.
  for (const { key, value } of callRows) {
    const call = value as unknown as CallRecord;
    if (call.phase !== "terminal") calls[key] = call;
    else if (call.received_at < options.now - TOOL_CALL_RETENTION_MS) writes.push({ op: "delete", collection: C.toolCalls, key });
  }
  if (writes.length > 0) await store.commit(writes);
  const activations = (storedActivations ?? {}) as unknown as ToolCallsState["activations"];

  const sessions = PersistentMap.of(
    inventoryRows.map(({ key, value }) => {
      const { agent_id: agentId, ...record } = value as unknown as PublishedRevision & { agent_id: string };
      return [inventorySessionKey(agentId, key), record as PublishedRevision] as const;
    }),
  );
  // Apps' agent tasks: every record (their events stay in the store, read in pages).
  const tasks = tasksStateOf(taskRows.map(({ value }) => value as unknown as TaskRecord));
  const trusted = (storedTrusted ?? []) as unknown as TrustedPublisher[];
  const grants = (storedGrants ?? []) as unknown as CapabilityGrant[];

  return {
    state: {
      lifecycle: { status: "restoring" },
      runtime_id: runtimeId,
      identity,
      conversations: PersistentMap.of(conversations),
      outbox: PersistentMap.of(outbox),
      next_outbox_order: lastOrder + 1,
      apps,
      instances: pruneFinishedInstances(instances),
      tools: { calls, activations },
      inventory: { sessions },
      trusted_publishers: trusted,
      grants,
      language: typeof language === "string" ? language : null,
      // Capability requests of the previous run ended with it (their apps' promises are gone).
      capabilities: EMPTY_CAPABILITIES,
      operations: [],
      tasks,
      // Workflow runs: every record (their traces stay in the store, read in pages); `apps.resume` resumes the ones not ended.
      workflows: PersistentMap.of(workflowRows.map(({ key, value }) => [key, value as unknown as WorkflowRun])),
    },
    auditHead,
    shippedPublishers: (storedShipped as string[] | undefined) ?? [],
    releasing: releaseMarkers.map(({ key }) => key.slice(RELEASE_MARKER_PREFIX.length)),
  };
}
