/**
 * The agent's side of the tool call lifecycle (spec 7.3): each `call_id` gets receipts and
 * progress as an async iterable and exactly one terminal outcome — a `lineup.tool.result`
 * resolves it, a `lineup.tool.error` rejects it with a `LineUpError` of the Runtime's code.
 * A second terminal for the same call is ignored and counted; so is one that arrives after the
 * agent gave up locally (timeout, abort).
 */
import { LineUpError, dropOldest, isErrorCode, type JsonValue, type RuntimeEnvelope } from "@lineup/protocol";
import { AsyncQueue } from "./async-queue.js";

export type ToolCallUpdate =
  | { readonly type: "receipt"; readonly status: string; readonly code?: string; readonly message?: string; readonly tool?: { readonly method: string; readonly title: string } }
  | { readonly type: "progress"; readonly stage?: string; readonly progress?: number; readonly message?: string; readonly data?: JsonValue };

/**
 * The times of a Runtime-owned timed operation that has just started (its `started` progress carries
 * `{ started_at, ends_at }`): its end, exactly once, is the Runtime's. Undefined for any other update.
 */
export function timedOperationStarted(update: ToolCallUpdate): { readonly started_at: string; readonly ends_at: string; readonly planned_ms: number } | undefined {
  if (update.type !== "progress" || update.stage !== "started") return undefined;
  const data = update.data;
  if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
  const startedAt = data["started_at"];
  const endsAt = data["ends_at"];
  if (typeof startedAt !== "string" || typeof endsAt !== "string") return undefined;
  const planned = Date.parse(endsAt) - Date.parse(startedAt);
  return Number.isFinite(planned) && planned > 0 ? { started_at: startedAt, ends_at: endsAt, planned_ms: planned } : undefined;
}

export interface ToolCallHandle {
  readonly callId: string;
  readonly sessionId: string;
  readonly method: string;
  /** Receipts and progress in the order the Runtime sent them; ends when the call ends. */
  readonly progress: AsyncIterable<ToolCallUpdate>;
  /** The one terminal result, or a `LineUpError` (`tool_not_visible`, `stale_inventory_revision`, `cancelled_by_user`, `operation_expired`, …). */
  readonly result: Promise<JsonValue>;
  /** Gives up on the call: rejects `result` with `request_cancelled` and tells the Runtime (`lineup.tool.cancel`). */
  cancel(reason?: string): void;
}

export interface ToolCallStats {
  duplicateTerminals: number;
  lateTerminals: number;
}

interface Entry {
  readonly queue: AsyncQueue<ToolCallUpdate>;
  resolve(value: JsonValue): void;
  reject(error: LineUpError): void;
  settled: boolean;
  /** A Runtime-owned timed operation that has started: it runs on by itself, whatever becomes of its turn. */
  timerStarted: boolean;
  readonly onSettle: (() => void)[];
}

export class ToolCallTracker {
  private readonly calls = new Map<string, Entry>();
  /** Calls that ended, kept so that a repeated or late terminal is recognised (bounded). */
  private readonly ended = new Map<string, "terminal" | "local">();
  readonly stats: ToolCallStats = { duplicateTerminals: 0, lateTerminals: 0 };

  /** Registers a call before its invoke is sent, so no answer can arrive unobserved. */
  open(callId: string): { queue: AsyncQueue<ToolCallUpdate>; result: Promise<JsonValue>; onSettle(fn: () => void): void } {
    const queue = new AsyncQueue<ToolCallUpdate>();
    let resolve!: (value: JsonValue) => void;
    let reject!: (error: LineUpError) => void;
    const result = new Promise<JsonValue>((res, rej) => ((resolve = res), (reject = rej)));
    // The caller may only iterate progress; an unobserved rejection must not crash the process.
    result.catch(() => undefined);
    const entry: Entry = { queue, resolve, reject, settled: false, timerStarted: false, onSettle: [] };
    this.calls.set(callId, entry);
    return { queue, result, onSettle: (fn) => entry.onSettle.push(fn) };
  }

  isOpen(callId: string): boolean {
    return this.calls.has(callId);
  }

  /**
   * Whether the call is a Runtime-owned timer that has started (its `started` progress arrived): the Runtime
   * keeps it running when its turn is cancelled, so the agent keeps following it to its end.
   */
  timerRunning(callId: string): boolean {
    return this.calls.get(callId)?.timerStarted === true;
  }

  /** Ends a call locally (refused before sending, timed out, aborted, client closed). */
  failLocally(callId: string, error: LineUpError): void {
    this.settle(callId, "local", (entry) => entry.reject(error));
  }

  /** Feeds an envelope from the session log; returns true when it belonged to a call. */
  deliver(envelope: RuntimeEnvelope): boolean {
    const callId = envelope.correlation?.call_id;
    if (callId === undefined || envelope.sender.kind === "agent") return false;
    const terminal = envelope.type === "lineup.tool.result" || envelope.type === "lineup.tool.error";
    const entry = this.calls.get(callId);
    if (entry === undefined) {
      const ended = this.ended.get(callId);
      if (terminal && ended === "terminal") this.stats.duplicateTerminals++;
      else if (terminal && ended === "local") this.stats.lateTerminals++;
      return ended !== undefined;
    }
    switch (envelope.type) {
      case "lineup.tool.receipt": {
        const p = envelope.payload as { status: string; code?: string; message?: string; tool?: { method: string; title: string } };
        entry.queue.push({
          type: "receipt",
          status: p.status,
          ...(p.code === undefined ? {} : { code: p.code }),
          ...(p.message === undefined ? {} : { message: p.message }),
          // The app's own title for the tool (on `accepted`).
          ...(p.tool === undefined ? {} : { tool: { method: p.tool.method, title: p.tool.title } }),
        });
        return true;
      }
      case "lineup.tool.progress": {
        const p = envelope.payload as { stage?: string; progress?: number; message?: string; data?: JsonValue };
        const update: ToolCallUpdate = {
          type: "progress",
          ...(p.stage === undefined ? {} : { stage: p.stage }),
          ...(p.progress === undefined ? {} : { progress: p.progress }),
          ...(p.message === undefined ? {} : { message: p.message }),
          ...(p.data === undefined ? {} : { data: p.data }),
        };
        if (timedOperationStarted(update) !== undefined) entry.timerStarted = true;
        entry.queue.push(update);
        return true;
      }
      case "lineup.tool.result": {
        const p = envelope.payload as { result: JsonValue };
        this.settle(callId, "terminal", (e) => e.resolve(p.result));
        return true;
      }
      case "lineup.tool.error": {
        const p = envelope.payload as { code: string; message: string };
        const code = isErrorCode(p.code) ? p.code : "handler_failed";
        this.settle(callId, "terminal", (e) => e.reject(new LineUpError(code, p.message, { data: { call_id: callId, from: "runtime" } })));
        return true;
      }
      default:
        return false;
    }
  }

  /** Rejects every open call (the client is closing). */
  failAll(error: () => LineUpError): void {
    for (const callId of [...this.calls.keys()]) this.failLocally(callId, error());
  }

  get openCount(): number {
    return this.calls.size;
  }

  private settle(callId: string, how: "terminal" | "local", finish: (entry: Entry) => void): void {
    const entry = this.calls.get(callId);
    if (entry === undefined || entry.settled) return;
    entry.settled = true;
    this.calls.delete(callId);
    this.ended.set(callId, how);
    dropOldest(this.ended, 10_000);
    entry.queue.end();
    finish(entry);
    for (const fn of entry.onSettle) fn();
  }
}
