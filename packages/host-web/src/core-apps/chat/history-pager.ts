/**
 * History paged from the Runtime's store: the chat opens a conversation at its newest page and loads
 * older pages as the person scrolls up, so a long history is never held (or rendered) whole.
 *
 * The SDK's `agentMessages.list` pages forward only (oldest first, `after` a cursor). To open at the end
 * the pager walks forward once, remembering only each page's starting cursor (one string per page) and
 * keeping the last pages' messages; `loadOlder` re-reads an earlier page from its remembered cursor.
 * A `before` cursor in the SDK would make the walk unnecessary (see the host's report).
 */
import type { AgentAppMessage, AgentMessagePage } from "@lineup/app-sdk";

export interface HistorySource {
  list(request: { conversation_id?: string; after?: string; limit?: number }): Promise<AgentMessagePage>;
}

export class HistoryPager {
  /** `starts[i]` is the `after` cursor that reads page i (undefined for the first page). */
  private readonly starts: (string | undefined)[] = [];
  /** Index of the oldest page handed out so far. */
  private oldest = 0;

  constructor(
    private readonly source: HistorySource,
    private readonly conversationId: string,
    private readonly pageSize = 200,
  ) {}

  /** The newest messages (the last two pages, oldest first). */
  async openLatest(): Promise<AgentAppMessage[]> {
    this.starts.length = 0;
    let after: string | undefined;
    let previous: readonly AgentAppMessage[];
    let last: readonly AgentAppMessage[] = [];
    for (;;) {
      const page = await this.source.list({ conversation_id: this.conversationId, limit: this.pageSize, ...(after === undefined ? {} : { after }) });
      this.starts.push(after);
      previous = last;
      last = page.messages;
      if (page.next_cursor === undefined || page.messages.length === 0) break;
      after = page.next_cursor;
    }
    this.oldest = Math.max(0, this.starts.length - (previous.length > 0 ? 2 : 1));
    return [...previous, ...last];
  }

  hasOlder(): boolean {
    return this.oldest > 0;
  }

  /** The page before the oldest one handed out, oldest first; empty when there is none. */
  async loadOlder(): Promise<AgentAppMessage[]> {
    if (this.oldest === 0) return [];
    const index = this.oldest - 1;
    const after = this.starts[index];
    const page = await this.source.list({ conversation_id: this.conversationId, limit: this.pageSize, ...(after === undefined ? {} : { after }) });
    this.oldest = index;
    return [...page.messages];
  }
}
