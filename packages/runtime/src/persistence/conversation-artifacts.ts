/**
 * The artifacts of each conversation (spec 6.3 "会话引用"): one row per artifact shared in it — by its
 * agent or by a device of the user's, this one included — keyed `<conversation_id>/<artifact_id>`, so
 * that an app can list a conversation's files without reading its whole history. A row says what the
 * artifact is and who shared it; whether its bytes are on this device is the `artifacts` collection's.
 *
 * Written by the ingest of `artifact.added` (with the event's seq) and, for an artifact this device
 * makes, when it is created (without a seq, until the upload's own `artifact.added` comes back).
 * Migration 0005 fills the index from the artifact messages and the artifacts a store already holds.
 */
import type { ArtifactRef, JsonValue } from "@lineup/protocol";
import type { MigrationContext, MigrationResult } from "./schema.js";
import type { StoreWrite } from "./store.js";

export const CONVERSATION_ARTIFACTS = "conversation-artifacts";

export interface ConversationArtifact {
  readonly artifact: ArtifactRef;
  readonly conversation_id: string;
  /** Who shared it: the conversation's agent, or a device of the user's (this one or another). */
  readonly added_by: "agent" | "device";
  readonly added_at: string;
  /** Its `artifact.added` event in the conversation's log; absent while this device's upload is queued. */
  readonly seq?: number;
}

export function conversationArtifactKey(conversationId: string, artifactId: string): string {
  return `${conversationId}/${artifactId}`;
}

export function conversationArtifactWrite(row: ConversationArtifact): StoreWrite {
  return { op: "put", collection: CONVERSATION_ARTIFACTS, key: conversationArtifactKey(row.conversation_id, row.artifact.artifact_id), value: row as unknown as JsonValue };
}

/** The row of `conversationId` a stored value is, or undefined (another conversation's under a shared prefix, or malformed). */
export function asConversationArtifact(value: unknown, conversationId: string): ConversationArtifact | undefined {
  const row = value as Partial<ConversationArtifact> | null | undefined;
  if (row?.conversation_id !== conversationId || !isArtifactRef(row.artifact)) return undefined;
  return row as ConversationArtifact;
}

/** Oldest first: by seq, and rows still waiting for their upload (no seq) last, by time. */
export function compareConversationArtifacts(a: ConversationArtifact, b: ConversationArtifact): number {
  if (a.seq !== undefined && b.seq !== undefined) return a.seq - b.seq;
  if (a.seq !== undefined) return -1;
  if (b.seq !== undefined) return 1;
  return a.added_at < b.added_at ? -1 : a.added_at > b.added_at ? 1 : 0;
}

/** The shape of an ArtifactRef (values here were validated on the way in; this guards against a damaged row). */
export function isArtifactRef(value: unknown): value is ArtifactRef {
  const ref = value as Partial<Record<keyof ArtifactRef, unknown>> | null | undefined;
  return typeof ref?.artifact_id === "string" && typeof ref.name === "string" && typeof ref.mime_type === "string" && typeof ref.size === "number" && typeof ref.sha256 === "string";
}

const INBOX = "inbox";
const ARTIFACTS = "artifacts";
const PAGE = 500;

/** Migration 0005: every `lineup.artifact` message already in an inbox, and every artifact an app shared from here. */
export async function indexConversationArtifacts(ctx: MigrationContext): Promise<MigrationResult> {
  const rows = new Map<string, ConversationArtifact>();
  const add = (row: ConversationArtifact): void => {
    const key = conversationArtifactKey(row.conversation_id, row.artifact.artifact_id);
    const known = rows.get(key);
    if (known === undefined || (known.seq === undefined && row.seq !== undefined)) rows.set(key, row);
  };
  let after: string | undefined;
  for (;;) {
    const page = await ctx.range(INBOX, { ...(after === undefined ? {} : { gt: after }), limit: PAGE });
    for (const { value } of page) {
      const message = value as { type?: unknown; conversation_id?: unknown; seq?: unknown; sender?: { kind?: unknown }; created_at?: unknown; payload?: { artifact?: unknown } } | null;
      if (message?.type !== "lineup.artifact" || typeof message.conversation_id !== "string" || !isArtifactRef(message.payload?.artifact)) continue;
      add({
        artifact: message.payload.artifact,
        conversation_id: message.conversation_id,
        added_by: message.sender?.kind === "agent" ? "agent" : "device",
        added_at: typeof message.created_at === "string" ? message.created_at : "",
        ...(typeof message.seq === "number" ? { seq: message.seq } : {}),
      });
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.key;
  }
  for (const { value } of await ctx.range(ARTIFACTS)) {
    const stored = value as { artifact?: unknown; conversation_id?: unknown; created_at?: unknown } | null;
    if (typeof stored?.conversation_id !== "string" || !isArtifactRef(stored.artifact)) continue;
    add({ artifact: stored.artifact, conversation_id: stored.conversation_id, added_by: "device", added_at: typeof stored.created_at === "string" ? stored.created_at : "" });
  }
  const writes = [...rows.values()].map(conversationArtifactWrite);
  for (let start = 0; start < writes.length; start += PAGE) ctx.write(writes.slice(start, start + PAGE));
  return { ok: true };
}
