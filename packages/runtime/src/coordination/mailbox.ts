/**
 * The single writer (spec 3.1, ARCHITECTURE 3). Inputs queue; each turn takes up to `maxInputsPerTurn`
 * of them (group commit), reads every key their transitions will need in ONE `store.getMany`, runs the
 * pure transition for each in order — reading through an overlay of the writes staged earlier in the
 * same turn, which wins over what was read before the turn — chains their audit records, and commits all
 * their writes in ONE `store.commit`. Only when that commit has resolved is the new state published,
 * are deliveries and effects run, and are the inputs' promises settled. A failed commit rejects every
 * input of the turn with its typed error and leaves the state as it was before the turn.
 */
import { LineUpError, isErrorCode, type JsonValue } from "@lineup/protocol";
import type { DiagnosticsSink } from "../core/emitter.js";
import { isStoreError } from "../persistence/store-error.js";
import type { RuntimeStore, StoreValue, StoreWrite } from "../persistence/store.js";
import { chainAuditSync, type AuditHead } from "./audit.js";
import { readId, unchanged, type Delivery, type Effect, type ReadKey, type RuntimeInput, type TransitionResult } from "./inputs.js";
import type { RuntimeState } from "./state.js";
import { readsFor, transition, type TransitionEnv } from "./transition.js";

export interface MailboxOptions {
  readonly store: Pick<RuntimeStore, "commit" | "getMany">;
  readonly state: RuntimeState;
  readonly auditHead: AuditHead;
  readonly env: TransitionEnv;
  readonly diagnostics: DiagnosticsSink;
  /** Default 256. */
  readonly maxInputsPerTurn?: number;
  /** Called after each successful commit with the new state (before deliveries and effects). */
  readonly onState: (state: RuntimeState) => void;
  /** Runs a committed turn's deliveries (awaited, so they keep their order) and effects (not awaited). */
  readonly afterCommit: (deliveries: readonly Delivery[], effects: readonly Effect[]) => Promise<void>;
}

interface Queued {
  readonly input: RuntimeInput;
  resolve(value: JsonValue | undefined): void;
  reject(error: unknown): void;
}

export interface Mailbox {
  /** Queues `input`; settles after the commit of the turn that handled it. */
  post(input: RuntimeInput): Promise<JsonValue | undefined>;
  readonly state: RuntimeState;
  /** Rejects later posts (`invalid_state`) and resolves once the queue has drained. */
  close(): Promise<void>;
  /** Turns committed so far (for tests and figures). */
  readonly turns: number;
}

export function createMailbox(options: MailboxOptions): Mailbox {
  const maxPerTurn = options.maxInputsPerTurn ?? 256;
  const queue: Queued[] = [];
  let state = options.state;
  let auditHead = options.auditHead;
  let running: Promise<void> | undefined;
  let closed = false;
  let turns = 0;

  const runTurn = async (batch: Queued[]): Promise<void> => {
    const needs = batch.map((item) => keysNeeded(item.input));
    const stored = await readStored(options.store, needs);
    const overlay = new Map<string, StoreValue | undefined>();
    const results: (TransitionResult | { failed: unknown })[] = [];
    let next = state;
    for (const [index, item] of batch.entries()) {
      try {
        const need = needs[index]!;
        if ("failed" in need) throw need.failed;
        const reads = new Map<string, StoreValue | undefined>();
        for (const key of need.keys) {
          const id = readId(key);
          // A write staged by an earlier input of this turn wins over what the store held before it.
          if (overlay.has(id)) reads.set(id, overlay.get(id));
          else if ("failed" in stored) throw stored.failed;
          else reads.set(id, stored.values.get(id));
        }
        let result: TransitionResult;
        try {
          result = transition(next, item.input, reads, options.env);
        } catch (error) {
          // A transition bug must not take the Runtime down: this input fails, the state stays.
          options.diagnostics(error, `transition ${item.input.kind}`);
          result = unchanged(next, { error: new LineUpError("internal_error", `transition ${item.input.kind} failed`, { cause: error }) });
        }
        next = result.state;
        for (const write of result.writes) stage(overlay, write);
        results.push(result);
      } catch (error) {
        results.push({ failed: error });
      }
    }

    const committed = results.filter((r): r is TransitionResult => !("failed" in r));
    let writes: StoreWrite[] = committed.flatMap((r) => r.writes);
    const drafts = committed.flatMap((r) => r.audit);
    try {
      const chained = chainAuditSync(auditHead, drafts, options.env.now());
      writes = writes.concat(chained.writes);
      if (writes.length > 0) await options.store.commit(collapseWrites(writes));
      auditHead = chained.head;
    } catch (error) {
      const failure = toLineUpError(error);
      for (const item of batch) item.reject(failure);
      return;
    }
    turns += 1;
    state = next;
    options.onState(state);
    try {
      await options.afterCommit(
        committed.flatMap((r) => r.deliveries),
        committed.flatMap((r) => r.effects),
      );
    } catch (error) {
      options.diagnostics(error, "after commit");
    }
    batch.forEach((item, index) => {
      const result = results[index]!;
      if ("failed" in result) item.reject(toLineUpError(result.failed));
      else if (result.error !== undefined) item.reject(result.error);
      else item.resolve(result.reply as JsonValue | undefined);
    });
  };

  const drain = async (): Promise<void> => {
    while (queue.length > 0) await runTurn(queue.splice(0, maxPerTurn));
    running = undefined;
  };

  return {
    post(input) {
      if (closed) return Promise.reject(new LineUpError("invalid_state", "the Runtime is stopped"));
      return new Promise((resolve, reject) => {
        queue.push({ input, resolve, reject });
        // Started on a microtask so that inputs posted in the same tick share one turn and one commit.
        running ??= Promise.resolve().then(drain);
      });
    },
    get state() {
      return state;
    },
    async close() {
      closed = true;
      while (running !== undefined) await running;
    },
    get turns() {
      return turns;
    },
  };
}

