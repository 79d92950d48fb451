/**
 * The app's lifecycle as the host reports it (spec 6.1): start, foreground, background, suspend,
 * restore and closing. `closing` carries a flush deadline: every closing listener may return a
 * promise (a last session data write); the SDK waits for them — but never past the deadline — then
 * answers `lifecycle.closing_done` and closes the bridge, rejecting whatever is still pending.
 */
import { LineUpError, type BRIDGE_LIFECYCLE_STATES } from "@lineup/protocol";
import type { BridgeChannel } from "./channel.js";
import { Emitter, listenerThrew, requestFailed, threw, type DiagnosticsSink, type Unsubscribe } from "./emitter.js";

export type LifecycleState = (typeof BRIDGE_LIFECYCLE_STATES)[number];

export interface ClosingNotice {
  /** The time the host allows for flushing, from when `closing` arrived. */
  readonly flush_deadline_ms: number;
  /** Aborted when the deadline has passed: stop flushing, the surface is going away. */
  readonly signal: AbortSignal;
}

export type ClosingListener = (notice: ClosingNotice) => void | Promise<void>;

export interface AppLifecycleAPI {
  /** The last state the host reported (`start` until it says otherwise). */
  readonly state: LifecycleState;
  /** Tells the host the app has read its snapshot and takes events and tool calls. */
  ready(): Promise<void>;
  on(state: "closing", listener: ClosingListener): Unsubscribe;
  on(state: Exclude<LifecycleState, "closing">, listener: () => void): Unsubscribe;
}

/** Part of the deadline kept back for `closing_done` to reach the host in time. */
const CLOSING_MARGIN_MS = 25;

export class Lifecycle implements AppLifecycleAPI {
  readonly #channel: BridgeChannel;
  readonly #diagnostics: DiagnosticsSink;
  readonly #emitters = new Map<Exclude<LifecycleState, "closing">, Emitter<void>>();
  readonly #closing = new Set<ClosingListener>();
  readonly #onRestore: () => void;
  #state: LifecycleState = "start";
  #readyPromise: Promise<void> | undefined;
  #closingStarted = false;

  constructor(channel: BridgeChannel, diagnostics: DiagnosticsSink, onRestore: () => void) {
    this.#channel = channel;
    this.#diagnostics = diagnostics;
    this.#onRestore = onRestore;
    channel.on("lifecycle", (event) => {
      if (event.state === "closing") void this.#close(event.flush_deadline_ms);
      else this.#enter(event.state);
    });
  }

  get state(): LifecycleState {
    return this.#state;
  }

  ready(): Promise<void> {
    // Idempotent: the host hears `lifecycle.ready` once per instance (again only if it was not answered).
    this.#readyPromise ??= this.#channel.request("lifecycle.ready", { heartbeat: true }).then(
      () => undefined,
      (error: unknown) => {
        this.#readyPromise = undefined;
        throw error;
      },
    );
    return this.#readyPromise;
  }

  on(state: LifecycleState, listener: ClosingListener | (() => void)): Unsubscribe {
    if (state === "closing") {
      const entry = listener as ClosingListener;
      this.#closing.add(entry);
      return () => void this.#closing.delete(entry);
    }
    let emitter = this.#emitters.get(state);
    if (emitter === undefined) {
      emitter = new Emitter(listenerThrew(`lifecycle.${state}`, this.#diagnostics));
      this.#emitters.set(state, emitter);
    }
    return emitter.on(listener as () => void);
  }

  #enter(state: Exclude<LifecycleState, "closing">): void {
    if (this.#closingStarted) return;
    this.#state = state;
    if (state === "restore") this.#onRestore();
    this.#emitters.get(state)?.fire();
  }

  async #close(flushDeadlineMs: number): Promise<void> {
    if (this.#closingStarted) return;
    this.#closingStarted = true;
    this.#state = "closing";
    const controller = new AbortController();
    const budget = Math.max(0, flushDeadlineMs - CLOSING_MARGIN_MS);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        controller.abort(new LineUpError("operation_expired", "the closing flush deadline passed"));
        resolve();
      }, budget);
    });
    const notice: ClosingNotice = { flush_deadline_ms: flushDeadlineMs, signal: controller.signal };
    const flushes = [...this.#closing].map(async (listener) => {
      try {
        await listener(notice);
      } catch (error) {
        this.#diagnostics(threw("lifecycle.closing", error));
      }
    });
    await Promise.race([Promise.all(flushes), deadline]);
    clearTimeout(timer);
    if (!controller.signal.aborted) {
      try {
        await this.#channel.request("lifecycle.closing_done", {}, { timeoutMs: Math.max(1, budget) });
      } catch (error) {
        this.#diagnostics(requestFailed("lifecycle.closing_done", error));
      }
    }
    this.#channel.close(new LineUpError("request_cancelled", "the app closed"));
  }
}
