/**
 * The audit log: append-only and hash-chained, one link per committed turn. The records a turn writes
 * (a batch) all carry `prev`, the chain's hash before the turn, and `hash`, SHA-256 of `prev` followed by
 * the canonical JSON of each of the batch's records without its hash, in index order. Editing, removing,
 * reordering or moving any stored record between batches breaks its batch's hash and every link after it.
 * A batch of one record hashes exactly as a per-record chain did, so chains stored before batching
 * verify unchanged. Records are written in the same commit as the facts they record — and so before
 * the effects that follow that commit.
 *
 * SHA-256 is the synchronous one of `core/sha256.ts`: chaining runs inside every loop turn before its
 * commit, and a turn's records are a few hundred bytes each, so one hash in place beats a round trip to
 * WebCrypto's thread.
 */
import { GENESIS_CHAIN, canonicalJson, type JsonValue } from "@lineup/protocol";
import { toTimestamp } from "../core/ports.js";
import { sha256Hex as sha256HexSync } from "../core/sha256.js";
import { RUNTIME_COLLECTIONS as C, padNumber } from "../persistence/runtime-schema.js";
import type { RuntimeStore, StoreWrite } from "../persistence/store.js";
import type { AuditDraft } from "./inputs.js";

export interface AuditRecord extends AuditDraft {
  readonly index: number;
  readonly at: string;
  /** Hash of the record before (64 zeros for the first). */
  readonly prev: string;
  readonly hash: string;
}

export interface AuditHead {
  /** Index the next record gets. */
  readonly next: number;
  readonly hash: string;
}

export const EMPTY_AUDIT_HEAD: AuditHead = { next: 0, hash: GENESIS_CHAIN };

/** SHA-256 of `text`'s UTF-8 bytes as lowercase hex (kept async for the package's public API). */
export async function sha256Hex(text: string): Promise<string> {
  return sha256HexSync(text);
}

function unhashed(record: AuditRecord | Omit<AuditRecord, "hash">): JsonValue {
  if (!("hash" in record)) return record as unknown as JsonValue;
  const { hash: _hash, ...rest } = record;
  return rest as unknown as JsonValue;
}

export interface ChainedAudit {
  readonly writes: StoreWrite[];
  readonly head: AuditHead;
}

/** Chains `drafts` after `head`; returns the writes to commit with them and the new head. */
export async function chainAudit(head: AuditHead, drafts: readonly AuditDraft[], nowMs: number): Promise<ChainedAudit> {
  return chainAuditSync(head, drafts, nowMs);
}

/** `chainAudit` without the promise, for the loop's turn: the drafts are one batch, hashed once. */
export function chainAuditSync(head: AuditHead, drafts: readonly AuditDraft[], nowMs: number): ChainedAudit {
  if (drafts.length === 0) return { writes: [], head };
  const at = toTimestamp(nowMs);
  const bodies = drafts.map((draft, offset) => recordBody(draft, head.next + offset, at, head.hash));
  let text = "";
  // A body of the draft fields alone is flat, with its keys in canonical order: JSON.stringify writes its canonical JSON.
  for (const body of bodies) text += FLAT_BODIES.has(body) ? JSON.stringify(body) : canonicalJson(body as unknown as JsonValue);
  const hash = sha256HexSync(head.hash, text);
  const writes: StoreWrite[] = bodies.map((body) => {
    // Each body is this record's own object: it takes the batch's hash in place.
    (body as { hash?: string }).hash = hash;
    return { op: "put", collection: C.audit, key: padNumber(body.index), value: body as unknown as JsonValue };
  });
  return { writes, head: { next: head.next + drafts.length, hash } };
}

/** SHA-256 of `prev` followed by each record's canonical JSON without its hash: one batch's link. */
function batchHash(prev: string, records: readonly (AuditRecord | Omit<AuditRecord, "hash">)[]): string {
  // Canonical JSON objects delimit themselves, so joining them is unambiguous.
  let text = "";
  for (const record of records) text += canonicalJson(unhashed(record));
  return sha256HexSync(prev, text);
}

const DRAFT_FIELDS = new Set(["type", "code", "conversation_id", "subject", "detail"]);

/** Bodies `recordBody` built from string draft fields: flat, keys in canonical order. */
const FLAT_BODIES = new WeakSet<object>();

/**
 * The record without its hash, its keys in canonical order (at, code, conversation_id, detail, index,
 * prev, subject, type) so that hashing writes it in one native pass. A draft carrying any other key
 * keeps it, in the order given (canonicalJson sorts it then).
 */
function recordBody(draft: AuditDraft, index: number, at: string, prev: string): Omit<AuditRecord, "hash"> {
  for (const key in draft) {
    const value: unknown = (draft as unknown as Record<string, unknown>)[key];
    if (!DRAFT_FIELDS.has(key) || (value !== undefined && typeof value !== "string")) return { ...draft, index, at, prev };
  }
  const body: Record<string, string | number> = { at };
  if (draft.code !== undefined) body["code"] = draft.code;
  if (draft.conversation_id !== undefined) body["conversation_id"] = draft.conversation_id;
  if (draft.detail !== undefined) body["detail"] = draft.detail;
  body["index"] = index;
  body["prev"] = prev;
  if (draft.subject !== undefined) body["subject"] = draft.subject;
  body["type"] = draft.type;
  FLAT_BODIES.add(body);
  return body as unknown as Omit<AuditRecord, "hash">;
}

/** The head after the last stored record. */
export async function readAuditHead(store: Pick<RuntimeStore, "range">): Promise<AuditHead> {
  const [last] = await store.range(C.audit, { reverse: true, limit: 1 });
  if (last === undefined) return EMPTY_AUDIT_HEAD;
  const record = last.value as unknown as AuditRecord;
  return { next: record.index + 1, hash: record.hash };
}

export type AuditVerdict = { readonly ok: true; readonly records: number } | { readonly ok: false; readonly index: number; readonly problem: string };

/**
 * Walks the whole log in pages and checks every index, link and batch hash. A batch is a run of
 * consecutive records with the same `prev`; its records all carry its hash, and the next batch's `prev`
 * is that hash. A failure names the first record of the batch that does not verify.
 */
export async function verifyAuditChain(store: RuntimeStore, pageSize = 500): Promise<AuditVerdict> {
  let expected = 0;
  let prev = GENESIS_CHAIN;
  let after: string | undefined;
  /** The records of the batch being read (it may span pages). */
  let batch: AuditRecord[] = [];
  const closeBatch = (): AuditVerdict | undefined => {
    const first = batch[0];
    if (first === undefined) return undefined;
    const hash = batchHash(first.prev, batch);
    if (batch.some((record) => record.hash !== hash)) return { ok: false, index: first.index, problem: "hash does not match the records of its batch" };
    prev = hash;
    batch = [];
    return undefined;
  };
  for (;;) {
    const page = await store.range(C.audit, { ...(after === undefined ? {} : { gt: after }), limit: pageSize });
    for (const { key, value } of page) {
      const record = value as unknown as AuditRecord;
      if (key !== padNumber(expected) || record.index !== expected) return { ok: false, index: expected, problem: `record ${key} is out of sequence` };
      if (batch.length === 0 || record.prev !== batch[0]!.prev) {
        const broken = closeBatch();
        if (broken !== undefined) return broken;
        if (record.prev !== prev) return { ok: false, index: expected, problem: "prev does not match the batch before" };
      }
      batch.push(record);
      expected += 1;
      after = key;
    }
    if (page.length < pageSize) return closeBatch() ?? { ok: true, records: expected };
  }
}
