/**
 * The per-session log. `appendEvent` must run inside the write transaction: it takes the next seq
 * from `sessions.last_seq` and stores the event and the new head together, so seqs are gapless and
 * a rolled-back write leaves no trace.
 */
import type { ActorRole, JsonObject, SessionEvent, SessionEventKind } from "@lineup/protocol";
import type { Db } from "./database.js";
import { eventFrameFromBody, rememberEventFrame } from "../event-frames.js";
import { stmt } from "./statements.js";

export interface Actor {
  readonly role: ActorRole;
  readonly id: string;
}

export function headSeq(db: Db, sessionId: string): number | undefined {
  const row = stmt(db, "SELECT last_seq FROM sessions WHERE session_id = ?").get(sessionId) as { last_seq: number } | undefined;
  return row?.last_seq;
}

export function appendEvent(db: Db, sessionId: string, kind: SessionEventKind, actor: Actor, data: JsonObject, createdAt: string): SessionEvent {
  // One statement takes the next seq and stores the new head.
  const row = stmt(db, "UPDATE sessions SET last_seq = last_seq + 1 WHERE session_id = ? RETURNING last_seq").get(sessionId) as { last_seq: number } | undefined;
  if (row === undefined) throw new Error(`appendEvent: no session ${sessionId}`);
  const seq = row.last_seq;
  const event = { session_id: sessionId, seq, kind, created_at: createdAt, actor: { role: actor.role, id: actor.id }, data } as SessionEvent;
  const body = JSON.stringify(event);
  stmt(db, "INSERT INTO events (session_id, seq, kind, body, created_at) VALUES (?, ?, ?, ?, ?)").run(sessionId, seq, kind, body, createdAt);
  rememberEventFrame(event, body);
  return event;
}

/** Events with seq > afterSeq, in order, at most `limit`. */
export function readEvents(db: Db, sessionId: string, afterSeq: number, limit: number): SessionEvent[] {
  const rows = stmt(db, "SELECT body FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?").all(sessionId, afterSeq, limit) as Array<{ body: string }>;
  return rows.map((r) => JSON.parse(r.body) as SessionEvent);
}

/** The notification frames of events with seq > afterSeq, in order, at most `limit` (no parse, no re-encode). */
export function readEventFrames(db: Db, sessionId: string, afterSeq: number, limit: number): Array<{ readonly seq: number; readonly frame: string }> {
  const rows = stmt(db, "SELECT seq, body FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?").all(sessionId, afterSeq, limit) as Array<{ seq: number; body: string }>;
  return rows.map((r) => ({ seq: r.seq, frame: eventFrameFromBody(r.body) }));
}

/** Events 1…throughSeq, in order. */
export function readEventsThrough(db: Db, sessionId: string, throughSeq: number): SessionEvent[] {
  const rows = stmt(db, "SELECT body FROM events WHERE session_id = ? AND seq <= ? ORDER BY seq").all(sessionId, throughSeq) as Array<{ body: string }>;
  return rows.map((r) => JSON.parse(r.body) as SessionEvent);
}
