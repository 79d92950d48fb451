/**
 * Message history, paged from the store and never held whole in memory (spec 5.4 `list`).
 */
import { RUNTIME_COLLECTIONS as C } from "./runtime-schema.js";
import type { AgentAppMessage } from "./inbox.js";
import type { RuntimeStore } from "./store.js";

export interface HistoryRequest {
  readonly conversation_id?: string;
  /** A `cursor` (or `next_cursor`) from an earlier page: the page starts after it. */
  readonly after?: string;
  /** 1–500, default 50. */
  readonly limit?: number;
}

export interface AgentMessagePage {
  readonly messages: readonly AgentAppMessage[];
  /** Present when more messages follow; pass it as `after`. */
  readonly next_cursor?: string;
}

export const MAX_HISTORY_PAGE = 500;

/** The cursor of a message is its inbox key without the app prefix: `<conversation_id>/<seq>`. */
export function messageCursor(conversationId: string, paddedSeq: string): string {
  return `${conversationId}/${paddedSeq}`;
}

export async function listHistory(store: RuntimeStore, appScope: string, request: HistoryRequest = {}): Promise<AgentMessagePage> {
  const limit = Math.max(1, Math.min(MAX_HISTORY_PAGE, Math.floor(request.limit ?? 50)));
  const prefix = request.conversation_id === undefined ? `${appScope}/` : `${appScope}/${request.conversation_id}/`;
  const rows = await store.range(C.inbox, {
    prefix,
    ...(request.after === undefined ? {} : { gt: `${appScope}/${request.after}` }),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit).map((row) => row.value as unknown as AgentAppMessage);
  const last = page.at(-1);
  return rows.length > limit && last !== undefined ? { messages: page, next_cursor: last.cursor } : { messages: page };
}
