/**
 * Keeping a session's inventory on the AppServer in step with this device (docs/app-server-protocol.md section 9).
 * The revision counter is the session's, shared by every device of its user that publishes to it; the session's
 * inventory is its latest publication, and only the device that made it answers the agent's tool calls.
 *
 * - What the server says of the session's revision (its log's `inventory.published` records, its session list)
 *   is kept, so this device's next publication goes above it.
 * - A publication the server refuses as stale (`stale_inventory_revision`: another device published meanwhile) is
 *   published again above the server's revision as soon as that is known, from the log or the session list the
 *   refusal asks for. Each new try needs a higher revision from the server, so the tries never outnumber the other
 *   devices' publications: no timer, no loop.
 * - A server whose session list at connect is below this device's last acknowledged publication has lost it (a
 *   restored backup, a new server with the same sessions, a wiped inventory): the inventory is published again.
 */
import type { JsonObject, Session, SessionEvent } from "@lineup/protocol";
import { answersToolCalls, inventoryLost, publishedRevisionOf, withServerReport } from "../../tools/inventory.js";
import { republishInventories, updateInventoryRecord } from "../inventories.js";
import type { RuntimeInput, TransitionResult } from "../inputs.js";
import type { RuntimeState } from "../state.js";
import { stepAfter, type Step } from "../step.js";
import type { TransitionEnv } from "./env.js";

/**
 * The server's answer to one of this device's `inventory/publish` requests (`before` is the state the answer met,
 * `result` what the outbox made of it): applied, the revision is acknowledged; refused as stale (the outbox has
 * dropped the entry: a new publication replaces it), the inventory goes again above the server's revision.
 */
export function settleInventoryPublication(before: RuntimeState, input: Extract<RuntimeInput, { kind: "outbox.settled" }>, result: TransitionResult, env: TransitionEnv): TransitionResult {
  const entry = before.outbox.get(input.order);
  if (entry === undefined || entry.status !== "pending" || entry.method !== "inventory/publish") return result;
  const revision = (entry.params as JsonObject)["revision"];
  if (typeof revision !== "number") return result;
  const step = stepAfter(result);
  if (input.outcome.status === "applied") {
    updateInventoryRecord(step, env, entry.conversation_id, (record) => {
      const acknowledged = withServerReport(record, { revision });
      return (record.acknowledged ?? 0) >= revision ? acknowledged : { ...acknowledged, acknowledged: revision };
    });
    return step.result();
  }
  // Refused as stale, the entry is gone already (onOutboxSettled: a new publication supersedes it).
  if (input.outcome.code !== "stale_inventory_revision") return result;
  // Only the latest publication matters: an earlier one refused after a later was queued changes nothing.
  const agentId = step.state.conversations.get(entry.conversation_id)?.agent_id;
  if (agentId === undefined || publishedRevisionOf(step.state.inventory, agentId, entry.conversation_id)?.revision !== revision) return step.result();
  // The refusal says only that the server holds this revision or a higher one; a report (the log, the session list)
  // says which. One already known publishes again now; otherwise the session list is asked for.
  updateInventoryRecord(step, env, entry.conversation_id, (current) => ({ ...current, refused: true }));
  if (publishedRevisionOf(step.state.inventory, agentId, entry.conversation_id)?.refused === true) step.effects.push({ kind: "relist" });
  return step.result();
}

/** An `inventory.published` record in a followed session's log: the session's revision and who published it. */
export function followInventoryEvent(before: RuntimeState, event: SessionEvent, result: TransitionResult, env: TransitionEnv): TransitionResult {
  if (event.kind !== "inventory.published" || event.actor.role !== "device") return result;
  // Applied: the cursor moved onto it (a duplicate or a gap leaves the cursor where it was).
  if (result.state.conversations.get(event.session_id)?.cursor !== event.seq || before.conversations.get(event.session_id)?.cursor === event.seq) return result;
  const revision = (event.data as { revision?: unknown } | null)?.revision;
  if (typeof revision !== "number") return result;
  const step = stepAfter(result);
  updateInventoryRecord(step, env, event.session_id, (record) => withServerReport(record, { revision, publisher: event.actor.id }), true);
  return step.result();
}

/**
 * The server's session list: each session's revision is kept, and an inventory is published again when the server
 * refused it as stale and now reports a revision at or above it, or — in the list a connect asks for — when the
 * server no longer holds this device's last acknowledged publication.
 */
export function reconcileListedInventories(step: Step, env: TransitionEnv, sessions: readonly Session[], atConnect: boolean): void {
  const lost = new Set<string>();
  for (const session of sessions) {
    const conversation = step.state.conversations.get(session.session_id);
    if (conversation === undefined) continue;
    if (atConnect && inventoryLost(publishedRevisionOf(step.state.inventory, conversation.agent_id, session.session_id), session.inventory_revision)) {
      lost.add(session.session_id);
      step.audit.push({ type: "inventory.lost", conversation_id: session.session_id, detail: `the server reports revision ${session.inventory_revision}, below this device's acknowledged one` });
      continue;
    }
    if (session.inventory_revision > 0) updateInventoryRecord(step, env, session.session_id, (record) => withServerReport(record, { revision: session.inventory_revision }), true);
  }
  if (lost.size > 0) republishInventories(step, env, lost, lost);
}

/** Whether this device answers the agent's tool calls in the conversation now (`answersToolCalls`). */
export function answersCallsIn(state: RuntimeState, conversationId: string): boolean {
  const conversation = state.conversations.get(conversationId);
  if (conversation === undefined) return true;
  return answersToolCalls(publishedRevisionOf(state.inventory, conversation.agent_id, conversationId), state.identity.device_id);
}
