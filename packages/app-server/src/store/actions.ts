/** Action records (`action.required` and its answer). */
import type { Action } from "@lineup/protocol";
import type { Db } from "./sql.js";

export async function findAction(db: Db, sessionId: string, actionId: string): Promise<Action | undefined> {
  const row = await db.get<{ record: string }>("SELECT record FROM actions WHERE session_id = ? AND action_id = ?", [sessionId, actionId]);
  return row === undefined ? undefined : (JSON.parse(row.record) as Action);
}

export async function saveAction(db: Db, action: Action): Promise<void> {
  await db.run(
    `INSERT INTO actions (session_id, action_id, state, record) VALUES (?, ?, ?, ?)
     ON CONFLICT (session_id, action_id) DO UPDATE SET state = excluded.state, record = excluded.record`,
    [action.session_id, action.action_id, action.state, JSON.stringify(action)],
  );
}

export async function pendingActions(db: Db, sessionId: string): Promise<Action[]> {
  const rows = await db.all<{ record: string }>("SELECT record FROM actions WHERE session_id = ? AND state = 'pending' ORDER BY rowid", [sessionId]);
  return rows.map((r) => JSON.parse(r.record) as Action);
}
