/**
 * The single writer (spec 3.1, ARCHITECTURE 3). Inputs queue; each turn takes up to `maxInputsPerTurn`
 * of them (group commit), reads every key their transitions will need in ONE `store.getMany`, runs the
 * pure transition for each in order — reading through an overlay of the writes staged earlier in the
 * same turn, which wins over what was read before the turn — chains their audit records, and commits all
 * their writes in ONE `store.commit`. Only when that commit has resolved is the new state published,
 * are deliveries and effects run, and are the inputs' promises settled. A failed commit rejects every
 * input of the turn with its typed error and leaves the state as it was before the turn.
 *
 * Turns are pipelined: while one turn's commit is in flight, the next turn is read and computed on top
 * of it (its reads are answered through the in-flight turn's writes), so a store that commits off the
 * calling thread (IndexedDB, SQLite on a worker) overlaps the disk with the next turn's work. The next
 * commit is issued only after the previous one has resolved and been published; if that commit fails,
 * the turn computed on top of it is thrown away and its inputs run again from the committed state.
 * The reads of a turn are issued before the commit of the turn ahead of it, so a store that serves
 * requests in order answers them while that commit runs.
 *
 * Each commit is a `runtime.commit` OpenTelemetry span (a no-op without a provider), like the AppServer's
 * `store.commit`: from issuing the turn's writes to their settling, with the turn's inputs and writes counted.
 */
import { LineUpError, SpanKind, dropOldest, endSpan, isErrorCode, isRecord, startSpan, type JsonValue } from "@lineup/protocol";
import type { DiagnosticsSink } from "../core/emitter.js";
import { toKeyBounds, type KeyBounds } from "../persistence/key-range.js";
import { compareKeys } from "../persistence/keys.js";
import { isStoreError } from "../persistence/store-error.js";
import type { RuntimeStore, StoreValue, StoreWrite } from "../persistence/store.js";
import { chainAuditSync, type AuditHead } from "./audit.js";
import { readId, unchanged, type AuditDraft, type Delivery, type Effect, type ReadKey, type Reads, type RuntimeInput, type TransitionResult } from "./inputs.js";
import type { RuntimeState } from "./state.js";
import { readsFor, transition, type TransitionEnv } from "./transition.js";

