/**
 * Conversation log chunks: rows per conversation and `CHUNK_SEQS` sequence numbers, carrying what would
 * otherwise be one row per event. Two collections share the key `<conversation_id>/<chunk>`:
 *
 * - `log-chunks`: a LogChunk, the id of every envelope applied at those seqs, except the echoes of the ones
 *   this Runtime sent (`coordination/handlers/ingest.ts`: ids of its own, sent once). The Runtime refuses an
 *   envelope id seen in the last `DEDUP_CHUNKS` chunks of its conversation (at least the last 448 and at
 *   most the last 512 events); the AppServer refuses any repeat within the whole log
 *   (`duplicate_message`), so this is the Runtime's own, bounded, check behind it.
 * - `inbox-unseen`: UnseenMarks, per app the seqs of its display messages there not yet delivered (their
 *   pending marks). A display message stays pending until delivered, exactly as a per-message mark
 *   would; explicit-ack messages keep a row each in `inbox-pending`, since they are acknowledged one by
 *   one, out of order. A row goes when its last mark does, so this collection holds only what is
 *   pending: a restart reads it whole without reading the history.
 *
 * The chunk of a seq is fixed, so every transition knows which rows it needs before it runs; a turn of
 * a few hundred events writes a handful of chunk rows instead of a few hundred small rows. Storage
 * engines pay per row written (an IndexedDB put is an IPC and a LevelDB write, whatever its size), which
 * is what this layout saves. Chunks are small because each event's transition copies its rows (values
 * stay immutable for the loop's overlays): 64 seqs keep that copy short.
 */
import type { JsonValue } from "@lineup/protocol";
import { padNumber } from "./keys.js";
import type { StoreValue, StoreWrite } from "./store.js";

/** The collections (named here so the layout module can import this one without a cycle). */
export const LOG_CHUNKS = "log-chunks";
export const INBOX_UNSEEN = "inbox-unseen";
export const CHUNK_SEQS = 64;
/** Chunks the envelope-id check looks at: the event's own and the ones before it. */
export const DEDUP_CHUNKS = 8;

export interface LogChunk {
  /** The envelope id applied at each seq of the chunk, by offset (`seq % CHUNK_SEQS`); null where none was. */
  readonly envelopes?: readonly (string | null)[];
}

/** Per app, the seqs (ascending) of its display messages in one chunk not yet delivered. */
export type UnseenMarks = { readonly [appScope: string]: readonly number[] };

export function chunkOf(seq: number): number {
  return Math.floor(seq / CHUNK_SEQS);
}

export function chunkKey(conversationId: string, chunk: number): string {
  return `${conversationId}/${padNumber(chunk)}`;
}

/** The last key `chunkKeyOf` made: consecutive events of a conversation share their chunk. */
let lastChunkKey: { conversationId: string; chunk: number; key: string } | undefined;

/** `chunkKey(conversationId, chunkOf(seq))`, without building the same string for every event of a chunk. */
export function chunkKeyOf(conversationId: string, seq: number): string {
  const chunk = chunkOf(seq);
  if (lastChunkKey === undefined || lastChunkKey.chunk !== chunk || lastChunkKey.conversationId !== conversationId) {
    lastChunkKey = { conversationId, chunk, key: chunkKey(conversationId, chunk) };
  }
  return lastChunkKey.key;
}

/** The chunk keys the envelope-id check of an event at `seq` reads, newest first. */
export function dedupChunkKeys(conversationId: string, seq: number): string[] {
  const last = chunkOf(seq);
  const keys: string[] = [];
  for (let chunk = last; chunk >= 0 && chunk > last - DEDUP_CHUNKS; chunk--) keys.push(chunkKey(conversationId, chunk));
  return keys;
}

/** The conversation and chunk number of a chunk key. */
export function parseChunkKey(key: string): { conversation_id: string; chunk: number } | undefined {
  const slash = key.lastIndexOf("/");
  if (slash <= 0) return undefined;
  const chunk = Number(key.slice(slash + 1));
  return Number.isSafeInteger(chunk) ? { conversation_id: key.slice(0, slash), chunk } : undefined;
}

const isRecord = (value: StoreValue | undefined): value is { [key: string]: JsonValue } =>
  value !== undefined && value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Uint8Array);

// --- envelope ids ------------------------------------------------------------------------------

