import { LineUpError } from "@lineup/protocol";
import { CHAT_APP_SCOPE } from "../../app-lifecycle/core-app-registry.js";
import { acknowledgeWrites, inboxKey, parseMessageId } from "../../persistence/inbox.js";
import { asMarks, chunkKeyOf, marksWrite, unseenOf, withoutUnseen, type UnseenMarks } from "../../persistence/log-chunks.js";
import { RUNTIME_COLLECTIONS as C } from "../../persistence/runtime-schema.js";
import type { StoreWrite } from "../../persistence/store.js";
import { readId, unchanged, type ReadKey, type Reads, type RuntimeInput, type TransitionResult } from "../inputs.js";
import type { Conversation, RuntimeState } from "../state.js";
import { withPending } from "../backlog.js";

type AcknowledgeInput = Extract<RuntimeInput, { kind: "acknowledge" }>;

export function acknowledgeReads(input: AcknowledgeInput): ReadKey[] {
  return input.message_ids.flatMap((id) => {
    const parsed = parseMessageId(id);
    if (parsed === undefined) return [];
    // A display message's pending mark is in its chunk's unseen marks; an explicit-ack one has its own row.
    const marks: ReadKey = { collection: C.inboxUnseen, key: chunkKeyOf(parsed.conversation_id, parsed.seq) };
    if (input.displayed === true) return [marks];
    const key = inboxKey(input.app_scope, parsed.conversation_id, parsed.seq);
    return [{ collection: C.inboxPending, key }, { collection: C.inbox, key }, marks];
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
  const seen = new Set<string>();
  let conversations = state.conversations;
  // Per chunk: the app's display marks still set (read once) and the ones this acknowledgement clears.
  const chunks = new Map<string, { marks: UnseenMarks; unseen: Set<number>; cleared: Set<number> }>();
  const chunkAt = (key: string) => {
    let entry = chunks.get(key);
    if (entry === undefined) {
      const marks = asMarks(reads.get(readId({ collection: C.inboxUnseen, key })));
      chunks.set(key, (entry = { marks, unseen: new Set(unseenOf(marks, input.app_scope)), cleared: new Set() }));
    }
    return entry;
  };
  for (const id of input.message_ids) {
    const parsed = parseMessageId(id);
    // The Runtime's own acknowledgement of what it displayed needs no inbox row: the message is known.
    const key = parsed === undefined || input.displayed === true ? undefined : inboxKey(input.app_scope, parsed.conversation_id, parsed.seq);
    const stored = key === undefined ? undefined : (reads.get(readId({ collection: C.inbox, key })) as { delivery?: unknown } | undefined);
    if (parsed === undefined || (input.displayed !== true && (key === undefined || stored === undefined))) {
      return unchanged(state, { error: new LineUpError("not_found", `app ${input.app_scope} has no message ${id}`) });
    }
    if (seen.has(id)) continue;
    if (input.displayed === true || stored?.delivery === "display") {
      const entry = chunkAt(chunkKeyOf(parsed.conversation_id, parsed.seq));
      if (!entry.unseen.delete(parsed.seq)) continue;
      entry.cleared.add(parsed.seq);
    } else {
      if (key === undefined || reads.get(readId({ collection: C.inboxPending, key })) === undefined) continue;
      writes.push(...acknowledgeWrites(key));
      const conversation = conversations.get(parsed.conversation_id);
      if (conversation !== undefined) conversations = conversations.with(parsed.conversation_id, withPending(conversation, input.app_scope, -1));
    }
    seen.add(id);
    acknowledged.push(id);
    const conversation: Conversation | undefined = conversations.get(parsed.conversation_id);
    if (conversation !== undefined && input.app_scope === CHAT_APP_SCOPE) {
      conversations = conversations.with(parsed.conversation_id, { ...conversation, unread: Math.max(0, conversation.unread - 1) });
    }
  }
  for (const [at, { marks, cleared }] of chunks) if (cleared.size > 0) writes.push(marksWrite(at, withoutUnseen(marks, input.app_scope, cleared)));
  if (acknowledged.length === 0) return unchanged(state);
  return {
    state: { ...state, conversations },
    writes,
    effects: [],
    deliveries: [{ kind: "acknowledged", app_scope: input.app_scope, message_ids: acknowledged }],
    audit: [],
  };
}
