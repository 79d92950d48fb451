/**
 * `agentSession/bound`: after a new session committed, tell the bound agent (every connection of
 * it) and the owner's other device connections, so nobody has to poll `agentSession/list`. It is a
 * hint: sent once, to whoever is connected then, never replayed; on (re)connect the list is the truth.
 * On PostgreSQL the write also announces the session on `lineup_bound` (delivered on commit), so the
 * other server processes tell their own connections.
 */
import { encodeJsonRpc, jsonRpcNotification, type JsonObject, type Session } from "@lineup/protocol";
import type { Connection } from "../connection.js";
import type { ConnectionDirectory } from "../directory.js";
import { BOUND_CHANNEL } from "../store/notifications.js";
import { PostgresDb, type Db } from "../store/sql.js";

/** Inside the write transaction: on PostgreSQL, tells the other server processes about the new session when it commits. */
export async function announceBoundElsewhere(db: Db, sessionId: string): Promise<void> {
  if (db instanceof PostgresDb) await db.run(`SELECT pg_notify('${BOUND_CHANNEL}', ?)`, [`${db.origin} ${sessionId}`]);
}

/** Sends the notification (encoded once) to everyone concerned but `origin` (if any), which has the start result. */
export function announceBoundSession(directory: ConnectionDirectory, session: Session, origin?: Connection): void {
  const frame = encodeJsonRpc(jsonRpcNotification("agentSession/bound", { session: session as unknown as JsonObject }));
  for (const connection of [...directory.agentConnections(session.agent_id), ...directory.deviceConnections(session.owner_user_id)]) {
    if (connection !== origin) connection.sendEncoded(frame);
  }
}
