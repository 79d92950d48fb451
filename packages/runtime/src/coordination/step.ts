/**
 * The accumulator every transition handler folds into: one transition's next state, store writes,
 * effects, deliveries and audit drafts, and the outbox entries it queues (sent after the commit, in order).
 */
import type { JsonObject, JsonValue } from "@lineup/protocol";
import { newOutboxEntry, putOutboxEntry, type OutboxEntry, type OutboxMethod } from "../communication/outbox.js";
import { toTimestamp } from "../core/ports.js";
import { RUNTIME_COLLECTIONS as C } from "../persistence/runtime-schema.js";
import type { StoreWrite } from "../persistence/store.js";
import { withTaskChange, type TaskDraft } from "../tasks/records.js";
import type { AuditDraft, Delivery, Effect, TransitionResult } from "./inputs.js";
import type { RuntimeState } from "./state.js";
import type { TransitionEnv } from "./handlers/env.js";

export class Step {
  state: RuntimeState;
  readonly writes: StoreWrite[] = [];
  readonly effects: Effect[] = [];
  readonly deliveries: Delivery[] = [];
  readonly audit: AuditDraft[] = [];
  private flushing = false;

  constructor(state: RuntimeState) {
    this.state = state;
  }

  /**
   * Stores a new outbox entry (sent after the commit, in order per conversation), under a new idempotency
   * key, or under `idempotency_key` when it repeats a request already sent (the server answers from its record).
   */
  enqueue(env: TransitionEnv, fields: { conversation_id: string; app_scope: string; action_type: string; method: OutboxMethod; params: JsonObject; idempotency_key?: string }): OutboxEntry {
    const entry = newOutboxEntry(this.state.next_outbox_order, (prefix) => env.newId(prefix), toTimestamp(env.now()), fields);
    this.state = { ...this.state, outbox: this.state.outbox.with(entry.order, entry), next_outbox_order: entry.order + 1 };
    this.writes.push(putOutboxEntry(entry));
    if (!this.flushing) {
      this.effects.push({ kind: "outbox.flush" });
      this.flushing = true;
    }
    return entry;
  }

  result(extra: Pick<TransitionResult, "reply" | "error"> = {}): TransitionResult {
    return { state: this.state, writes: this.writes, effects: this.effects, deliveries: this.deliveries, audit: this.audit, ...extra };
  }
}

/** A step that continues `result`: its state, and its writes, effects, deliveries and audit before the step's own. */
export function stepAfter(result: TransitionResult): Step {
  const step = new Step(result.state);
  step.writes.push(...result.writes);
  step.effects.push(...result.effects);
  step.deliveries.push(...result.deliveries);
  step.audit.push(...result.audit);
  return step;
}

/** Folds a task draft into the step: the state, the rows, and each event for its app after the commit. */
export function commitTaskDraft(step: Step, draft: TaskDraft): void {
  const folded = withTaskChange({ state: step.state, writes: [], deliveries: [] as Delivery[] }, draft.done());
  step.state = folded.state;
  step.writes.push(...folded.writes);
  step.deliveries.push(...folded.deliveries);
}

/** Writes an app's App Manager record as it is in `apps` (deleted when it is gone). */
export function writeApp(step: Step, apps: RuntimeState["apps"], appScope: string): void {
  const app = Object.prototype.hasOwnProperty.call(apps.apps, appScope) ? apps.apps[appScope] : undefined;
  step.writes.push(app === undefined ? { op: "delete", collection: C.apps, key: appScope } : { op: "put", collection: C.apps, key: appScope, value: app as unknown as JsonValue });
}
