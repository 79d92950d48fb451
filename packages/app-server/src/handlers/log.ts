/** `agentSession/subscribe`, `/unsubscribe`, `/events/read`: the log, paged and followed. */
import type { MethodParams, MethodResult } from "@lineup/protocol";
import { readEvents } from "../store/log.js";
import { refuse, visibleSession, type CallContext } from "./context.js";

function checkCursor(afterSeq: number, head: number): void {
  if (afterSeq > head) throw refuse("cursor_invalid", `after_seq ${afterSeq} is beyond the head ${head}`, "/after_seq");
}

export async function subscribe(ctx: CallContext, params: MethodParams<"agentSession/subscribe">): Promise<MethodResult<"agentSession/subscribe">> {
  const hub = ctx.services.hub;
  // The session's row carries its head, and the hub keeps what commits while it is read: one read for both.
  const watch = hub.watchHead(params.session_id);
  try {
    const session = await visibleSession(ctx, params.session_id);
    const head = session.last_seq;
    checkCursor(params.after_seq, head);
    const sub = hub.subscribe(ctx.connection, params.session_id, session.agent_id, params.after_seq, head, watch.headAfter(head));
    // Events flow only after the client has the result, so it knows head_seq before the first event.
    ctx.afterReply(() => {
      ctx.services.presence.tell(sub);
      sub.start();
    });
    return { session_id: params.session_id, after_seq: params.after_seq, head_seq: head };
  } finally {
    watch.release();
  }
}

export function unsubscribe(ctx: CallContext, params: MethodParams<"agentSession/unsubscribe">): MethodResult<"agentSession/unsubscribe"> {
  const sub = ctx.connection.subscriptions.get(params.session_id);
  sub?.stop();
  return { session_id: params.session_id, was_subscribed: sub !== undefined };
}

export async function readLog(ctx: CallContext, params: MethodParams<"agentSession/events/read">): Promise<MethodResult<"agentSession/events/read">> {
  const head = (await visibleSession(ctx, params.session_id)).last_seq;
  const db = ctx.services.db;
  checkCursor(params.after_seq, head);
  const events = await readEvents(db, params.session_id, params.after_seq, params.limit ?? ctx.services.limits.max_page_events);
  const last = events[events.length - 1]?.seq ?? params.after_seq;
  return { session_id: params.session_id, events, head_seq: head, has_more: last < head };
}
