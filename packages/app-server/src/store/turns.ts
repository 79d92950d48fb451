/** Turn records, and the open ones in queue order (by the seq of their `turn.started`). */
import type { Turn } from "@lineup/protocol";
import type { Db } from "./sql.js";

export async function findTurn(db: Db, sessionId: string, turnId: string): Promise<Turn | undefined> {
  const row = await db.get<{ record: string }>("SELECT record FROM turns WHERE session_id = ? AND turn_id = ?", [sessionId, turnId]);
  return row === undefined ? undefined : (JSON.parse(row.record) as Turn);
}

export async function saveTurn(db: Db, turn: Turn): Promise<void> {
  await db.run(
    `INSERT INTO turns (session_id, turn_id, started_seq, state, record) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (session_id, turn_id) DO UPDATE SET state = excluded.state, record = excluded.record`,
    [turn.session_id, turn.turn_id, turn.started_seq, turn.state, JSON.stringify(turn)],
  );
}

/** Running turn first, then queued turns in the order they were started. */
export async function openTurns(db: Db, sessionId: string): Promise<Turn[]> {
  const rows = await db.all<{ record: string }>(
    "SELECT record FROM turns WHERE session_id = ? AND state IN ('running', 'queued') ORDER BY CASE state WHEN 'running' THEN 0 ELSE 1 END, started_seq",
    [sessionId],
  );
  return rows.map((r) => JSON.parse(r.record) as Turn);
}