export interface RuntimeLoopOptions {
  readonly store: Pick<RuntimeStore, "commit" | "getMany">;
  readonly state: RuntimeState;
  readonly auditHead: AuditHead;
  readonly env: TransitionEnv;
  readonly diagnostics: DiagnosticsSink;
  /** Default 256. */
  readonly maxInputsPerTurn?: number;
  /**
   * Collections that only this loop writes (after the store was opened and restored): the values its
   * turns committed, and those it read, are kept (the most recent `CACHE_ENTRIES`) and answer later
   * reads without the store. Their values are never mutated, only replaced, so sharing them is safe.
   */
  readonly cachedCollections?: readonly string[];
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

export interface RuntimeLoop {
  /** Queues `input`; settles after the commit of the turn that handled it. */
  post(input: RuntimeInput): Promise<JsonValue | undefined>;
  readonly state: RuntimeState;
  /** Rejects later posts (`invalid_state`) and resolves once the queue has drained. */
  close(): Promise<void>;
  /** Turns committed so far (for tests and figures). */
  readonly turns: number;
}

type Stored = { readonly values: ReadonlyMap<string, StoreValue | undefined> } | { readonly failed: unknown };

/** A batch whose reads have been issued. */
interface Reading {
  readonly batch: Queued[];
  readonly needs: readonly KeysNeeded[];
  readonly stored: Promise<Stored>;
  /** Writes of turns not known to be committed when the reads were issued, oldest first: they win over the store. */
  readonly carried: readonly Overlay[];
}

/** A computed turn: what its commit writes and what publishing it makes true. */
interface Turn {
  readonly batch: Queued[];
  readonly results: readonly (TransitionResult | { failed: unknown })[];
  readonly state: RuntimeState;
  readonly head: AuditHead;
  readonly writes: readonly StoreWrite[];
  /** This turn's writes by read id, for the reads of the turn computed on top of it. */
  readonly overlay: Overlay;
  /** Why the turn was not committed: its audit records could not be chained, or its commit failed. */
  failure?: unknown;
  /** Its commit has settled (either way). */
  settled?: boolean;
}

/** How many values of cached collections the loop keeps. */
const CACHE_ENTRIES = 256;

export function createRuntimeLoop(options: RuntimeLoopOptions): RuntimeLoop {
  const maxPerTurn = options.maxInputsPerTurn ?? 256;
  const cached = new Set(options.cachedCollections ?? []);
  const cache = new Map<string, StoreValue | undefined>();
  const remember = (id: string, value: StoreValue | undefined): void => {
    cache.delete(id);
    cache.set(id, value);
    dropOldest(cache, CACHE_ENTRIES);
  };
  /** The cached value of `key` (whose read id is `id`), or UNSAID. */
  const cachedFind = (key: ReadKey, id: string): StoreValue | undefined | typeof UNSAID => {
    if (!cached.has(key.collection) || !cache.has(id)) return UNSAID;
    return cache.get(id);
  };
  const queue: Queued[] = [];
  let state = options.state;
  let auditHead = options.auditHead;
  let running: Promise<void> | undefined;
  let closed = false;
  let turns = 0;

  const read = (carried: readonly Overlay[]): Reading | undefined => {
    if (queue.length === 0) return undefined;
    const batch = queue.splice(0, maxPerTurn);
    const needs = batch.map((item) => keysNeeded(item.input));
    return { batch, needs, stored: readStored(options.store, needs, carried, cachedFind), carried };
  };

  const compute = (reading: Reading, stored: Stored, base: { state: RuntimeState; head: AuditHead }): Turn => {
    const overlay = new Overlay();
    const results: (TransitionResult | { failed: unknown })[] = [];
    let next = base.state;
    // What the turns not yet committed, the cache or the store say about each key the turn reads: the
    // same for every input of this turn (only this turn's own overlay changes as its inputs run), so
    // it is worked out once per distinct key. A key only the failed store read could answer is missing.
    const before = reading.needs.some((need) => "keys" in need && need.keys.length > 0) ? new Map<string, StoreValue | undefined>() : EMPTY_VALUES;
    const resolve = (key: ReadKey, id: string): boolean => {
      if (before.has(id)) return true;
      let value = carriedFind(reading.carried, key);
      if (value === UNSAID) value = cachedFind(key, id);
      if (value === UNSAID) {
        if ("failed" in stored) return false;
        value = stored.values.get(id);
        if (cached.has(key.collection)) remember(id, value);
      }
      before.set(id, value);
      return true;
    };
    for (let index = 0; index < reading.batch.length; index++) {
      const item = reading.batch[index]!;
      try {
        const need = reading.needs[index]!;
        if ("failed" in need) throw need.failed;
        const { keys, ids } = need;
        for (let k = 0; k < keys.length; k++) {
          if (!resolve(keys[k]!, ids[k]!) && overlay.find(keys[k]!.collection, keys[k]!.key) === UNSAID) throw (stored as { failed: unknown }).failed;
        }
        // A write staged earlier in this turn wins over what was there before it.
        const reads: Reads =
          keys.length === 0
            ? NO_READS
            : {
                get(id) {
                  const k = ids.indexOf(id);
                  if (k < 0) return undefined;
                  const staged = overlay.find(keys[k]!.collection, keys[k]!.key);
                  return staged === UNSAID ? before.get(id) : staged;
                },
              };
        let result: TransitionResult;
        try {
          result = transition(next, item.input, reads, options.env);
        } catch (error) {
          // A transition bug must not take the Runtime down: this input fails, the state stays.
          options.diagnostics(error, `transition ${item.input.kind}`);
          result = unchanged(next, { error: new LineUpError("internal_error", `transition ${item.input.kind} failed`, { cause: error }) });
        }
        next = result.state;
        for (const write of result.writes) overlay.stage(write);
        results.push(result);
      } catch (error) {
        results.push({ failed: error });
      }
    }
    const drafts: AuditDraft[] = [];
    const all: StoreWrite[] = [];
    for (const result of results) {
      if ("failed" in result) continue;
      for (const draft of result.audit) drafts.push(draft);
      for (const write of result.writes) all.push(write);
    }
    try {
      const chained = chainAuditSync(base.head, drafts, options.env.now());
      for (const write of chained.writes) overlay.stage(write);
      for (const write of chained.writes) all.push(write);
      const writes = collapseWrites(all);
      return { batch: reading.batch, results, state: next, head: chained.head, writes, overlay };
    } catch (error) {
      return { batch: reading.batch, results, state: base.state, head: base.head, writes: [], overlay: new Overlay(), failure: error };
    }
  };

  /** Issues `turn`'s commit; the promise resolves false when it has settled (never rejects), its outcome kept in `turn`. */
  const commit = (turn: Turn): Promise<boolean> => {
    if (turn.failure !== undefined || turn.writes.length === 0) {
      turn.settled = true;
      return SETTLED;
    }
    const span = startSpan("runtime.commit", { kind: SpanKind.INTERNAL, attributes: () => ({ "lineup.inputs": turn.batch.length, "lineup.writes": turn.writes.length }) });
    return options.store.commit(turn.writes).then(
      () => {
        endSpan(span);
        return settle(turn);
      },
      (error: unknown) => {
        endSpan(span, isRecord(error) ? error : {});
        turn.failure = error;
        return settle(turn);
      },
    );
  };
  const settle = (turn: Turn): false => {
    turn.settled = true;
    wakeUp();
    return false;
  };

  /** Publishes a committed `turn`: state, deliveries and effects, then its inputs settle. False (every input rejected) when it was not committed. */
  const publish = async (turn: Turn): Promise<boolean> => {
    if (turn.failure !== undefined) {
      const failure = toLineUpError(turn.failure);
      for (const item of turn.batch) item.reject(failure);
      return false;
    }
    turns += 1;
    state = turn.state;
    auditHead = turn.head;
    if (cached.size > 0) {
      for (const write of turn.writes) {
        if (!cached.has(write.collection)) continue;
        if (write.op === "put") remember(readId(write), write.value);
        else if (write.op === "delete") remember(readId(write), undefined);
        else for (const id of [...cache.keys()]) if (id.startsWith(`${write.collection}\u0000`)) cache.delete(id);
      }
    }
    options.onState(state);
    const deliveries: Delivery[] = [];
    const effects: Effect[] = [];
    for (const result of turn.results) {
      if ("failed" in result) continue;
      for (const delivery of result.deliveries) deliveries.push(delivery);
      for (const effect of result.effects) effects.push(effect);
    }
    try {
      await options.afterCommit(deliveries, effects);
    } catch (error) {
      options.diagnostics(error, "after commit");
    }
    for (let index = 0; index < turn.batch.length; index++) {
      const item = turn.batch[index]!;
      const result = turn.results[index]!;
      if ("failed" in result) item.reject(toLineUpError(result.failed));
      else if (result.error !== undefined) item.reject(result.error);
      else item.resolve(result.reply as JsonValue | undefined);
    }
    return true;
  };

  /** While a commit is in flight and nothing is queued, the drain waits here for an input to compute on top of it, or for the commit. */
  let wake: (() => void) | undefined;
  const woken = (): Promise<void> => new Promise((resolve) => (wake = resolve));
  const wakeUp = (): void => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };

