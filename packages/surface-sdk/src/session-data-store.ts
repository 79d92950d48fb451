/**
 * What every app store over shared session data needs around the bridge API (spec 6.3, which merges
 * nothing itself): the write — `replace` with the revision last known and, when someone wrote first
 * (`revision_conflict`), read what is stored and write again what the app makes of it (keep both sides,
 * a list of notes; or write over, the picture of a timer) — and the following: read, subscribe, tell
 * the screen.
 */
import type { JsonObject } from "@lineup/protocol";
import { Emitter, throwLater, type Unsubscribe } from "./emitter.js";
import type { MiniAppSessionDataAPI, SessionDataSnapshot } from "./session-data.js";

/**
 * Writes `data(undefined)` with `expected_revision = revision`; on `revision_conflict` reads the stored
 * snapshot and writes `data(newer)` with its revision, at most `attempts` writes in all. Resolves with
 * the revision written; rejects with the error that ended it (a conflict on the last attempt, a failed
 * read, or any other refusal, which is not retried).
 */
export async function replaceWithRetry<Data extends JsonObject>(
  api: MiniAppSessionDataAPI<Data>,
  revision: number,
  data: (newer: SessionDataSnapshot<Data> | undefined) => Data,
  attempts = 3,
): Promise<{ readonly revision: number }> {
  let expected = revision;
  let newer: SessionDataSnapshot<Data> | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      return await api.replace({ data: data(newer), expected_revision: expected });
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== "revision_conflict" || attempt >= attempts) throw error;
      newer = await api.get();
      expected = newer.revision;
    }
  }
}

/**
 * What an app's store over shared session data does the same way in every app: read the stored
 * snapshot, follow later revisions, and tell its screen when something changed. The store says what a
 * snapshot means to it (`applySnapshot`: which revisions to take, how to merge) and calls `notify()`.
 */
export abstract class SessionDataStore<Data extends JsonObject = JsonObject> {
  readonly #sessionData: MiniAppSessionDataAPI<Data>;
  readonly #changes = new Emitter<void>(throwLater);
  #unsubscribe: (() => void) | undefined;

  protected constructor(sessionData: MiniAppSessionDataAPI<Data>) {
    this.#sessionData = sessionData;
  }

  /** Reads the stored data and follows later revisions. */
  async load(): Promise<void> {
    this.applySnapshot(await this.#sessionData.get());
    this.#unsubscribe = this.#sessionData.subscribe((snapshot) => this.applySnapshot(snapshot));
  }

  dispose(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  onChange(listener: () => void): Unsubscribe {
    return this.#changes.on(listener);
  }

  protected notify(): void {
    this.#changes.fire();
  }

  /** A snapshot read at `load`, pushed by the subscription, or read again after a conflict. */
  protected abstract applySnapshot(snapshot: SessionDataSnapshot<Data>): void;
}
