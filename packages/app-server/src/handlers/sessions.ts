/** `agentSession/start`, `/read`, `/list`. */
import type { MethodParams, MethodResult, Session } from "@lineup/protocol";
import { pendingActions } from "../store/actions.js";
import { agentAvailableTo } from "../store/accounts.js";
import { canSee, findSession, insertSession, listVisibleSessions } from "../store/sessions.js";
import { openTurns } from "../store/turns.js";
import type { WriteContext } from "../write-queue.js";
import { announceBoundElsewhere, announceBoundSession } from "./session-bound.js";
import { actorOf, refuse, visibleSession, type CallContext } from "./context.js";

const sameBinding = (s: Session, p: MethodParams<"agentSession/start">) => s.app_scope === p.app_scope && s.workspace_id === p.workspace_id && s.agent_id === p.agent_id;

export function startSession(ctx: CallContext, params: MethodParams<"agentSession/start">) {
  const { principal, services } = ctx;
  if (principal.role !== "device") throw refuse("method_not_found", "agentSession/start is a device method");
  // Refused before the idempotency step: another user's session is not touched, not even by a record.
  const precheck = async (w: WriteContext) => {
    const existing = params.session_id === undefined ? undefined : await findSession(w.db, params.session_id);
    if (existing !== undefined && !canSee(principal, existing)) throw refuse("forbidden", `session ${params.session_id} belongs to another user`, "/session_id");
  };
  return services.idempotent.run(principal, "agentSession/start", params, async (w): Promise<MethodResult<"agentSession/start">> => {
    const sessionId = params.session_id ?? services.ids.next("s");
    const found = await findSession(w.db, sessionId);
    if (found !== undefined) {
      if (!canSee(principal, found)) throw refuse("forbidden", `session ${sessionId} belongs to another user`, "/session_id");
      if (!sameBinding(found, params)) throw refuse("invalid_state", `session ${sessionId} exists with another app scope, workspace or agent`, "/session_id");
      return { session: found, created: false };
    }
    // Another user's agent, or a revoked one, is not there for this user.
    if (!(await agentAvailableTo(w.db, params.agent_id, principal.user_id))) throw refuse("not_found", `no agent ${params.agent_id}`, "/agent_id");
    const session: Session = {
      session_id: sessionId,
      app_scope: params.app_scope,
      workspace_id: params.workspace_id,
      owner_user_id: principal.user_id,
      agent_id: params.agent_id,
      state: "active",
      created_at: w.now,
      last_seq: 0,
      inventory_revision: 0,
    };
    if (params.title !== undefined) session.title = params.title;
    if (params.business_object_ref !== undefined) session.business_object_ref = params.business_object_ref;
    await insertSession(w.db, session);
    await w.append(sessionId, "session.started", actorOf(principal), { session: { ...session, last_seq: 1 } });
    const committed = (await findSession(w.db, sessionId))!;
    await announceBoundElsewhere(w.db, sessionId);
    w.afterCommit(() => announceBoundSession(services.directory, committed, ctx.connection));
    return { session: committed, created: true };
  }, precheck);
}

export async function readSession(ctx: CallContext, params: MethodParams<"agentSession/read">): Promise<MethodResult<"agentSession/read">> {
  const session = await visibleSession(ctx, params.session_id);
  if (params.workspace_id !== undefined && session.workspace_id !== params.workspace_id) throw refuse("session_not_found", `no session ${params.session_id} in workspace ${params.workspace_id}`, "/session_id");
  const db = ctx.services.db;
  return { session, open_turns: await openTurns(db, session.session_id), pending_actions: await pendingActions(db, session.session_id) };
}

export async function listSessions(ctx: CallContext, params: MethodParams<"agentSession/list">): Promise<MethodResult<"agentSession/list">> {
  let before: number | undefined;
  if (params.cursor !== undefined) {
    const match = /^o([1-9][0-9]{0,15})$/.exec(params.cursor);
    if (match === null) throw refuse("invalid_params", "cursor was not issued by this server", "/cursor");
    before = Number(match[1]);
  }
  const filter: Parameters<typeof listVisibleSessions>[2] = { limit: params.limit ?? 50 };
  if (before !== undefined) filter.before = before;
  if (params.app_scope !== undefined) filter.app_scope = params.app_scope;
  if (params.workspace_id !== undefined) filter.workspace_id = params.workspace_id;
  return await listVisibleSessions(ctx.services.db, ctx.principal, filter);
}
