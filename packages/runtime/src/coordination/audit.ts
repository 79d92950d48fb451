/**
 * The audit log: append-only and hash-chained. Each record's `hash` is SHA-256(previous hash + canonical
 * JSON of the record without its hash), so editing, removing or reordering any stored record breaks
 * every hash after it. Records are written in the same commit as the facts they record — and so before
 * the effects that follow that commit.
 *
 * SHA-256 is the synchronous one of `core/sha256.ts`: chaining runs inside every mailbox turn before its
 * commit, and a record is a few hundred bytes, so hashing in place beats a round trip to WebCrypto's
 * thread per record (the digests are the same bytes, so stored chains verify unchanged).
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
  const { hash: _hash, ...rest } = record as AuditRecord;
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

/** `chainAudit` without the promise, for the mailbox's turn. */
export function chainAuditSync(head: AuditHead, drafts: readonly AuditDraft[], nowMs: number): ChainedAudit {
  let { next, hash } = head;
  const writes: StoreWrite[] = [];
  const at = drafts.length === 0 ? "" : toTimestamp(nowMs);
  for (const draft of drafts) {
    const body = recordBody(draft, next, at, hash);
    const recordHash = sha256HexSync(hash, canonicalJson(body as unknown as JsonValue));
    // The body is this record's own object: it takes its hash in place.
    (body as { hash?: string }).hash = recordHash;
    writes.push({ op: "put", collection: C.audit, key: padNumber(next), value: body as unknown as JsonValue });
    next += 1;
    hash = recordHash;
  }
  return { writes, head: { next, hash } };
}

const DRAFT_FIELDS = new Set(["type", "code", "conversation_id", "subject", "detail"]);

/**
 * The record without its hash, its keys in canonical order (at, code, conversation_id, detail, index,
 * prev, subject, type) so that hashing writes it in one native pass. A draft carrying any other key
 * keeps it, in the order given (canonicalJson sorts it then).
 */
function recordBody(draft: AuditDraft, index: number, at: string, prev: string): Omit<AuditRecord, "hash"> {
  for (const key in draft) if (!DRAFT_FIELDS.has(key)) return { ...draft, index, at, prev };
  const body: Record<string, string | number> = { at };
  if (draft.code !== undefined) body["code"] = draft.code;
  if (draft.conversation_id !== undefined) body["conversation_id"] = draft.conversation_id;
  if (draft.detail !== undefined) body["detail"] = draft.detail;
  body["index"] = index;
  body["prev"] = prev;
  if (draft.subject !== undefined) body["subject"] = draft.subject;
  body["type"] = draft.type;
  return body as unknown as Omit<AuditRecord, "hash">;
}

/** The head after the last stored record. */
export async function readAuditHead(store: RuntimeStore): Promise<AuditHead> {
  const [last] = await store.range(C.audit, { reverse: true, limit: 1 });
  if (last === undefined) return EMPTY_AUDIT_HEAD;
  const record = last.value as unknown as AuditRecord;
  return { next: record.index + 1, hash: record.hash };
}

export type AuditVerdict = { readonly ok: true; readonly records: number } | { readonly ok: false; readonly index: number; readonly problem: string };

/** Walks the whole log in pages and checks every index, link and hash. */
export async function verifyAuditChain(store: RuntimeStore, pageSize = 500): Promise<AuditVerdict> {
  let expected = 0;
  let prev = GENESIS_CHAIN;
  let after: string | undefined;
  for (;;) {
    const page = await store.range(C.audit, { ...(after === undefined ? {} : { gt: after }), limit: pageSize });
    for (const { key, value } of page) {
      const record = value as unknown as AuditRecord;
      if (key !== padNumber(expected) || record.index !== expected) return { ok: false, index: expected, problem: `record ${key} is out of sequence` };
      if (record.prev !== prev) return { ok: false, index: expected, problem: "prev does not match the record before" };
      const hash = sha256HexSync(prev, canonicalJson(unhashed(record)));
      if (hash !== record.hash) return { ok: false, index: expected, problem: "hash does not match the record" };
      prev = record.hash;
      expected += 1;
      after = key;
    }
    if (page.length < pageSize) return { ok: true, records: expected };
  }
}
