/**
 * The pomodoro's display model: what the screen shows of one focus session, kept in the app's session
 * data so a reload (or a return from the background) shows the same timer. It is a picture of the
 * Runtime's operation, not the operation: LineUp decides when the session ends and tells the agent;
 * the app only counts down to the same moment and records that the user stopped it.
 */
import type { JsonObject } from "@lineup/protocol";

export const MIN_MINUTES = 1;
export const MAX_MINUTES = 120;
export const MAX_TITLE_LENGTH = 80;
/** The Runtime keeps 200 characters of an interruption's reason. */
export const MAX_REASON_LENGTH = 200;

export interface FocusSession {
  /** The tool call that started it (its one result is the Runtime's). */
  readonly call_id: string;
  readonly title: string;
  readonly minutes: number;
  /** Epoch ms, as this device saw the start. */
  readonly started_at: number;
  readonly ends_at: number;
  /** Set when the user stopped it early. */
  readonly stopped_at?: number;
}

export type Phase = "idle" | "running" | "done" | "stopped";

export function startSession(request: { call_id: string; minutes: number; title?: string }, now: number): FocusSession {
  const minutes = Math.min(MAX_MINUTES, Math.max(MIN_MINUTES, Math.round(request.minutes)));
  const title = (request.title ?? "").trim().slice(0, MAX_TITLE_LENGTH) || "Focus";
  return { call_id: request.call_id, title, minutes, started_at: now, ends_at: now + minutes * 60_000 };
}

export function stopSession(session: FocusSession, now: number): FocusSession {
  if (phaseAt(session, now) !== "running") return session;
  return { ...session, stopped_at: now };
}

export function phaseAt(session: FocusSession | null, now: number): Phase {
  if (session === null) return "idle";
  if (session.stopped_at !== undefined) return "stopped";
  return now >= session.ends_at ? "done" : "running";
}

/** Milliseconds left: until the end while it runs, what was left when it was stopped, 0 once it is done. */
export function remainingMs(session: FocusSession, now: number): number {
  return Math.max(0, session.ends_at - (session.stopped_at ?? now));
}

/** How far through the session it is, 0 … 1. */
export function progressAt(session: FocusSession, now: number): number {
  const total = session.ends_at - session.started_at;
  if (total <= 0) return 1;
  const at = Math.min(session.stopped_at ?? now, session.ends_at);
  return Math.min(1, Math.max(0, (at - session.started_at) / total));
}

/** `mm:ss`, rounding up so the clock shows 00:00 only when the time is up. */
export function formatClock(ms: number): string {
  const seconds = Math.ceil(Math.max(0, ms) / 1_000);
  const minutes = Math.floor(seconds / 60);
  return `${String(minutes).padStart(2, "0")}:${String(seconds % 60).padStart(2, "0")}`;
}

/** The session stored in session data, or null for anything that is not one (a missing or foreign value). */
export function parseStored(data: JsonObject | null): FocusSession | null {
  const value = data?.["session"];
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const s = value as Record<string, unknown>;
  const finite = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);
  if (typeof s["call_id"] !== "string" || typeof s["title"] !== "string" || !finite(s["minutes"]) || !finite(s["started_at"]) || !finite(s["ends_at"])) return null;
  if (s["stopped_at"] !== undefined && !finite(s["stopped_at"])) return null;
  return {
    call_id: s["call_id"],
    title: s["title"],
    minutes: s["minutes"],
    started_at: s["started_at"],
    ends_at: s["ends_at"],
    ...(s["stopped_at"] === undefined ? {} : { stopped_at: s["stopped_at"] as number }),
  };
}

export function storedForm(session: FocusSession): JsonObject {
  return { session: { ...session } };
}
