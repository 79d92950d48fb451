/**
 * The host's live microphone recordings. The host, not the app, owns the microphone, so while a
 * `microphone.record` runs the shell shows it (`RecordingIndicator`): which app records, for how long,
 * and two controls — Stop (end now and keep the audio: the request completes with what was recorded)
 * and Discard (drop the audio: the request ends `cancelled_by_user`). `microphone.ts` registers each
 * recording here once its recorder has started and ends it on every path. Framework-free, so it is
 * tested in Node and shared by the provider and the shell.
 */
import { Emitter } from "@lineup/protocol";

export interface LiveRecording {
  /** The capability request that started it (one recording per request). */
  readonly request_id: string;
  readonly app_scope: string;
  /** The app's name as the user knows it. */
  readonly app_name: string;
  /** When the recorder started, on the store's clock (ms). */
  readonly started_at: number;
  /** The longest the recording may run; it ends by itself then. */
  readonly max_ms: number;
}

/** What the recording's owner does when the person presses a control. Each is called at most once. */
export interface RecordingControls {
  /** End now and keep what was recorded. */
  stop(): void;
  /** End now and drop the audio. */
  discard(): void;
}

export interface RecordingHandle {
  /** The recording is over (any reason): it leaves the indicator. Idempotent. */
  end(): void;
}

export interface RecordingStore {
  /** A recorder started: shown until `end()` or one of the person's controls. */
  begin(recording: Omit<LiveRecording, "started_at">, controls: RecordingControls): RecordingHandle;
  /** The recordings running now, oldest first. */
  list(): readonly LiveRecording[];
  /** The person pressed Stop: false when the recording is no longer running. */
  stop(request_id: string): boolean;
  /** The person pressed Discard: false when the recording is no longer running. */
  discard(request_id: string): boolean;
  /** The store's clock (ms), for elapsed times. */
  now(): number;
  subscribe(listener: (recordings: readonly LiveRecording[]) => void): () => void;
}

export interface RecordingStoreOptions {
  /** Monotonic milliseconds; `performance.now()` by default. */
  readonly now?: () => number;
}

interface Entry {
  readonly recording: LiveRecording;
  readonly controls: RecordingControls;
}

export function createRecordingStore(options: RecordingStoreOptions = {}): RecordingStore {
  const now = options.now ?? (() => performance.now());
  let entries: readonly Entry[] = [];
  let snapshot: readonly LiveRecording[] = [];
  const changes = new Emitter<readonly LiveRecording[]>((error) => console.error("[lineup] a recordings listener failed", error));
  const changed = (): void => {
    snapshot = entries.map((entry) => entry.recording);
    changes.fire(snapshot);
  };
  const remove = (entry: Entry): boolean => {
    if (!entries.includes(entry)) return false;
    entries = entries.filter((e) => e !== entry);
    changed();
    return true;
  };
  const find = (request_id: string): Entry | undefined => entries.find((entry) => entry.recording.request_id === request_id);
  // A control ends the recording for the indicator first, so a second press does nothing.
  const press = (request_id: string, control: keyof RecordingControls): boolean => {
    const entry = find(request_id);
    if (entry === undefined || !remove(entry)) return false;
    entry.controls[control]();
    return true;
  };

  return {
    begin(recording, controls) {
      const entry: Entry = { recording: { ...recording, started_at: now() }, controls };
      // A request id names one recording: a second begin replaces the first on screen.
      entries = [...entries.filter((e) => e.recording.request_id !== recording.request_id), entry];
      changed();
      return { end: () => void remove(entry) };
    },
    list: () => snapshot,
    stop: (request_id) => press(request_id, "stop"),
    discard: (request_id) => press(request_id, "discard"),
    now,
    subscribe: (listener) => changes.on(listener),
  };
}

/** `m:ss` (or `h:mm:ss`) of whole seconds elapsed, rounded down, as a recorder's clock shows it. */
export function formatElapsed(ms: number): string {
  const total = Math.floor(Math.max(0, ms) / 1_000);
  const hours = Math.floor(total / 3_600);
  const minutes = Math.floor((total % 3_600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** Milliseconds a recording has run at `at`, never past its limit. */
export function elapsedMs(recording: LiveRecording, at: number): number {
  return Math.min(recording.max_ms, Math.max(0, at - recording.started_at));
}

/** The shell's one store: the provider registers recordings here by default and `Shell` renders it. */
export const shellRecordings: RecordingStore = createRecordingStore();
