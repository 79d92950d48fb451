/**
 * The per-session log. `appendEvent` must run inside the write transaction: it takes the next seq
 * after the session's head and stores the event, so seqs are gapless and a rolled-back write leaves
 * no trace.
 *
 * The head (`sessions.last_seq`) is read once per session and transaction and then kept here, as
 * the transaction's pending head, with the time of the newest event appended in it in which something was said
 * (`isActivityEvent`: `sessions.active_at`); `writeHeads` stores every pending head in the same transaction,
 * right before COMMIT (one UPDATE per session and batch instead of one per event). Inside a
 * transaction, read the head through `headSeq` or `pendingHead` (as `findSession` does), never
 * from the column directly. On PostgreSQL, where other server processes append to the same
 * sessions, the transaction's first read of a head locks the session's row (`FOR UPDATE`) until it
 * commits: a writer elsewhere waits, then reads the head this one stored. The write queue undoes pending heads with the savepoints that assigned
 * them (`setPendingHead`) and drops them when the transaction ends (`dropHeads`).
 */
import { isActivityEvent, type ActorRole, type JsonObject, type SessionEvent, type SessionEventKind } from "@lineup/protocol";
import { eventFrameFromBody, rememberEventFrame } from "../event-frames.js";
import { jsonWithRememberedMembers } from "../json-text.js";
import { LOG_CHANNEL, logPayload } from "./notifications.js";
import { PostgresDb, type Db } from "./sql.js";

export interface Actor {
  readonly role: ActorRole;
  readonly id: string;
}

/** A session's head in the open transaction: its newest seq, and `active_at` when an event appended in it says something. */
export interface PendingHead {
  readonly seq: number;
  readonly active_at?: string;
}

const pendingHeads = new WeakMap<Db, Map<string, PendingHead>>();

/**
 * PostgreSQL, a batch without savepoints (the write queue's fast mode): events are inserted together,
 * in one statement, before the heads are written (or before the transaction reads the log itself),
 * instead of one round trip each. Undefined: each event is inserted at once.
 */
type EventRow = readonly [sessionId: string, seq: number, kind: string, body: string, createdAt: string];
const deferredEvents = new WeakMap<Db, EventRow[]>();

/** Inserts of the transaction's events wait for `flushEvents` (on) or happen at once (off). */
export function deferEventInserts(db: Db, on: boolean): void {
  if (on && db instanceof PostgresDb) deferredEvents.set(db, []);
  else deferredEvents.delete(db);
}

/** Inserts the events waiting in the transaction, in one statement. */
export async function flushEvents(db: Db): Promise<void> {
  const rows = deferredEvents.get(db);
  if (rows === undefined || rows.length === 0) return;
  deferredEvents.set(db, []);
  await db.run("INSERT INTO events (session_id, seq, kind, body, created_at) SELECT * FROM unnest(?::text[], ?::int[], ?::text[], ?::text[], ?::text[])", [
    rows.map((r) => r[0]),
    rows.map((r) => r[1]),
    rows.map((r) => r[2]),
    rows.map((r) => r[3]),
    rows.map((r) => r[4]),
  ]);
}

/** The head assigned to the session in the open transaction, if it appended to it. */
export function pendingHead(db: Db, sessionId: string): PendingHead | undefined {
  return pendingHeads.get(db)?.get(sessionId);
}

/** Puts a pending head back (undefined: the transaction had not appended to the session). */
export function setPendingHead(db: Db, sessionId: string, head: PendingHead | undefined): void {
  const heads = pendingHeads.get(db);
  if (head !== undefined) heads?.set(sessionId, head);
  else heads?.delete(sessionId);
}

/**
 * Stores every pending head in `sessions.last_seq` (and `active_at`, when something was said); runs inside the
 * transaction, before COMMIT. On PostgreSQL one statement stores them all, and one more announces them to the other
 * server processes (`lineup_log`, delivered when the transaction commits; store/notifications.ts).
 */
