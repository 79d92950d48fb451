/** `agentSession/subscribe`, `/unsubscribe`, `/events/read`: the log, paged and followed. */
import type { MethodParams, MethodResult } from "@lineup/protocol";
import { headSeq, readEvents } from "../store/log.js";
import { tellPresence } from "../subscriptions.js";
import { refuse, visibleSession, type CallContext } from "./context.js";

function checkCursor(afterSeq: number, head: number): void {
  if (afterSeq > head) throw refuse("cursor_invalid", `after_seq ${afterSeq} is beyond the head ${head}`, "/after_seq");
}

export async function subscribe(ctx: CallContext, params: MethodParams<"agentSession/subscribe">): Promise<MethodResult<"agentSession/subscribe">> {
  const session = await visibleSession(ctx, params.session_id);
  const head = (await headSeq(ctx.services.db, params.session_id)) ?? 0;
  checkCursor(params.after_seq, head);
  const sub = ctx.services.hub.subscribe(ctx.connection, params.session_id, session.agent_id, params.after_seq, head);
  // Events flow only after the client has the result, so it knows head_seq before the first event.
  ctx.afterReply(() => {
    const connected = ctx.services.presence.connected(session.agent_id);
    if (typeof connected === "boolean") tellPresence(sub, connected);
    else connected.then((now) => tellPresence(sub, now), (error: unknown) => ctx.services.logger.warn("presence lookup failed", { error: error instanceof Error ? error.message : String(error) }));
    sub.start();
  });
  return { session_id: params.session_id, after_seq: params.after_seq, head_seq: head };
}

export function unsubscribe(ctx: CallContext, params: MethodParams<"agentSession/unsubscribe">): MethodResult<"agentSession/unsubscribe"> {
  const sub = ctx.connection.subscriptions.get(params.session_id);
  sub?.stop();
  return { session_id: params.session_id, was_subscribed: sub !== undefined };
}

export async function readLog(ctx: CallContext, params: MethodParams<"agentSession/events/read">): Promise<MethodResult<"agentSession/events/read">> {
  await visibleSession(ctx, params.session_id);
  const db = ctx.services.db;
  const head = (await headSeq(db, params.session_id)) ?? 0;
  checkCursor(params.after_seq, head);
  const events = await readEvents(db, params.session_id, params.after_seq, params.limit ?? ctx.services.limits.max_page_events);
  const last = events[events.length - 1]?.seq ?? params.after_seq;
  return { session_id: params.session_id, events, head_seq: head, has_more: last < head };
}
