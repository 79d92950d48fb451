import { LineUpError } from "@lineup/protocol";
import { CHAT_APP_SCOPE } from "../../apps/core-app-registry.js";
import { acknowledgeWrites, inboxKey, parseMessageId } from "../../persistence/inbox.js";
import { asChunk, chunkKey, chunkOf, chunkWrite, isUnseen, withoutUnseen, type LogChunk } from "../../persistence/log-chunks.js";
import { RUNTIME_COLLECTIONS as C } from "../../persistence/runtime-schema.js";
import type { StoreWrite } from "../../persistence/store.js";
import { readId, unchanged, type ReadKey, type Reads, type RuntimeInput, type TransitionResult } from "../inputs.js";
import type { Conversation, RuntimeState } from "../state.js";

type AcknowledgeInput = Extract<RuntimeInput, { kind: "acknowledge" }>;

export function acknowledgeReads(input: AcknowledgeInput): ReadKey[] {
  return input.message_ids.flatMap((id) => {
    const parsed = parseMessageId(id);
    if (parsed === undefined) return [];
    const key = inboxKey(input.app_scope, parsed.conversation_id, parsed.seq);
    // A display message's pending mark is in its log chunk; an explicit-ack one has its own row.
    const chunk: ReadKey = { collection: C.logChunks, key: chunkKey(parsed.conversation_id, chunkOf(parsed.seq)) };
    return input.displayed === true ? [chunk] : [{ collection: C.inboxPending, key }, { collection: C.inbox, key }, chunk];
  });
}

/**
 * Acknowledges inbox messages of one app: they leave the pending set and are not redelivered. Idempotent
 * for messages already acknowledged; a message this app never received is refused (`not_found`). The
 * Runtime's own acknowledgement of display messages it delivered (`displayed`) reads only their marks.
 */
export function onAcknowledge(state: RuntimeState, input: AcknowledgeInput, reads: Reads): TransitionResult {
  const writes: StoreWrite[] = [];
  const acknowledged: string[] = [];
  const conversations = new Map(state.conversations);
  const chunks = new Map<string, LogChunk>();
  const chunkAt = (key: string): LogChunk => chunks.get(key) ?? asChunk(reads.get(readId({ collection: C.logChunks, key })));
  for (const id of input.message_ids) {
    const parsed = parseMessageId(id);
    const key = parsed === undefined ? undefined : inboxKey(input.app_scope, parsed.conversation_id, parsed.seq);
    const stored = key === undefined ? undefined : (reads.get(readId({ collection: C.inbox, key })) as { delivery?: unknown } | undefined);
    if (parsed === undefined || key === undefined || (input.displayed !== true && stored === undefined)) {
      return unchanged(state, { error: new LineUpError("not_found", `app ${input.app_scope} has no message ${id}`) });
    }
    if (acknowledged.includes(id)) continue;
    if (input.displayed === true || stored?.delivery === "display") {
      const at = chunkKey(parsed.conversation_id, chunkOf(parsed.seq));
      const chunk = chunkAt(at);
      if (!isUnseen(chunk, input.app_scope, parsed.seq)) continue;
      chunks.set(at, withoutUnseen(chunk, input.app_scope, parsed.seq));
    } else {
      if (reads.get(readId({ collection: C.inboxPending, key })) === undefined) continue;
      writes.push(...acknowledgeWrites(key));
    }
    acknowledged.push(id);
    const conversation: Conversation | undefined = conversations.get(parsed.conversation_id);
    if (conversation !== undefined && input.app_scope === CHAT_APP_SCOPE) {
      conversations.set(parsed.conversation_id, { ...conversation, unread: Math.max(0, conversation.unread - 1) });
    }
  }
  for (const [at, chunk] of chunks) writes.push(chunkWrite(at, chunk));
  if (acknowledged.length === 0) return unchanged(state);
  return {
    state: { ...state, conversations },
    writes,
    effects: [],
    deliveries: [{ kind: "acknowledged", app_scope: input.app_scope, message_ids: acknowledged }],
    audit: [],
  };
}