export async function writeHeads(db: Db): Promise<void> {
  await flushEvents(db);
  const heads = pendingHeads.get(db);
  if (heads === undefined || heads.size === 0) return;
  if (db instanceof PostgresDb) {
    const sessions = [...heads.keys()];
    const seqs = [...heads.values()].map((h) => h.seq);
    const activeAt = [...heads.values()].map((h) => h.active_at ?? null);
    await db.run("UPDATE sessions SET last_seq = h.seq, active_at = coalesce(h.active_at, sessions.active_at) FROM unnest(?::text[], ?::int[], ?::text[]) AS h(session_id, seq, active_at) WHERE sessions.session_id = h.session_id", [sessions, seqs, activeAt]);
    await db.run(`SELECT pg_notify('${LOG_CHANNEL}', p) FROM unnest(?::text[]) AS p`, [sessions.map((s, i) => logPayload(db.origin, s, seqs[i]!))]);
  } else {
    for (const [sessionId, head] of heads) {
      if (head.active_at === undefined) await db.run("UPDATE sessions SET last_seq = ? WHERE session_id = ?", [head.seq, sessionId]);
      else await db.run("UPDATE sessions SET last_seq = ?, active_at = ? WHERE session_id = ?", [head.seq, head.active_at, sessionId]);
    }
  }
  heads.clear();
}

/** Forgets the pending heads and the events not inserted yet (the transaction ended). */
export function dropHeads(db: Db): void {
  pendingHeads.get(db)?.clear();
  const rows = deferredEvents.get(db);
  if (rows !== undefined) rows.length = 0;
}

export async function headSeq(db: Db, sessionId: string): Promise<number | undefined> {
  const pending = pendingHead(db, sessionId);
  if (pending !== undefined) return pending.seq;
  const locking = db.dialect === "postgres" && db.inTransaction;
  const row = await db.get<{ last_seq: number }>(locking ? "SELECT last_seq FROM sessions WHERE session_id = ? FOR UPDATE" : "SELECT last_seq FROM sessions WHERE session_id = ?", [sessionId]);
  return row?.last_seq;
}

export async function appendEvent(db: Db, sessionId: string, kind: SessionEventKind, actor: Actor, data: JsonObject, createdAt: string): Promise<SessionEvent> {
  let heads = pendingHeads.get(db);
  if (heads === undefined) pendingHeads.set(db, (heads = new Map()));
  const pending = heads.get(sessionId);
  const head = pending?.seq ?? (await headSeq(db, sessionId));
  if (head === undefined) throw new Error(`appendEvent: no session ${sessionId}`);
  const seq = head + 1;
  const event = { session_id: sessionId, seq, kind, created_at: createdAt, actor: { role: actor.role, id: actor.id }, data } as SessionEvent;
  // JSON.stringify(event), with the text of a member of `data` the write's fingerprint already made (json-text.ts).
  const body = `{"session_id":${JSON.stringify(sessionId)},"seq":${seq},"kind":${JSON.stringify(kind)},"created_at":${JSON.stringify(createdAt)},"actor":${JSON.stringify(event.actor)},"data":${jsonWithRememberedMembers(data)}}`;
  const deferred = deferredEvents.get(db);
  if (deferred !== undefined) deferred.push([sessionId, seq, kind, body, createdAt]);
  else await db.run("INSERT INTO events (session_id, seq, kind, body, created_at) VALUES (?, ?, ?, ?, ?)", [sessionId, seq, kind, body, createdAt]);
  // The time of the newest such event in the log's order (the session's `active_at`).
  const activeAt = isActivityEvent(kind, data) ? createdAt : pending?.active_at;
  heads.set(sessionId, activeAt === undefined ? { seq } : { seq, active_at: activeAt });
  rememberEventFrame(event, body);
  return event;
}

/** Events with seq > afterSeq, in order, at most `limit`. */
export async function readEvents(db: Db, sessionId: string, afterSeq: number, limit: number): Promise<SessionEvent[]> {
  await flushEvents(db);
  const rows = await db.all<{ body: string }>("SELECT body FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?", [sessionId, afterSeq, limit]);
  return rows.map((r) => JSON.parse(r.body) as SessionEvent);
}

/** The notification frames of events with seq > afterSeq, in order, at most `limit` (no parse, no re-encode). */
export async function readEventFrames(db: Db, sessionId: string, afterSeq: number, limit: number): Promise<Array<{ readonly seq: number; readonly frame: string }>> {
  await flushEvents(db);
  const rows = await db.all<{ seq: number; body: string }>("SELECT seq, body FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?", [sessionId, afterSeq, limit]);
  return rows.map((r) => ({ seq: r.seq, frame: eventFrameFromBody(r.body) }));
}

/** Events 1…throughSeq, in order. */
export async function readEventsThrough(db: Db, sessionId: string, throughSeq: number): Promise<SessionEvent[]> {
  await flushEvents(db);
  const rows = await db.all<{ body: string }>("SELECT body FROM events WHERE session_id = ? AND seq <= ? ORDER BY seq", [sessionId, throughSeq]);
  return rows.map((r) => JSON.parse(r.body) as SessionEvent);
}