/**
 * Within one atomic batch only the last write to a key matters, so earlier ones are dropped (the cursor
 * of a session is written once per turn, not once per event). Batches with a range delete are kept as
 * they are, since a range can hide a key's history.
 */
export function collapseWrites(writes: readonly StoreWrite[]): StoreWrite[] {
  if (writes.some((write) => write.op === "deleteRange")) return [...writes];
  const last = new Map<string, number>();
  writes.forEach((write, index) => last.set(readId(write as { collection: string; key: string }), index));
  return writes.filter((write, index) => last.get(readId(write as { collection: string; key: string })) === index);
}

type KeysNeeded = { readonly keys: readonly ReadKey[] } | { readonly failed: unknown };

function keysNeeded(input: RuntimeInput): KeysNeeded {
  try {
    return { keys: readsFor(input) };
  } catch (error) {
    return { failed: error };
  }
}

/**
 * Reads every distinct key the turn's inputs need in one `getMany`, before any transition runs. A failed
 * read fails (later, one by one) only the inputs that needed a key from the store, as a per-key read did.
 */
async function readStored(
  store: Pick<RuntimeStore, "getMany">,
  needs: readonly KeysNeeded[],
): Promise<{ readonly values: ReadonlyMap<string, StoreValue | undefined> } | { readonly failed: unknown }> {
  const wanted = new Map<string, ReadKey>();
  for (const need of needs) if ("keys" in need) for (const key of need.keys) wanted.set(readId(key), key);
  const values = new Map<string, StoreValue | undefined>();
  if (wanted.size === 0) return { values };
  try {
    const refs = [...wanted.values()].map(({ collection, key }) => ({ collection, key }));
    const found = await store.getMany(refs);
    refs.forEach((ref, index) => values.set(readId(ref), found[index]));
    return { values };
  } catch (error) {
    return { failed: error };
  }
}

function stage(overlay: Map<string, StoreValue | undefined>, write: StoreWrite): void {
  if (write.op === "put") overlay.set(readId(write), write.value);
  else if (write.op === "delete") overlay.set(readId(write), undefined);
  // deleteRange is not used by transitions; reads of such keys would go to the store.
}

/** Store failures keep their `store_*` code; anything else becomes `internal_error`. */
export function toLineUpError(error: unknown): LineUpError {
  if (error instanceof LineUpError) return error;
  if (isStoreError(error)) return new LineUpError(error.code, error.message, { cause: error });
  const code = (error as { code?: unknown } | null)?.code;
  return new LineUpError(isErrorCode(code) ? code : "internal_error", error instanceof Error ? error.message : String(error), { cause: error });
}