/** A stored value as a chunk (a missing or malformed one is empty). */
export function asChunk(value: StoreValue | undefined): LogChunk {
  return isRecord(value) ? (value as LogChunk) : {};
}

/**
 * The ids of a full chunk's envelope list as a set, built once per list (lists are never changed, only
 * replaced): older chunks are asked about again and again. The chunk still filling is replaced by every
 * event, so it is searched as it is.
 */
const envelopeSets = new WeakMap<readonly (string | null)[], ReadonlySet<string | null>>();

export function hasEnvelope(chunk: LogChunk, envelopeId: string): boolean {
  const ids = chunk.envelopes;
  if (!Array.isArray(ids)) return false;
  let set = envelopeSets.get(ids);
  if (set === undefined) {
    if (ids.length < CHUNK_SEQS) return ids.includes(envelopeId);
    envelopeSets.set(ids, (set = new Set(ids)));
  }
  return set.has(envelopeId);
}

/** `chunk` with `envelopeId` recorded at `seq` (a copy of at most CHUNK_SEQS entries). */
export function withEnvelope(chunk: LogChunk, envelopeId: string, seq: number): LogChunk {
  const before = Array.isArray(chunk.envelopes) ? chunk.envelopes : [];
  const offset = seq % CHUNK_SEQS;
  // One copy of the final length (an event usually lands just past the last one): no regrowth.
  const ids = new Array<string | null>(Math.max(before.length, offset + 1));
  for (let i = 0; i < ids.length; i++) ids[i] = i < before.length ? before[i]! : null;
  ids[offset] = envelopeId;
  return { ...chunk, envelopes: ids };
}

/** The write that stores `chunk` (deleted once it holds nothing). */
export function chunkWrite(key: string, chunk: LogChunk): StoreWrite {
  return chunk.envelopes === undefined || chunk.envelopes.length === 0
    ? { op: "delete", collection: LOG_CHUNKS, key }
    : { op: "put", collection: LOG_CHUNKS, key, value: chunk as unknown as JsonValue };
}

// --- unseen display messages ---------------------------------------------------------------------

/** A stored value as marks (a missing or malformed one is empty). */
export function asMarks(value: StoreValue | undefined): UnseenMarks {
  return isRecord(value) ? (value as UnseenMarks) : {};
}

export function unseenOf(marks: UnseenMarks, appScope: string): readonly number[] {
  const seqs = Object.prototype.hasOwnProperty.call(marks, appScope) ? marks[appScope] : undefined;
  return Array.isArray(seqs) ? seqs : [];
}

/** `marks` with `seq` marked unseen for `appScope` (seqs kept ascending). */
export function withUnseen(marks: UnseenMarks, appScope: string, seq: number): UnseenMarks {
  const seqs = unseenOf(marks, appScope);
  if (seqs.includes(seq)) return marks;
  const next = new Array<number>(seqs.length + 1);
  for (let i = 0; i < seqs.length; i++) next[i] = seqs[i]!;
  next[seqs.length] = seq;
  if (next.length > 1 && next[next.length - 2]! > seq) next.sort((a, b) => a - b);
  return { ...marks, [appScope]: next };
}

/** `marks` without the marks of `seqs` for `appScope` (one copy, whatever their number); the app's entry goes when it empties. */
export function withoutUnseen(marks: UnseenMarks, appScope: string, seqs: ReadonlySet<number>): UnseenMarks {
  const before = unseenOf(marks, appScope);
  const rest = before.filter((s) => !seqs.has(s));
  if (rest.length === before.length) return marks;
  const next: { [appScope: string]: readonly number[] } = { ...marks };
  if (rest.length === 0) delete next[appScope];
  else next[appScope] = rest;
  return next;
}

/** `marks` keeping only the apps `keep` accepts. */
export function marksOf(marks: UnseenMarks, keep: (appScope: string) => boolean): UnseenMarks {
  const entries = Object.entries(marks).filter(([scope]) => keep(scope));
  return entries.length === Object.keys(marks).length ? marks : Object.fromEntries(entries);
}

/** The write that stores `marks` (deleted once no app has a mark left). */
export function marksWrite(key: string, marks: UnseenMarks): StoreWrite {
  for (const scope in marks) if (unseenOf(marks, scope).length > 0) return { op: "put", collection: INBOX_UNSEEN, key, value: marks as unknown as JsonValue };
  return { op: "delete", collection: INBOX_UNSEEN, key };
}