  const drain = async (): Promise<void> => {
    let inflight: { turn: Turn; committing: Promise<boolean> } | undefined;
    let reading = read([]);
    for (;;) {
      if (reading === undefined && inflight !== undefined) {
        // Nothing to compute: wait for the commit, or for inputs to read and compute on top of it meanwhile.
        while (inflight.turn.settled !== true && queue.length === 0) await woken();
        if (inflight.turn.settled !== true) reading = read([inflight.turn.overlay]);
      }
      reading ??= inflight === undefined ? read([]) : undefined;
      if (reading === undefined && inflight === undefined) break;
      let turn: Turn | undefined;
      if (reading !== undefined) {
        const base = inflight === undefined ? { state, head: auditHead } : { state: inflight.turn.state, head: inflight.turn.head };
        turn = compute(reading, await reading.stored, base);
      }
      // Inputs that arrived meanwhile are read now, before this turn's commit is issued; neither the
      // in-flight turn nor this one is known to be committed yet, so both their writes are carried.
      const carried: Overlay[] = [];
      if (inflight !== undefined) carried.push(inflight.turn.overlay);
      if (turn !== undefined) carried.push(turn.overlay);
      const following = read(carried);
      if (inflight !== undefined) {
        await inflight.committing;
        if (!(await publish(inflight.turn))) {
          // The turn these were computed on never happened: run them again from the committed state.
          queue.unshift(...(turn?.batch ?? []), ...(following?.batch ?? []));
          inflight = undefined;
          reading = read([]);
          continue;
        }
      }
      inflight = turn === undefined ? undefined : { turn, committing: commit(turn) };
      reading = following;
    }
    running = undefined;
  };

