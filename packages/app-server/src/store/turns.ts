/** Turn records, and the open ones in queue order (by the seq of their `turn.started`). */
import type { Turn } from "@lineup/protocol";
import type { Db } from "./database.js";
import { stmt } from "./statements.js";

export function findTurn(db: Db, sessionId: string, turnId: string): Turn | undefined {
  const row = stmt(db, "SELECT record FROM turns WHERE session_id = ? AND turn_id = ?").get(sessionId, turnId) as { record: string } | undefined;
  return row === undefined ? undefined : (JSON.parse(row.record) as Turn);
}

export function saveTurn(db: Db, turn: Turn): void {
  stmt(
    db,
    `INSERT INTO turns (session_id, turn_id, started_seq, state, record) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (session_id, turn_id) DO UPDATE SET state = excluded.state, record = excluded.record`,
  ).run(turn.session_id, turn.turn_id, turn.started_seq, turn.state, JSON.stringify(turn));
}

/** Running turn first, then queued turns in the order they were started. */
export function openTurns(db: Db, sessionId: string): Turn[] {
  const rows = stmt(
    db,
    "SELECT record FROM turns WHERE session_id = ? AND state IN ('running', 'queued') ORDER BY CASE state WHEN 'running' THEN 0 ELSE 1 END, started_seq",
  ).all(sessionId) as Array<{ record: string }>;
  return rows.map((r) => JSON.parse(r.record) as Turn);
}
