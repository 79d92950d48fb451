/** What every handler gets, and the small helpers they share. */
import { LineUpError, type ErrorCode, type ServerLimits, type Session } from "@lineup/protocol";
import type { Clock, IdSource } from "../clock.js";
import type { Connection } from "../connection.js";
import type { IdempotentWrites } from "../idempotency.js";
import type { Logger } from "../logger.js";
import type { Db } from "../store/database.js";
import type { Actor } from "../store/log.js";
import { principalId, type Principal } from "../store/principals.js";
import { findVisibleSession } from "../store/sessions.js";
import type { Hub } from "../subscriptions.js";
import type { WriteQueue } from "../write-queue.js";

export interface Services {
  readonly db: Db;
  readonly writes: WriteQueue;
  readonly idempotent: IdempotentWrites;
  readonly hub: Hub;
  readonly limits: ServerLimits;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly logger: Logger;
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

/** The session if the caller may see it; otherwise `session_not_found` (existence is not revealed). */
export function visibleSession(ctx: CallContext, sessionId: string): Session {
  const session = findVisibleSession(ctx.services.db, ctx.principal, sessionId);
  if (session === undefined) throw refuse("session_not_found", `no session ${sessionId}`, "/session_id");
  return session;
}
