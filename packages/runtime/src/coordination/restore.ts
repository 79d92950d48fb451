/**
 * Restoring (spec 3.3): the Runtime's state comes back from the store — its id, the last identity, the
 * followed conversations with their cursors, the outbox, unread counts and the audit head. Inbox messages
 * and history stay in the store (paged on demand).
 */
import type { IdSource } from "../core/ports.js";
import { CHAT_APP_SCOPE } from "../apps/core-app-registry.js";
import { RUNTIME_COLLECTIONS as C } from "../persistence/runtime-schema.js";
import type { RuntimeStore } from "../persistence/store.js";
import type { OutboxEntry } from "../communication/outbox.js";
import { readAuditHead, type AuditHead } from "./audit.js";
import type { Conversation, Identity, RuntimeState } from "./state.js";

export async function restoreState(store: RuntimeStore, ids: IdSource): Promise<{ state: RuntimeState; auditHead: AuditHead }> {
  let runtimeId = ((await store.get(C.meta, "runtime")) as { runtime_id?: string } | undefined)?.runtime_id;
  if (runtimeId === undefined) {
    runtimeId = ids.next("rt");
    await store.commit([{ op: "put", collection: C.meta, key: "runtime", value: { runtime_id: runtimeId } }]);
  }
  const identity = ((await store.get(C.meta, "identity")) as Identity | undefined) ?? {};

  const conversations = new Map<string, Conversation>();
  for (const { key, value } of await store.range(C.sessions)) {
    const record = value as unknown as Omit<Conversation, "cursor" | "following" | "unread">;
    const cursor = ((await store.get(C.cursors, key)) as { seq?: number } | undefined)?.seq ?? 0;
    const unread = await store.count(C.inboxPending, { prefix: `${CHAT_APP_SCOPE}/${key}/` });
    conversations.set(key, { ...record, cursor, following: { status: "idle" }, unread });
  }

  const outbox = new Map<number, OutboxEntry>();
  for (const { value } of await store.range(C.outbox)) {
    const entry = value as unknown as OutboxEntry;
    outbox.set(entry.order, entry);
  }
  const lastOrder = Math.max(-1, ...outbox.keys());

  return {
    state: {
      lifecycle: { status: "restoring" },
      runtime_id: runtimeId,
      identity,
      conversations,
      outbox,
      next_outbox_order: lastOrder + 1,
    },
    auditHead: await readAuditHead(store),
  };
}
