/**
 * Keeps the board in the app session's data (spec 6.3), so it survives reloads and follows writes
 * from another surface of the same session.
 *
 * The local board is always `base ⊕ in-flight ⊕ pending`: `base` the last revision known from the
 * Runtime, `in-flight` the operations of the write under way, `pending` those made since. Writes
 * are debounced and one at a time, each with `expected_revision` = the base's revision. On
 * `revision_conflict` the sync reads the newer data, re-applies its own operations on top (they
 * are idempotent by item id) and writes again — the Runtime never merges for the app. Snapshots
 * from the subscription move the base forward the same way; our own write echoing back is
 * harmless for the same reason.
 */
import { LineUpError, utf8ByteLength, type JsonObject } from "@lineup/protocol";
import type { MiniAppSessionDataAPI, SessionDataSnapshot, Unsubscribe } from "@lineup/surface-sdk";
import { emptyBoard, type Board } from "./model/document.js";
import { applyAll, type Operation } from "./model/operations.js";
import { readBoard, writeBoard } from "./model/persist.js";

export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export type SyncStatus = "loading" | "saved" | "saving" | "error";

export interface BoardSyncOptions {
  readonly sessionData: MiniAppSessionDataAPI;
  /** Quiet time after the last change before writing. Default 400 ms. */
  readonly debounceMs?: number;
  /** Conflicts resolved in one flush before giving up (the next change tries again). Default 5. */
  readonly maxConflictRetries?: number;
  readonly timers?: Timers;
  /** Called with the board after every local or remote change. */
  readonly onBoard?: (board: Board, origin: "local" | "remote") => void;
  readonly onStatus?: (status: SyncStatus, error?: unknown) => void;
  /**
   * Largest board, in UTF-8 bytes of its JSON, the sync will send. A bridge message is at most
   * 256 KiB by default and a larger one would be dropped unanswered, so the default leaves room
   * for the frame. A bigger board stays on screen, unsaved, with status `error` (`quota_exceeded`).
   */
  readonly maxBytes?: number;
}

export const DEFAULT_MAX_BOARD_BYTES = 240_000;

export class BoardSync {
  readonly #api: MiniAppSessionDataAPI;
  readonly #debounceMs: number;
  readonly #maxRetries: number;
  readonly #timers: Timers;
  readonly #maxBytes: number;
  readonly #onBoard: (board: Board, origin: "local" | "remote") => void;
  readonly #onStatus: (status: SyncStatus, error?: unknown) => void;
  #base: Board | undefined;
  #baseRevision = 0;
  #inFlight: Operation[] = [];
  #pending: Operation[] = [];
  #board: Board | undefined;
  #timer: unknown;
  #writing: Promise<void> | undefined;
  #unsubscribe: Unsubscribe | undefined;
  #status: SyncStatus = "loading";
  #frozen = false;

  constructor(options: BoardSyncOptions) {
    this.#api = options.sessionData;
    this.#debounceMs = options.debounceMs ?? 400;
    this.#maxRetries = options.maxConflictRetries ?? 5;
    this.#timers = options.timers ?? realTimers;
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BOARD_BYTES;
    this.#onBoard = options.onBoard ?? (() => {});
    this.#onStatus = options.onStatus ?? (() => {});
  }

  get board(): Board {
    if (this.#board === undefined) throw new Error("BoardSync.start() has not finished");
    return this.#board;
  }

  get revision(): number {
    return this.#baseRevision;
  }

  get status(): SyncStatus {
    return this.#status;
  }

  /** True while changes are not yet stored. */
  get dirty(): boolean {
    return this.#pending.length > 0 || this.#inFlight.length > 0;
  }

  /** Subscribes to the session data; resolves with the board of the first (full) snapshot. */
  start(): Promise<Board> {
    return new Promise<Board>((resolve) => {
      this.#unsubscribe = this.#api.subscribe((snapshot) => {
        const first = this.#base === undefined;
        this.#receive(snapshot);
        if (first) {
          if (!this.#frozen) this.#setStatus("saved");
          resolve(this.board);
        }
      });
    });
  }

  /** Applies a local operation now and schedules its write. */
  apply(op: Operation): Board {
    this.#pending.push(op);
    this.#board = applyAll(this.board, [op]);
    this.#onBoard(this.#board, "local");
    this.#schedule();
    return this.#board;
  }

  /** Writes everything not yet stored, now; resolves when it is stored (or the write gave up). */
  async flush(): Promise<void> {
    if (this.#timer !== undefined) {
      this.#timers.clear(this.#timer);
      this.#timer = undefined;
    }
    while (this.#writing !== undefined) await this.#writing;
    if (this.#pending.length === 0) return;
    this.#writing = this.#writeLoop().finally(() => (this.#writing = undefined));
    await this.#writing;
  }

  dispose(): void {
    if (this.#timer !== undefined) this.#timers.clear(this.#timer);
    this.#unsubscribe?.();
  }

  #schedule(): void {
    if (this.#timer !== undefined) this.#timers.clear(this.#timer);
    this.#timer = this.#timers.set(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#debounceMs);
  }

  #setStatus(status: SyncStatus, error?: unknown): void {
    this.#status = status;
    this.#onStatus(status, error);
  }

  /** A snapshot newer than the base becomes the base; local operations go on top. */
  #receive(snapshot: SessionDataSnapshot): void {
    if (this.#base !== undefined && snapshot.revision <= this.#baseRevision) return;
    const read = readBoard(snapshot.data);
    if (!read.ok) {
      // Data this build cannot read (a newer format): show what we have and never overwrite it.
      this.#frozen = true;
      this.#setStatus("error", new Error(read.reason));
      if (this.#base !== undefined) return;
    }
    this.#base = read.ok ? read.board : emptyBoard();
    this.#baseRevision = snapshot.revision;
    this.#board = applyAll(this.#base, [...this.#inFlight, ...this.#pending]);
    this.#onBoard(this.#board, "remote");
  }

  async #writeLoop(): Promise<void> {
    let conflicts = 0;
    if (this.#frozen) return;
    this.#setStatus("saving");
    while (this.#pending.length > 0) {
      this.#inFlight = this.#pending;
      this.#pending = [];
      const sent = applyAll(this.#base!, this.#inFlight);
      const bytes = utf8ByteLength(JSON.stringify(sent));
      if (bytes > this.#maxBytes) {
        this.#pending = [...this.#inFlight, ...this.#pending];
        this.#inFlight = [];
        this.#setStatus("error", new LineUpError("quota_exceeded", `the board is ${bytes} bytes; at most ${this.#maxBytes} can be saved`, { data: { usage: bytes, limit: this.#maxBytes } }));
        return;
      }
      try {
        const { revision } = await this.#api.replace({ data: writeBoard(sent) as JsonObject, expected_revision: this.#baseRevision });
        if (revision > this.#baseRevision) {
          this.#base = sent;
          this.#baseRevision = revision;
        }
        this.#inFlight = [];
      } catch (error) {
        this.#pending = [...this.#inFlight, ...this.#pending];
        this.#inFlight = [];
        if (!(error instanceof LineUpError && error.code === "revision_conflict") || ++conflicts > this.#maxRetries) {
          this.#setStatus("error", error);
          return;
        }
        // Someone wrote first: read their revision and put our operations on top of it.
        try {
          this.#receive(await this.#api.get());
        } catch (readError) {
          this.#setStatus("error", readError);
          return;
        }
      }
    }
    this.#setStatus("saved");
  }
}
