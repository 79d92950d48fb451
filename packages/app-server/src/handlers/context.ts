/** What every handler gets, and the small helpers they share. */
import { LineUpError, type ErrorCode, type ServerLimits, type Session } from "@lineup/protocol";
import type { Clock, IdSource } from "../clock.js";
import type { Connection } from "../connection.js";
import type { ConnectionDirectory } from "../directory.js";
import type { IdempotentWrites } from "../idempotency.js";
import type { Logger } from "../logger.js";
import type { ServerMetrics } from "../metrics.js";
import type { Presence } from "../presence.js";
import type { Db } from "../store/sql.js";
import type { Actor } from "../store/log.js";
import { principalId, type Principal } from "../store/principals.js";
import { findVisibleSession, isVisibleSession } from "../store/sessions.js";
import type { Hub } from "../subscriptions.js";
import type { WriteContext, WriteQueue } from "../write-queue.js";

export interface Services {
  readonly db: Db;
  readonly writes: WriteQueue;
  readonly idempotent: IdempotentWrites;
  readonly hub: Hub;
  /** Initialized connections by agent and by user, for `agentSession/bound`. */
  readonly directory: ConnectionDirectory;
  /** Whether an agent is connected, to this process or (PostgreSQL) to another one on the same database. */
  readonly presence: Presence;
  readonly limits: ServerLimits;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly logger: Logger;
  readonly metrics: ServerMetrics;
  readonly serverInfo: { readonly name: string; readonly version: string };
}

export interface CallContext {
  readonly services: Services;
  readonly connection: Connection;
  readonly principal: Principal;
  /** Runs after this request's response (or its batch's reply) has been handed to the socket. */
  afterReply(fn: () => void): void;
}

export function refuse(code: ErrorCode, message: string, path?: string): LineUpError {
  return new LineUpError(code, message, path === undefined ? undefined : { path });
}

export function actorOf(principal: Principal): Actor {
  return { role: principal.role, id: principalId(principal) };
}

export const SERVER_ACTOR: Actor = { role: "server", id: "app-server" };

/** The session if `principal` may see it; otherwise `session_not_found` (existence is not revealed). */
export async function requireVisibleSession(db: Db, principal: Principal, sessionId: string): Promise<Session> {
  const session = await findVisibleSession(db, principal, sessionId);
  if (session === undefined) throw refuse("session_not_found", `no session ${sessionId}`, "/session_id");
  return session;
}

/** For reads: they run after the connection's earlier writes committed (program order), so the committed state is the one to check. */
export function visibleSession(ctx: CallContext, sessionId: string): Promise<Session> {
  return requireVisibleSession(ctx.services.db, ctx.principal, sessionId);
}

/**
 * For writes: the visibility check as an idempotency precheck, run inside the write's transaction
 * so it sees a session started by an earlier, still uncommitted write of the same connection.
 */
export function sessionPrecheck(principal: Principal, sessionId: string): (w: WriteContext) => Promise<void> {
  return async (w) => {
    if (!(await isVisibleSession(w.db, principal, sessionId))) throw refuse("session_not_found", `no session ${sessionId}`, "/session_id");
  };
}
