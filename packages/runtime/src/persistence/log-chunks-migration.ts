/**
 * Migrations to the log-chunk layout (`log-chunks.ts`).
 *
 * - 0003: the envelope-id rows of layout 0002 become `log-chunks`, and the pending rows of display
 *   messages become `inbox-unseen` marks; the rows moved are deleted. Explicit-ack pending rows stay.
 * - 0004: a store that ran the first form of 0003 kept the unseen marks inside its `log-chunks` rows
 *   (as `unseen`); they move to `inbox-unseen`.
 */
import { asChunk, asMarks, chunkKey, chunkOf, chunkWrite, INBOX_UNSEEN, LOG_CHUNKS, marksWrite, withEnvelope, withUnseen, type LogChunk, type UnseenMarks } from "./log-chunks.js";
import type { MigrationContext, MigrationResult } from "./schema.js";
import type { StoreWrite } from "./store.js";

const ENVELOPE_IDS = "envelope-ids";
const INBOX = "inbox";
const INBOX_PENDING = "inbox-pending";
const PAGE = 500;

export async function migrateToLogChunks(ctx: MigrationContext): Promise<MigrationResult> {
  const chunks = new Map<string, LogChunk>();
  const marks = new Map<string, UnseenMarks>();
  const chunk = async (key: string): Promise<LogChunk> => chunks.get(key) ?? asChunk(await ctx.get(LOG_CHUNKS, key));
  const marksAt = async (key: string): Promise<UnseenMarks> => marks.get(key) ?? asMarks(await ctx.get(INBOX_UNSEEN, key));
  const deletes: StoreWrite[] = [];

  for (const { key, value } of await ctx.range(ENVELOPE_IDS)) {
    // `<conversation_id>/<envelope id>`: envelope ids have no slash, conversation ids may.
    const slash = key.lastIndexOf("/");
    const seq = (value as { seq?: unknown } | null)?.seq;
    deletes.push({ op: "delete", collection: ENVELOPE_IDS, key });
    if (slash <= 0 || typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 0) continue;
    const target = chunkKey(key.slice(0, slash), chunkOf(seq));
    chunks.set(target, withEnvelope(await chunk(target), key.slice(slash + 1), seq));
  }

  const pending = await ctx.range(INBOX_PENDING);
  for (let start = 0; start < pending.length; start += PAGE) {
    const page = pending.slice(start, start + PAGE);
    const messages = await ctx.getMany(page.map(({ key }) => ({ collection: INBOX, key })));
    for (const [index, { key }] of page.entries()) {
      const message = messages[index] as { delivery?: unknown; app_scope?: unknown; conversation_id?: unknown; seq?: unknown } | undefined;
      if (message?.delivery !== "display" || typeof message.app_scope !== "string" || typeof message.conversation_id !== "string" || typeof message.seq !== "number") continue;
      const target = chunkKey(message.conversation_id, chunkOf(message.seq));
      marks.set(target, withUnseen(await marksAt(target), message.app_scope, message.seq));
      deletes.push({ op: "delete", collection: INBOX_PENDING, key });
    }
  }
  ctx.write([...[...chunks].map(([key, value]) => chunkWrite(key, value)), ...[...marks].map(([key, value]) => marksWrite(key, value)), ...deletes]);
  return { ok: true };
}

export async function splitUnseenMarks(ctx: MigrationContext): Promise<MigrationResult> {
  const writes: StoreWrite[] = [];
  for (const { key, value } of await ctx.range(LOG_CHUNKS)) {
    if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Uint8Array) continue;
    const { unseen, ...rest } = value as { unseen?: UnseenMarks };
    if (unseen === undefined) continue;
    writes.push(marksWrite(key, asMarks(unseen as never)), chunkWrite(key, rest as LogChunk));
  }
  if (writes.length > 0) ctx.write(writes);
  return { ok: true };
}
