/**
 * The order of a person's conversations (App Server sessions): by when each was started, oldest first. `created_at`
 * is ISO 8601 in UTC, so text order is time order; those started in the same instant go by id, and one with no start
 * time (a record kept before it was) goes first. The same order on every device and after every restart.
 */
export function compareSessionStarts(aStarted: string | undefined, aId: string, bStarted: string | undefined, bId: string): number {
  const a = aStarted ?? "";
  const b = bStarted ?? "";
  if (a !== b) return a < b ? -1 : 1;
  return aId < bId ? -1 : aId > bId ? 1 : 0;
}

/**
 * The order a person's conversations are listed in: the one where something was last said first (`active_at`, or the
 * start for one where nothing was said yet), newer first, the same instant by id (`compareSessionStarts` reversed).
 * Both are the AppServer's times, so the order is the same on every device of the person and after a restart.
 */
export function compareLastActivity(a: { readonly conversation_id: string; readonly active_at?: string; readonly created_at?: string }, b: { readonly conversation_id: string; readonly active_at?: string; readonly created_at?: string }): number {
  return compareSessionStarts(b.active_at ?? b.created_at, b.conversation_id, a.active_at ?? a.created_at, a.conversation_id);
}

/** The event kinds in which the person or the agent says something (`isActivityEvent`; also the AppServer's SQL). */
export const ACTIVITY_EVENT_KINDS = ["turn.started", "turn.completed", "turn.failed", "action.required", "action.responded"] as const;
const ACTIVITY_KINDS: ReadonlySet<string> = /* @__PURE__ */ new Set(ACTIVITY_EVENT_KINDS);

/**
 * Whether a log event of `kind` with `data` is one in which the person or the agent said something: a turn asked for
 * or answered, an action asked for or answered, a message (an `envelope` event carrying `lineup.message`). Not the
 * tools' traffic, an inventory published by an app install, artifacts or the session's start (its `created_at` stands
 * for it). The newest such event's `created_at` is when something was last said in a conversation (`Session.active_at`,
 * the Runtime's `active_at`): conversations are listed by it, newest first (`compareLastActivity`).
 */
export function isActivityEvent(kind: string, data: unknown): boolean {
  if (ACTIVITY_KINDS.has(kind)) return true;
  return kind === "envelope" && (data as { envelope?: { type?: unknown } } | null)?.envelope?.type === "lineup.message";
}
