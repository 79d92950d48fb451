/**
 * MiniApp session data over the bridge, with the exact semantics of spec 6.3:
 *
 * - empty is `{ data: null, revision: 0 }`;
 * - a subscriber's first callback is the full snapshot at registration, later callbacks have
 *   strictly increasing revisions — duplicate and old revisions are ignored here;
 * - a revision jump (an update that is not the next revision) or a bridge reconnect (`resync()`,
 *   called on `restore`) makes the SDK `get()` again and register a new subscription, so no write
 *   between the two is lost;
 * - `replace` with a stale `expected_revision` is refused by the Runtime with `revision_conflict`
 *   (rejected as a `LineUpError`); nothing is merged automatically — merging is the app's business.
 *
 * One bridge subscription serves every local listener; it starts with the first listener and ends
 * with the last.
 */
import type { BridgeSessionDataSnapshot, JsonObject } from "@lineup/protocol";
import type { BridgeChannel } from "./channel.js";
import { requestFailed, threw, type DiagnosticsSink, type Unsubscribe } from "./emitter.js";

export interface SessionDataSnapshot<Data extends JsonObject = JsonObject> {
  readonly data: Data | null;
  readonly revision: number;
}

export interface MiniAppSessionDataAPI<Data extends JsonObject = JsonObject> {
  get(): Promise<SessionDataSnapshot<Data>>;
  replace(request: { data: Data; expected_revision: number }): Promise<{ revision: number }>;
  subscribe(listener: (snapshot: SessionDataSnapshot<Data>) => void): Unsubscribe;
}

type Phase = "idle" | "subscribing" | "live" | "resyncing";

export class SessionDataClient<Data extends JsonObject = JsonObject> implements MiniAppSessionDataAPI<Data> {
  readonly #channel: BridgeChannel;
  readonly #diagnostics: DiagnosticsSink;
  /** Local listeners, each with the last revision it was given (a late listener starts from its own snapshot). */
  readonly #listeners = new Map<symbol, { readonly listener: (snapshot: SessionDataSnapshot<Data>) => void; last: number }>();
  #phase: Phase = "idle";
  /** The newest snapshot known on the live subscription. */
  #current: SessionDataSnapshot<Data> | undefined;
  /** Bumped on every (re)registration, so an answer to an abandoned one is ignored. */
  #generation = 0;
  readonly #offChanged: Unsubscribe;

  constructor(channel: BridgeChannel, diagnostics: DiagnosticsSink) {
    this.#channel = channel;
    this.#diagnostics = diagnostics;
    this.#offChanged = channel.on("session_data.changed", (snapshot) => this.#onChanged(snapshot as SessionDataSnapshot<Data>));
  }

  async get(): Promise<SessionDataSnapshot<Data>> {
    return (await this.#channel.request("session_data.get", {})) as SessionDataSnapshot<Data>;
  }

  async replace(request: { data: Data; expected_revision: number }): Promise<{ revision: number }> {
    return this.#channel.request("session_data.replace", { data: request.data, expected_revision: request.expected_revision });
  }

  subscribe(listener: (snapshot: SessionDataSnapshot<Data>) => void): Unsubscribe {
    const key = Symbol("session-data-listener");
    this.#listeners.set(key, { listener, last: -1 });
    if (this.#phase === "idle") void this.#register("subscribing");
    else if (this.#phase === "live" && this.#current !== undefined) this.#deliverTo(key, this.#current);
    // While (re)subscribing, the registration's snapshot reaches this listener too.
    return () => {
      if (!this.#listeners.delete(key) || this.#listeners.size > 0) return;
      this.#phase = "idle";
      this.#current = undefined;
      this.#generation++;
      if (!this.#channel.isClosed) this.#channel.request("session_data.unsubscribe", {}).catch(() => {});
    };
  }

  /** After a reconnect or a restore: read again and register a new subscription. */
  resync(): void {
    if (this.#listeners.size === 0 || this.#phase === "resyncing") return;
    void this.#register("resyncing");
  }

  dispose(): void {
    this.#offChanged();
    this.#listeners.clear();
    this.#phase = "idle";
  }

  async #register(phase: "subscribing" | "resyncing"): Promise<void> {
    this.#phase = phase;
    const generation = ++this.#generation;
    try {
      if (phase === "resyncing") {
        // Spec 6.3: re-get, then a new subscription whose first frame is again the full snapshot.
        const fresh = await this.get();
        if (generation !== this.#generation) return;
        this.#advance(fresh);
        await this.#channel.request("session_data.unsubscribe", {});
        if (generation !== this.#generation) return;
      }
      const snapshot = (await this.#channel.request("session_data.subscribe", {})) as SessionDataSnapshot<Data>;
      if (generation !== this.#generation) return;
      this.#phase = "live";
      this.#advance(snapshot);
    } catch (error) {
      if (generation !== this.#generation) return;
      this.#phase = this.#listeners.size > 0 && !this.#channel.isClosed ? "live" : "idle";
      this.#diagnostics(requestFailed(`session_data ${phase}`, error));
    }
  }

  #onChanged(snapshot: SessionDataSnapshot<Data>): void {
    if (this.#phase === "idle") return;
    const last = this.#current?.revision ?? -1;
    if (snapshot.revision <= last) return; // duplicate or old: ignored (spec 6.3)
    if (this.#phase !== "live") return; // a resync in flight will bring this or newer
    if (snapshot.revision !== last + 1) {
      // A jump: some revision never reached us. Read again rather than show a hole.
      void this.#register("resyncing");
      return;
    }
    this.#advance(snapshot);
  }

  /** Delivers a snapshot to every listener that has not seen it or anything newer. */
  #advance(snapshot: SessionDataSnapshot<Data>): void {
    if (this.#current !== undefined && snapshot.revision < this.#current.revision) return;
    this.#current = snapshot;
    for (const key of [...this.#listeners.keys()]) this.#deliverTo(key, snapshot);
  }

  #deliverTo(key: symbol, snapshot: SessionDataSnapshot<Data>): void {
    const entry = this.#listeners.get(key);
    if (entry === undefined || snapshot.revision <= entry.last) return;
    entry.last = snapshot.revision;
    try {
      entry.listener(snapshot);
    } catch (error) {
      this.#diagnostics(threw("session_data", error));
    }
  }
}

export type { BridgeSessionDataSnapshot };
