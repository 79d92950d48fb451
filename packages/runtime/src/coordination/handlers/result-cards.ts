/**
 * Result cards in the loop: the card of a tool call's result (spec 6.3 inline card), made by the shell after
 * the result's commit (`result-cards.ts`), is written by a turn like every other row, and only if the call has
 * no card yet: the first card of a call is the one kept, whatever else raced to make one. Not audited: it is a
 * copy of the app's own data.
 */
import { RUNTIME_COLLECTIONS as C } from "../../persistence/runtime-schema.js";
import { readId, unchanged, type ReadKey, type Reads, type RuntimeInput, type TransitionResult } from "../inputs.js";
import type { RuntimeState } from "../state.js";

type ResultCardInput = Extract<RuntimeInput, { kind: "result_card" }>;

export function resultCardReads(input: ResultCardInput): ReadKey[] {
  return [{ collection: C.resultCards, key: input.call_id }];
}

export function onResultCard(state: RuntimeState, input: ResultCardInput, reads: Reads): TransitionResult {
  if (reads.get(readId({ collection: C.resultCards, key: input.call_id })) !== undefined) return unchanged(state);
  return unchanged(state, { writes: [{ op: "put", collection: C.resultCards, key: input.call_id, value: input.card }] });
}
