/**
 * How often one conversation hears about the agent's refused envelopes. Each refusal the agent is
 * answered for becomes a `lineup.runtime.notice` in the conversation — an outbox entry, a server write,
 * a line in the person's chat — so an agent that keeps sending what cannot be delivered would flood
 * all three. Per conversation, at most `NOTICE_BUDGET` notices go out in `NOTICE_WINDOW_MS`; the last
 * one says that more will not be announced for now. Every refusal is still audited; the window lives
 * in memory (a restart begins a new one).
 */
import type { Conversation, NoticeWindow } from "../state.js";

export const NOTICE_BUDGET = 5;
export const NOTICE_WINDOW_MS = 60_000;

/** What the last notice of a window adds to its message. */
export const NOTICE_BUDGET_SPENT = `More refusals in this conversation within a minute are recorded but not announced.`;

/**
 * The conversation with one more notice counted, and whether it is the window's last; undefined when the
 * window's notices are spent.
 */
export function takeNotice(conversation: Conversation, now: number): { readonly conversation: Conversation; readonly last: boolean } | undefined {
  const current = conversation.notices;
  const span: NoticeWindow = current !== undefined && now - current.since < NOTICE_WINDOW_MS && now >= current.since ? current : { since: now, sent: 0 };
  if (span.sent >= NOTICE_BUDGET) return undefined;
  const sent = span.sent + 1;
  return { conversation: { ...conversation, notices: { since: span.since, sent } }, last: sent === NOTICE_BUDGET };
}

/** Longest notice message (the envelope's payload limit for it). */
export const NOTICE_MESSAGE_MAX = 2000;

/** `message` within the notice limit, ending with the window's closing sentence when it is the last notice. */
export function noticeMessage(message: string, last: boolean): string {
  if (!last) return message.slice(0, NOTICE_MESSAGE_MAX);
  const room = NOTICE_MESSAGE_MAX - NOTICE_BUDGET_SPENT.length - 2;
  return `${message.slice(0, room).replace(/\.+$/, "")}. ${NOTICE_BUDGET_SPENT}`;
}
