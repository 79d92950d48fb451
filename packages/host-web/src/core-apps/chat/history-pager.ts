/**
 * History paged from the Runtime's store: the chat opens a conversation at its newest page and loads
 * older pages as the person scrolls up, so a long history is never held (or rendered) whole.
 *
 * `openLatest` reads the newest page (`latest: true`); each `loadOlder` reads the page just before the
 * oldest one handed out (`before` its `prev_cursor`). One read per page, whatever the history's length.
 */
import type { AgentAppMessage, AgentMessagePage } from "@lineup/app-sdk";

export interface HistorySource {
  list(request: { conversation_id?: string; before?: string; latest?: boolean; limit?: number }): Promise<AgentMessagePage>;
}

export class HistoryPager {
  /** The `prev_cursor` of the oldest page handed out: undefined when there is nothing older (or nothing opened yet). */
  private older: string | undefined;

  constructor(
    private readonly source: HistorySource,
    private readonly conversationId: string,
    private readonly pageSize = 200,
  ) {}

  /** The newest page, oldest first. */
  async openLatest(): Promise<AgentAppMessage[]> {
    this.older = undefined;
    const page = await this.source.list({ conversation_id: this.conversationId, latest: true, limit: this.pageSize });
    this.older = page.prev_cursor;
    return [...page.messages];
  }

  hasOlder(): boolean {
    return this.older !== undefined;
  }

  /** The page before the oldest one handed out, oldest first; empty when there is none. */
  async loadOlder(): Promise<AgentAppMessage[]> {
    const before = this.older;
    if (before === undefined) return [];
    const page = await this.source.list({ conversation_id: this.conversationId, before, limit: this.pageSize });
    // A concurrent openLatest (re-open) owns the cursor now: keep its value.
    if (this.older === before) this.older = page.prev_cursor;
    return [...page.messages];
  }
}
