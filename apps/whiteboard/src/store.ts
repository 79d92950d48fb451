/**
 * The board as the app works with it: the synced document, the user's undo history, and what both
 * people and agents do to it. A user's change is undoable; so is an agent's (it arrives as the
 * same kind of operation), because the board is the user's.
 */
import { cleanTitle, emptyBoard, type Board, type Item } from "./model/document.js";
import { EMPTY_HISTORY, canRedo, canUndo, perform, redo, undo, type History } from "./model/history.js";
import { insertItems, type Operation } from "./model/operations.js";
import { summarize, type BoardSummary } from "./model/summary.js";
import { layoutOperation, type Placement } from "./model/tidy.js";
import { shapesToItems, type ShapeSpec } from "./model/tool-args.js";
import type { BoardSync, SyncStatus } from "./sync.js";

export interface BoardState {
  readonly board: Board;
  readonly canUndo: boolean;
  readonly canRedo: boolean;
  readonly status: SyncStatus;
}

export class BoardStore {
  readonly #sync: BoardSync;
  readonly #newId: () => string;
  readonly #listeners = new Set<(state: BoardState) => void>();
  #history: History = EMPTY_HISTORY;
  #status: SyncStatus = "loading";

  constructor(sync: BoardSync, newId: () => string) {
    this.#sync = sync;
    this.#newId = newId;
  }

  get state(): BoardState {
    return { board: this.#sync.board, canUndo: canUndo(this.#history), canRedo: canRedo(this.#history), status: this.#status };
  }

  get board(): Board {
    return this.#sync.board;
  }

  subscribe(listener: (state: BoardState) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** For the sync's callbacks: a board or status change to show. */
  notify(status?: SyncStatus): void {
    if (status !== undefined) this.#status = status;
    const state = this.state;
    for (const listener of [...this.#listeners]) listener(state);
  }

  /** A change made by the user or an agent; recorded for undo. Returns false when it changed nothing. */
  perform(op: Operation): boolean {
    const result = perform(this.#sync.board, this.#history, op);
    if (result.applied === undefined) return false;
    this.#history = result.history;
    this.#sync.apply(result.applied);
    return true;
  }

  undo(): void {
    const result = undo(this.#sync.board, this.#history);
    if (result.applied === undefined) return;
    this.#history = result.history;
    this.#sync.apply(result.applied);
  }

  redo(): void {
    const result = redo(this.#sync.board, this.#history);
    if (result.applied === undefined) return;
    this.#history = result.history;
    this.#sync.apply(result.applied);
  }

  newId(): string {
    return this.#newId();
  }

  /** `board.create`: a fresh, empty board with this title; stored before it resolves. */
  async createBoard(title: string): Promise<Board> {
    this.perform({ kind: "replace", board: emptyBoard(cleanTitle(title)) });
    await this.#sync.flush();
    return this.board;
  }

  /** `board.add_shapes`: draws the agent's shapes on top; stored before it resolves. */
  async addShapes(shapes: readonly ShapeSpec[]): Promise<Item[]> {
    const items = shapesToItems(shapes, () => this.#newId());
    this.perform(insertItems(items));
    await this.#sync.flush();
    return items;
  }

  /**
   * Applies a tidy layout the person accepted: ONE `update` moving the items it names (one undo puts them
   * all back), synced like any edit. Returns how many items moved (0: nothing was out of place).
   */
  applyLayout(layout: readonly Placement[]): number {
    const op = layoutOperation(this.board, layout);
    if (op === undefined || !this.perform(op)) return 0;
    return op.items.length;
  }

  summary(): BoardSummary {
    return summarize(this.board);
  }

  flush(): Promise<void> {
    return this.#sync.flush();
  }
}
