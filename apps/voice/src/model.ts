/**
 * Voice Notes' pure model: what an agent's recording request asks, how a finished recording becomes a
 * note and the call's result, how a refused capability becomes the call's typed failure, and the list of
 * notes kept in the app's session data (id, name, duration, created_at — never the audio, which lives in
 * the note's artifact). No DOM and no bridge here, so it is tested in Node.
 */
import { CAPABILITY_REFUSAL_STATUSES, type ArtifactRef, type CapabilityRefusal, type CapabilityRefusalStatus, type JsonObject, type JsonValue } from "@lineup/protocol";
import type { AppToolErrorCode } from "@lineup/surface-sdk";

/** What the agent may ask the person to say, in characters. */
export const MAX_PROMPT_LENGTH = 200;
export const MIN_SECONDS = 1;
export const MAX_SECONDS = 300;
/** The limit of a recording when the agent names none, and of one the person starts from the app. */
export const DEFAULT_SECONDS = 60;
/** Notes kept in the list (the oldest fall off; their artifacts stay in the conversation). */
export const MAX_NOTES = 200;

/** One agent call waiting for the person: what it asks and how long the recording may be. */
export interface RecordingRequest {
  readonly call_id: string;
  /** What the agent asks the person to say, trimmed; absent when it asked nothing in particular. */
  readonly prompt?: string;
  readonly max_seconds: number;
}

/** A note of the list: what is kept in session data. The audio is the artifact `id`. */
export interface VoiceNote {
  /** The artifact id of the recording. */
  readonly id: string;
  /** The artifact's file name. */
  readonly name: string;
  readonly duration_ms: number;
  readonly mime_type: string;
  /** Bytes of the recording. */
  readonly size: number;
  /** ISO 8601, when the recording was saved. */
  readonly created_at: string;
}

/** `voice.request_recording`'s result. */
export type RecordedResult = {
  readonly outcome: "recorded";
  readonly artifact_id: string;
  readonly duration_ms: number;
  readonly mime_type: string;
  readonly size: number;
};

/** What `microphone.record` handed back: the audio itself (the web host), or a reference to an artifact the host already made. */
export type Recorded =
  | { readonly kind: "bytes"; readonly name: string; readonly mime_type: string; readonly size: number; readonly data: string; readonly duration_ms: number }
  | { readonly kind: "artifact"; readonly artifact: ArtifactRef; readonly duration_ms: number };

export function recordingRequest(call_id: string, args: { prompt?: string; max_seconds?: number }): RecordingRequest {
  const prompt = (args.prompt ?? "").trim().slice(0, MAX_PROMPT_LENGTH);
  const seconds = args.max_seconds === undefined || !Number.isFinite(args.max_seconds) ? DEFAULT_SECONDS : Math.round(args.max_seconds);
  return { call_id, ...(prompt === "" ? {} : { prompt }), max_seconds: Math.min(MAX_SECONDS, Math.max(MIN_SECONDS, seconds)) };
}

