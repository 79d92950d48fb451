/** Action records (`action.required` and its answer). */
import type { Action } from "@lineup/protocol";
import type { Db } from "./database.js";
import { stmt } from "./statements.js";

export function findAction(db: Db, sessionId: string, actionId: string): Action | undefined {
  const row = stmt(db, "SELECT record FROM actions WHERE session_id = ? AND action_id = ?").get(sessionId, actionId) as { record: string } | undefined;
  return row === undefined ? undefined : (JSON.parse(row.record) as Action);
}

export function saveAction(db: Db, action: Action): void {
  stmt(
    db,
    `INSERT INTO actions (session_id, action_id, state, record) VALUES (?, ?, ?, ?)
     ON CONFLICT (session_id, action_id) DO UPDATE SET state = excluded.state, record = excluded.record`,
  ).run(action.session_id, action.action_id, action.state, JSON.stringify(action));
}

export function pendingActions(db: Db, sessionId: string): Action[] {
  const rows = stmt(db, "SELECT record FROM actions WHERE session_id = ? AND state = 'pending' ORDER BY rowid").all(sessionId) as Array<{ record: string }>;
  return rows.map((r) => JSON.parse(r.record) as Action);
}
