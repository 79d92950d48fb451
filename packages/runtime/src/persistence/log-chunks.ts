/**
 * Conversation log chunks: one row per conversation and `CHUNK_SEQS` sequence numbers, carrying what
 * would otherwise be one row per event.
 *
 * - `envelopes`: the id of every envelope applied at those seqs. The Runtime refuses an envelope id seen
 *   in the last `DEDUP_CHUNKS` chunks of its conversation (at least the last 448 and at most the last 512
 *   events); the AppServer refuses any repeat within the whole log (`duplicate_message`), so this is the
 *   Runtime's own, bounded, check behind it.
 * - `unseen`: per app, the seqs of its display messages not yet delivered (their pending marks). A
 *   display message stays pending until delivered, exactly as a per-message mark would; explicit-ack
 *   messages keep a row each in `inbox-pending`, since they are acknowledged one by one, out of order.
 *
 * The chunk of a seq is fixed, so every transition knows which rows it needs before it runs; a turn of
 * a few hundred events writes a handful of chunk rows instead of a few hundred small rows. Storage
 * engines pay per row written (an IndexedDB put is an IPC and a LevelDB write, whatever its size), which
 * is what this layout saves. Chunks are small because each event's transition copies its chunk (values
 * stay immutable for the mailbox's overlays): 64 seqs keep that copy short.
 */
import type { JsonValue } from "@lineup/protocol";
import { padNumber } from "./keys.js";
import type { StoreValue, StoreWrite } from "./store.js";

/** The collection (named here so the layout module can import this one without a cycle). */
export const LOG_CHUNKS = "log-chunks";
export const CHUNK_SEQS = 64;
/** Chunks the envelope-id check looks at: the event's own and the ones before it. */
export const DEDUP_CHUNKS = 8;

export interface LogChunk {
  /** The envelope id applied at each seq of the chunk, by offset (`seq % CHUNK_SEQS`); null where none was. */
  readonly envelopes?: readonly (string | null)[];
  readonly unseen?: { readonly [appScope: string]: readonly number[] };
}

export function chunkOf(seq: number): number {
  return Math.floor(seq / CHUNK_SEQS);
}

export function chunkKey(conversationId: string, chunk: number): string {
  return `${conversationId}/${padNumber(chunk)}`;
}

/** The chunk keys the envelope-id check of an event at `seq` reads, newest first. */
export function dedupChunkKeys(conversationId: string, seq: number): string[] {
  const last = chunkOf(seq);
  const keys: string[] = [];
  for (let chunk = last; chunk >= 0 && chunk > last - DEDUP_CHUNKS; chunk--) keys.push(chunkKey(conversationId, chunk));
  return keys;
}

/** A stored value as a chunk (a missing or malformed one is empty). */
export function asChunk(value: StoreValue | undefined): LogChunk {
  return value !== undefined && value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Uint8Array) ? (value as LogChunk) : {};
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
  const ids: (string | null)[] = Array.isArray(chunk.envelopes) ? chunk.envelopes.slice() : [];
  const offset = seq % CHUNK_SEQS;
  while (ids.length < offset) ids.push(null);
  ids[offset] = envelopeId;
  return { ...chunk, envelopes: ids };
}

export function isUnseen(chunk: LogChunk, appScope: string, seq: number): boolean {
  return unseenOf(chunk, appScope).includes(seq);
}

/** `chunk` with `seq` marked unseen for `appScope` (seqs kept ascending). */
export function withUnseen(chunk: LogChunk, appScope: string, seq: number): LogChunk {
  const seqs = unseenOf(chunk, appScope);
  if (seqs.includes(seq)) return chunk;
  const next = seqs.slice();
  next.push(seq);
  if (next.length > 1 && next[next.length - 2]! > seq) next.sort((a, b) => a - b);
  return { ...chunk, unseen: { ...chunk.unseen, [appScope]: next } };
}

/** `chunk` without the mark of `seq` for `appScope`; the app's entry goes when it empties. */
export function withoutUnseen(chunk: LogChunk, appScope: string, seq: number): LogChunk {
  return withoutUnseenSeqs(chunk, appScope, new Set([seq]));
}

/** `chunk` without the marks of `seqs` for `appScope` (one copy, whatever their number). */
export function withoutUnseenSeqs(chunk: LogChunk, appScope: string, seqs: ReadonlySet<number>): LogChunk {
  const before = unseenOf(chunk, appScope);
  const rest = before.filter((s) => !seqs.has(s));
  if (rest.length === before.length) return chunk;
  const unseen: { [appScope: string]: readonly number[] } = { ...chunk.unseen };
  if (rest.length === 0) delete unseen[appScope];
  else unseen[appScope] = rest;
  const { unseen: _unseen, ...others } = chunk;
  return Object.keys(unseen).length === 0 ? others : { ...others, unseen };
}

export function unseenOf(chunk: LogChunk, appScope: string): readonly number[] {
  const seqs = chunk.unseen !== undefined && Object.prototype.hasOwnProperty.call(chunk.unseen, appScope) ? chunk.unseen[appScope] : undefined;
  return Array.isArray(seqs) ? seqs : [];
}

/** The write that stores `chunk` (deleted once it holds nothing). */
export function chunkWrite(key: string, chunk: LogChunk): StoreWrite {
  const empty = (chunk.envelopes === undefined || chunk.envelopes.length === 0) && isEmpty(chunk.unseen);
  return empty ? { op: "delete", collection: LOG_CHUNKS, key } : { op: "put", collection: LOG_CHUNKS, key, value: chunk as unknown as JsonValue };
}

function isEmpty(record: object | undefined): boolean {
  if (record === undefined) return true;
  for (const _key in record) return false;
  return true;
}

/** The conversation and chunk number of a chunk key. */
export function parseChunkKey(key: string): { conversation_id: string; chunk: number } | undefined {
  const slash = key.lastIndexOf("/");
  if (slash <= 0) return undefined;
  const chunk = Number(key.slice(slash + 1));
  return Number.isSafeInteger(chunk) ? { conversation_id: key.slice(0, slash), chunk } : undefined;
}