/** The purpose shown in LineUp's confirmation next to the manifest's (at most 500 characters). */
export function purposeFor(request: RecordingRequest | undefined): string {
  if (request === undefined) return "Record a voice note you keep in this conversation.";
  const asks = request.prompt === undefined ? "The agent asked you for a voice note." : `The agent asked you: “${request.prompt}”`;
  return `${asks} The recording is kept in this conversation for the agent to read.`.slice(0, 500);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;
const nonEmpty = (value: unknown): value is string => typeof value === "string" && value.length > 0;

function artifactRef(value: unknown): ArtifactRef | undefined {
  if (!isObject(value)) return undefined;
  const { artifact_id, name, mime_type, size, sha256 } = value;
  if (!nonEmpty(artifact_id) || !nonEmpty(name) || !nonEmpty(mime_type) || !isCount(size) || typeof sha256 !== "string") return undefined;
  return { artifact_id, name, mime_type, size, sha256 } as ArtifactRef;
}

/**
 * Reads a completed `microphone.record` value: `{ recording: { name, mime_type, size, data }, duration_ms }`
 * (the bytes, base64) or — from a host that stores the recording itself — `{ recording | artifact:
 * ArtifactRef, duration_ms }`. Anything else is undefined.
 */
export function readRecording(value: JsonValue): Recorded | undefined {
  if (!isObject(value)) return undefined;
  const duration_ms = isCount(value["duration_ms"]) ? Math.round(value["duration_ms"]) : undefined;
  if (duration_ms === undefined) return undefined;
  const reference = artifactRef(value["artifact"]) ?? artifactRef(value["recording"]);
  if (reference !== undefined) return { kind: "artifact", artifact: reference, duration_ms };
  const recording = value["recording"];
  if (!isObject(recording)) return undefined;
  const { name, mime_type, size, data } = recording;
  if (!nonEmpty(mime_type) || typeof data !== "string" || data.length === 0) return undefined;
  return { kind: "bytes", name: nonEmpty(name) ? name : "recording", mime_type, size: isCount(size) ? size : 0, data, duration_ms };
}

const EXTENSIONS: Readonly<Record<string, string>> = { "audio/webm": "webm", "audio/ogg": "ogg", "audio/mp4": "m4a", "audio/mpeg": "mp3", "audio/wav": "wav", "audio/x-wav": "wav" };

/** `voice-note-20261130-090005.webm`: the artifact's file name, from when it was saved (UTC) and its type. */
export function noteFileName(createdAt: number, mime_type: string): string {
  const stamp = new Date(createdAt).toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  const extension = EXTENSIONS[mime_type.split(";")[0]!.trim().toLowerCase()] ?? "bin";
  return `voice-note-${stamp}.${extension}`;
}

export function noteOf(artifact: ArtifactRef, duration_ms: number, createdAt: number): VoiceNote {
  return { id: artifact.artifact_id, name: artifact.name, duration_ms, mime_type: artifact.mime_type, size: artifact.size, created_at: new Date(createdAt).toISOString() };
}

export function resultOf(note: VoiceNote): RecordedResult {
  return { outcome: "recorded", artifact_id: note.id, duration_ms: note.duration_ms, mime_type: note.mime_type, size: note.size };
}

/** The app tool error each capability refusal ends the call with (the app may use only these codes). */
const FAILURE_CODES: Readonly<Record<CapabilityRefusalStatus, AppToolErrorCode>> = {
  cancelled_by_user: "cancelled_by_user",
  permission_denied: "permission_denied",
  policy_denied: "permission_denied",
  expired: "operation_expired",
  unsupported_on_host: "handler_failed",
  failed: "handler_failed",
};

const FAILURE_TEXT: Readonly<Record<CapabilityRefusalStatus, string>> = {
  cancelled_by_user: "the person cancelled the recording",
  permission_denied: "the microphone was not allowed",
  policy_denied: "a policy does not allow recording",
  expired: "the recording was not finished in time",
  unsupported_on_host: "this device cannot record from a microphone",
  failed: "the recording failed",
};

/** A refused `microphone.record` as the call's failure: its code, and a message for the agent and the person. */
export function failureOf(refusal: CapabilityRefusal): { readonly code: AppToolErrorCode; readonly message: string } {
  const status: CapabilityRefusalStatus = (CAPABILITY_REFUSAL_STATUSES as readonly string[]).includes(refusal.status) ? refusal.status : "failed";
  return { code: FAILURE_CODES[status], message: `${FAILURE_TEXT[status]} (${refusal.message})`.slice(0, 2_000) };
}

const byNewest = (a: VoiceNote, b: VoiceNote): number => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Both lists as one: each note once (by id, the first list's copy wins), newest first, at most `MAX_NOTES`. */
export function mergeNotes(first: readonly VoiceNote[], second: readonly VoiceNote[]): VoiceNote[] {
  const seen = new Map<string, VoiceNote>();
  for (const note of [...first, ...second]) if (!seen.has(note.id)) seen.set(note.id, note);
  return [...seen.values()].sort(byNewest).slice(0, MAX_NOTES);
}

function parseNote(value: unknown): VoiceNote | undefined {
  if (!isObject(value)) return undefined;
  const { id, name, duration_ms, mime_type, size, created_at } = value;
  if (!nonEmpty(id) || !nonEmpty(name) || !isCount(duration_ms) || !nonEmpty(mime_type) || !isCount(size) || typeof created_at !== "string" || Number.isNaN(Date.parse(created_at))) return undefined;
  return { id, name, duration_ms, mime_type, size, created_at };
}

/** The notes in session data; entries that are not notes are skipped, a missing or foreign value is none. */
export function parseStored(data: JsonObject | null): VoiceNote[] {
  const value = data?.["notes"];
  if (!Array.isArray(value)) return [];
  return mergeNotes(value.map(parseNote).filter((note): note is VoiceNote => note !== undefined), []);
}

export function storedForm(notes: readonly VoiceNote[]): JsonObject {
  return { notes: notes.map((note) => ({ ...note })) };
}

/** `m:ss` of a note's length, to the nearest second (a note under half a second shows `0:01`). */
export function formatDuration(ms: number): string {
  const seconds = Math.max(ms > 0 ? 1 : 0, Math.round(Math.max(0, ms) / 1_000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}
