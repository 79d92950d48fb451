/**
 * The timer's state on screen, backed by the app's session data (one session per conversation): a
 * started session is written before the screen shows it, a stop is written after the Runtime took it,
 * and another device's or a reload's change arrives through the subscription.
 */
import { replaceWithRetry, SessionDataStore, type MiniAppSessionDataAPI, type SessionDataSnapshot } from "@lineup/surface-sdk";
import { parseStored, startSession, stopSession, storedForm, type FocusSession } from "./model.js";

export interface TimerStoreOptions {
  readonly sessionData: MiniAppSessionDataAPI;
  /** Asks LineUp to end the running operation (the user pressed stop). */
  readonly interrupt: (reason: string) => Promise<void>;
  readonly now?: () => number;
  /** Where a failed write is reported (the screen keeps what it showed). */
  readonly onError?: (error: unknown) => void;
}

export class TimerStore extends SessionDataStore {
  readonly #options: TimerStoreOptions;
  readonly #now: () => number;
  #session: FocusSession | null = null;
  #revision = 0;

  constructor(options: TimerStoreOptions) {
    super(options.sessionData);
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get session(): FocusSession | null {
    return this.#session;
  }

  now(): number {
    return this.#now();
  }

  /** A new focus session for `call_id` (the agent's `pomodoro.start`), shown at once and then stored. */
  start(request: { call_id: string; minutes: number; title?: string }): FocusSession {
    const session = startSession(request, this.#now());
    this.#session = session;
    this.notify();
    void this.#write(session);
    return session;
  }

  /**
   * The running session stops — the user pressed Stop, or the agent asked (`pomodoro.interrupt`): LineUp ends
   * the operation (the agent hears `interrupted`), then the screen says so. Returns whether one was running.
   */
  async stop(reason = "stopped by the user in the app"): Promise<boolean> {
    const session = this.#session;
    if (session === null) return false;
    const stopped = stopSession(session, this.#now());
    if (stopped === session) return false;
    await this.#options.interrupt(reason);
    this.#session = stopped;
    this.notify();
    await this.#write(stopped);
    return true;
  }

  protected applySnapshot(snapshot: SessionDataSnapshot): void {
    if (snapshot.revision < this.#revision) return;
    this.#revision = snapshot.revision;
    const stored = parseStored(snapshot.data);
    // A session started here but not yet stored is newer than an older stored one.
    if (stored === null && this.#session !== null) return;
    if (stored !== null && this.#session !== null && stored.call_id !== this.#session.call_id && stored.started_at < this.#session.started_at) return;
    this.#session = stored;
    this.notify();
  }

  async #write(session: FocusSession): Promise<void> {
    // Last writer wins for the picture of the timer: on a stale revision it is written once more, over the newer one.
    try {
      const { revision } = await replaceWithRetry(this.#options.sessionData, this.#revision, () => storedForm(session), 2);
      this.#revision = Math.max(this.#revision, revision);
    } catch (error) {
      this.#options.onError?.(error);
    }
  }
}
