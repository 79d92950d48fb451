/**
 * Undo and redo over board operations. Each entry keeps the operation and its inverse as computed
 * when it was applied; redo re-applies the operation to whatever the board is now (it may have
 * changed remotely meanwhile) and records the fresh inverse.
 */
import type { Board } from "./document.js";
import { applyOperation, type Operation } from "./operations.js";

export interface HistoryEntry {
  readonly op: Operation;
  readonly inverse: Operation;
}

export interface History {
  readonly past: readonly HistoryEntry[];
  readonly future: readonly HistoryEntry[];
}

export const EMPTY_HISTORY: History = { past: [], future: [] };
export const HISTORY_LIMIT = 200;

/** Applies a user's operation and records it; a new change forgets what could be redone. */
export function perform(board: Board, history: History, op: Operation): { board: Board; history: History; applied: Operation | undefined } {
  const result = applyOperation(board, op);
  if (!result.changed) return { board, history, applied: undefined };
  const past = [...history.past, { op, inverse: result.inverse }].slice(-HISTORY_LIMIT);
  return { board: result.board, history: { past, future: [] }, applied: op };
}

/** Undoes the last entry; `applied` is the operation that did it (to persist), undefined when there is nothing to undo. */
export function undo(board: Board, history: History): { board: Board; history: History; applied: Operation | undefined } {
  const entry = history.past[history.past.length - 1];
  if (entry === undefined) return { board, history, applied: undefined };
  const result = applyOperation(board, entry.inverse);
  return {
    board: result.board,
    history: { past: history.past.slice(0, -1), future: [...history.future, { op: entry.op, inverse: result.inverse }] },
    applied: entry.inverse,
  };
}

export function redo(board: Board, history: History): { board: Board; history: History; applied: Operation | undefined } {
  const entry = history.future[history.future.length - 1];
  if (entry === undefined) return { board, history, applied: undefined };
  const result = applyOperation(board, entry.op);
  return {
    board: result.board,
    history: { past: [...history.past, { op: entry.op, inverse: result.inverse }], future: history.future.slice(0, -1) },
    applied: entry.op,
  };
}

export const canUndo = (history: History): boolean => history.past.length > 0;
export const canRedo = (history: History): boolean => history.future.length > 0;
