/**
 * Message history, paged from the store and never held whole in memory (spec 5.4 `list`).
 *
 * Three ways to page, all returning messages oldest first:
 * - forward (the default, or `after`): from the oldest message, or just after a cursor; `next_cursor`
 *   when newer messages follow;
 * - backward (`before`): the `limit` messages just before a cursor; `prev_cursor` when older ones exist;
 * - latest (`latest: true`): the newest `limit` messages; `prev_cursor` when older ones exist.
 */
import { LineUpError } from "@lineup/protocol";
import { RUNTIME_COLLECTIONS as C } from "./runtime-schema.js";
import { withAnswers, type AgentAppMessage } from "./inbox.js";
import type { RuntimeStore } from "./store.js";

export interface HistoryRequest {
  readonly conversation_id?: string;
  /** A `cursor` (or `next_cursor`) from an earlier page: the page starts after it. Not with `before` or `latest`. */
  readonly after?: string;
  /** A `cursor` (or `prev_cursor`) from an earlier page: the page is the `limit` messages just before it. Not with `after` or `latest`. */
  readonly before?: string;
  /** With neither `after` nor `before`: the newest page instead of the oldest. */
  readonly latest?: boolean;
  /** 1–500, default 50. */
  readonly limit?: number;
}

export interface AgentMessagePage {
  /** Oldest first, whichever way the page was read. */
  readonly messages: readonly AgentAppMessage[];
  /** Forward pages only: present when more messages follow; pass it as `after`. */
  readonly next_cursor?: string;
  /** Backward and latest pages only: present when older messages exist; pass it as `before`. */
  readonly prev_cursor?: string;
}

export const MAX_HISTORY_PAGE = 500;

/** The cursor of a message is its inbox key without the app prefix: `<conversation_id>/<seq>`. */
export function messageCursor(conversationId: string, paddedSeq: string): string {
  return `${conversationId}/${paddedSeq}`;
}

/** Rejects (LineUpError `invalid_params`) when `after`, `before` and `latest: true` are combined. */
export async function listHistory(store: RuntimeStore, appScope: string, request: HistoryRequest = {}): Promise<AgentMessagePage> {
  if (request.after !== undefined && request.before !== undefined) {
    throw new LineUpError("invalid_params", "list takes `after` or `before`, not both", { path: "/before" });
  }
  if (request.latest === true && (request.after !== undefined || request.before !== undefined)) {
    throw new LineUpError("invalid_params", "`latest` reads the newest page and takes neither `after` nor `before`", { path: "/latest" });
  }
  const limit = Math.max(1, Math.min(MAX_HISTORY_PAGE, Math.floor(request.limit ?? 50)));
  const prefix = request.conversation_id === undefined ? `${appScope}/` : `${appScope}/${request.conversation_id}/`;
  if (request.before !== undefined || request.latest === true) {
    const rows = await store.range(C.inbox, {
      prefix,
      ...(request.before === undefined ? {} : { lt: `${appScope}/${request.before}` }),
      limit: limit + 1,
      reverse: true,
    });
    const page = rows
      .slice(0, limit)
      .reverse()
      .map((row) => row.value as unknown as AgentAppMessage);
    const first = page[0];
    const messages = await withAnswers(store, page);
    return rows.length > limit && first !== undefined ? { messages, prev_cursor: first.cursor } : { messages };
  }
  const rows = await store.range(C.inbox, {
    prefix,
    ...(request.after === undefined ? {} : { gt: `${appScope}/${request.after}` }),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit).map((row) => row.value as unknown as AgentAppMessage);
  const last = page.at(-1);
  const messages = await withAnswers(store, page);
  return rows.length > limit && last !== undefined ? { messages, next_cursor: last.cursor } : { messages };
}