  return {
    post(input) {
      if (closed) return Promise.reject(new LineUpError("invalid_state", "the Runtime is stopped"));
      return new Promise((resolve, reject) => {
        queue.push({ input, resolve, reject });
        wakeUp();
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
 * they are, since a range can hide a key's history. A small batch with no repeat comes back as the same
 * array (the turn's own, never changed after).
 */
export function collapseWrites(writes: readonly StoreWrite[]): readonly StoreWrite[] {
  if (writes.some((write) => write.op === "deleteRange")) return [...writes];
  if (writes.length <= SMALL_BATCH) {
    // A turn's usual handful of writes: compared pairwise, with no ids built; without a repeat, as they are.
    let kept: StoreWrite[] | undefined;
    for (let index = 0; index < writes.length; index++) {
      const { collection, key } = writes[index] as { collection: string; key: string };
      let superseded = false;
      for (let later = index + 1; later < writes.length && !superseded; later++) {
        const other = writes[later] as { collection: string; key: string };
        superseded = other.key === key && other.collection === collection;
      }
      if (superseded) kept ??= writes.slice(0, index);
      else kept?.push(writes[index]!);
    }
    return kept ?? writes;
  }
  // Larger batches: the index of each key's last write, by collection then key (no ids built).
  const last = new Map<string, Map<string, number>>();
  writes.forEach((write, index) => {
    const { collection, key } = write as { collection: string; key: string };
    let inCollection = last.get(collection);
    if (inCollection === undefined) last.set(collection, (inCollection = new Map()));
    inCollection.set(key, index);
  });
  return writes.filter((write, index) => {
    const { collection, key } = write as { collection: string; key: string };
    return last.get(collection)!.get(key) === index;
  });
}

const SMALL_BATCH = 24;

/** The keys an input reads, and their read ids (by position). */
type KeysNeeded = { readonly keys: readonly ReadKey[]; readonly ids: readonly string[] } | { readonly failed: unknown };

const SETTLED: Promise<boolean> = Promise.resolve(false);

const NOTHING_NEEDED: KeysNeeded = { keys: [], ids: [] };

function keysNeeded(input: RuntimeInput): KeysNeeded {
  try {
    const keys = readsFor(input);
    if (keys.length === 0) return NOTHING_NEEDED;
    return { keys, ids: keys.map(readId) };
  } catch (error) {
    return { failed: error };
  }
}

/** What a lookup returns when the writes or cache it asked know nothing of the key. */
const UNSAID: unique symbol = Symbol("unsaid");

/** The reads of an input that reads nothing, and the values of a turn whose inputs read nothing. */
const NO_READS: Reads = { get: () => undefined };
const EMPTY_VALUES: Map<string, StoreValue | undefined> = new Map();

/**
 * Reads every distinct key the turn's inputs need in one `getMany`, before any transition runs — except
 * keys a carried (not yet committed) turn wrote, which are answered from its writes, and cached ones. A failed read fails
 * (later, one by one) only the inputs that needed a key from the store, as a per-key read did.
 */
function readStored(
  store: Pick<RuntimeStore, "getMany">,
  needs: readonly KeysNeeded[],
  carried: readonly Overlay[],
  cachedFind: (key: ReadKey, id: string) => unknown,
): Promise<Stored> {
  let wanted: Map<string, ReadKey> | undefined;
  for (const need of needs) {
    if (!("keys" in need)) continue;
    for (let k = 0; k < need.keys.length; k++) {
      const id = need.ids[k]!;
      if (wanted?.has(id) === true) continue;
      const key = need.keys[k]!;
      if (carriedFind(carried, key) === UNSAID && cachedFind(key, id) === UNSAID) (wanted ??= new Map()).set(id, key);
    }
  }
  return wanted === undefined ? NOTHING_STORED : readWanted(store, wanted);
}

/** What a turn that needs nothing from the store was answered (shared: nobody writes to it). */
const NOTHING_STORED: Promise<Stored> = Promise.resolve({ values: new Map() });

async function readWanted(store: Pick<RuntimeStore, "getMany">, wanted: ReadonlyMap<string, ReadKey>): Promise<Stored> {
  const values = new Map<string, StoreValue | undefined>();
  try {
    const refs: { collection: string; key: string }[] = [];
    for (const { collection, key } of wanted.values()) refs.push({ collection, key });
    const found = await store.getMany(refs);
    let index = 0;
    for (const id of wanted.keys()) values.set(id, found[index++]);
    return { values };
  } catch (error) {
    return { failed: error };
  }
}

/**
 * Writes staged but not yet known to be in the store, answering reads as the store will once they are:
 * the last put or delete of a key wins, and a range delete removes every key in its range staged before it.
 */
export class Overlay {
  /** The puts and deletes staged, in order, while there are few (searched newest first: nothing built per write). */
  private staged: Extract<StoreWrite, { op: "put" | "delete" }>[] | undefined = [];
  /** Staged values by collection, then key (undefined: deleted), once more than SMALL_OVERLAY were staged. */
  private values: Map<string, Map<string, StoreValue | undefined>> | undefined;
  private cleared: { readonly collection: string; readonly bounds: KeyBounds }[] | undefined;

  stage(write: StoreWrite): void {
    if (write.op === "put" || write.op === "delete") {
      if (this.staged !== undefined) {
        this.staged.push(write);
        if (this.staged.length > SMALL_OVERLAY) {
          for (const each of this.staged) this.index(each);
          this.staged = undefined;
        }
      } else this.index(write);
      return;
    }
    const bounds = toKeyBounds(write.range);
    if (bounds === undefined) return;
    (this.cleared ??= []).push({ collection: write.collection, bounds });
    if (this.staged !== undefined) {
      this.staged = this.staged.filter((each) => each.collection !== write.collection || !within(bounds, each.key));
      return;
    }
    const inCollection = this.values?.get(write.collection);
    if (inCollection !== undefined) for (const key of [...inCollection.keys()]) if (within(bounds, key)) inCollection.delete(key);
  }

  private index(write: Extract<StoreWrite, { op: "put" | "delete" }>): void {
    const values = (this.values ??= new Map());
    let inCollection = values.get(write.collection);
    if (inCollection === undefined) values.set(write.collection, (inCollection = new Map()));
    inCollection.set(write.key, write.op === "put" ? write.value : undefined);
  }

  /** What the staged writes say about `key`: `{ value }` (undefined when deleted), or undefined when they say nothing. */
  lookup(key: ReadKey): { readonly value: StoreValue | undefined } | undefined {
    const found = this.find(key.collection, key.key);
    return found === UNSAID ? undefined : { value: found };
  }

  /** `lookup` without the wrapper: the staged value (undefined when deleted), or UNSAID. */
  find(collection: string, key: string): StoreValue | undefined | typeof UNSAID {
    const staged = this.staged;
    if (staged !== undefined) {
      for (let i = staged.length - 1; i >= 0; i--) {
        const write = staged[i]!;
        if (write.key === key && write.collection === collection) return write.op === "put" ? write.value : undefined;
      }
    } else {
      const inCollection = this.values?.get(collection);
      if (inCollection !== undefined && inCollection.has(key)) return inCollection.get(key);
    }
    if (this.cleared !== undefined) for (const range of this.cleared) if (range.collection === collection && within(range.bounds, key)) return undefined;
    return UNSAID;
  }
}

/** Writes an overlay searches one by one before it indexes them. */
const SMALL_OVERLAY = 24;

function within(bounds: KeyBounds, key: string): boolean {
  const lower = compareKeys(key, bounds.lower);
  const upper = compareKeys(key, bounds.upper);
  return (bounds.lowerOpen ? lower > 0 : lower >= 0) && (bounds.upperOpen ? upper < 0 : upper <= 0);
}

/** The newest carried turn's word on `key`, or UNSAID when none says anything. */
function carriedFind(carried: readonly Overlay[], key: ReadKey): StoreValue | undefined | typeof UNSAID {
  for (let index = carried.length - 1; index >= 0; index--) {
    const found = carried[index]!.find(key.collection, key.key);
    if (found !== UNSAID) return found;
  }
  return UNSAID;
}

/** Store failures keep their `store_*` code; anything else becomes `internal_error`. */
export function toLineUpError(error: unknown): LineUpError {
  if (error instanceof LineUpError) return error;
  if (isStoreError(error)) return new LineUpError(error.code, error.message, { cause: error });
  const code = (error as { code?: unknown } | null)?.code;
  return new LineUpError(isErrorCode(code) ? code : "internal_error", error instanceof Error ? error.message : String(error), { cause: error });
}
