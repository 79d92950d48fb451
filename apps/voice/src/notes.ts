/**
 * Voice Notes' state and work, over the bridge it is given: the agent's recording requests waiting for
 * the person, the one recording under way, and the notes of this conversation (kept in the app's session
 * data; another device's or a reload's change arrives through the subscription).
 *
 * A recording is always the person's choice: Record asks LineUp for `microphone.record` (LineUp confirms,
 * records, shows its own Stop / Discard bar); the audio it hands back is saved as an artifact of the
 * conversation (unless the host already made one), the note is added to the list, and the agent's call —
 * if the recording was for one — completes with the artifact id. Not now, a discarded recording or a
 * refusal ends the call with its typed failure.
 */
import { base64ToBytes, type ArtifactRef, type BridgeParams, type BridgeResult, type CapabilityResult, type JsonValue } from "@lineup/protocol";
import { replaceWithRetry, SessionDataStore, ToolFailure, type CapabilityRequest, type MiniAppSessionDataAPI, type SessionDataSnapshot } from "@lineup/surface-sdk";
import { DEFAULT_SECONDS, failureOf, mergeNotes, noteFileName, noteOf, parseStored, purposeFor, readRecording, resultOf, storedForm, type RecordedResult, type RecordingRequest, type VoiceNote } from "./model.js";

/** The largest recording read back for playback: the bridge's limit for one artifact read. */
export const MAX_PLAYBACK_BYTES = 16 * 1024 * 1024;

export interface VoiceNotesDeps {
  readonly sessionData: MiniAppSessionDataAPI;
  readonly capabilities: { request(request: CapabilityRequest): Promise<CapabilityResult> };
  readonly artifacts: {
    create(request: BridgeParams<"artifact.create">): Promise<ArtifactRef>;
    read(request: BridgeParams<"artifact.read">): Promise<BridgeResult<"artifact.read">>;
  };
  /** Declared events for the agent (`note.recorded` when the person records a note of their own). */
  readonly events?: { emit(name: string, data: JsonValue): Promise<void> };
  /** Epoch ms. */
  readonly now?: () => number;
  /** Where a failed session data write (the note stays on screen and its artifact exists) or an event that was not sent is reported. */
  readonly onError?: (error: unknown) => void;
}

/** What the app is doing: nothing, waiting for LineUp's recording, or saving what it got. `call_id` when it is for the agent. */
export type Activity = { readonly kind: "idle" } | { readonly kind: "recording" | "saving"; readonly call_id?: string };

export interface StageReport {
  readonly stage: string;
  readonly message: string;
}

interface Waiting {
  readonly request: RecordingRequest;
  readonly resolve: (result: RecordedResult) => void;
  readonly reject: (failure: ToolFailure) => void;
  readonly progress: ((report: StageReport) => Promise<void>) | undefined;
}

const IDLE: Activity = { kind: "idle" };
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export class VoiceNotes extends SessionDataStore {
  readonly #deps: VoiceNotesDeps;
  readonly #now: () => number;
  /** In arrival order: the person answers the oldest first. */
  readonly #waiting = new Map<string, Waiting>();
  /** Notes made here that session data does not hold yet. */
  readonly #unsaved = new Map<string, VoiceNote>();
  #stored: readonly VoiceNote[] = [];
  #notes: readonly VoiceNote[] = [];
  #revision = 0;
  #activity: Activity = IDLE;
  #problem: string | undefined;

  constructor(deps: VoiceNotesDeps) {
    super(deps.sessionData);
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** Newest first. */
  get notes(): readonly VoiceNote[] {
    return this.#notes;
  }

  /** The agent's requests waiting for the person, oldest first. */
  get requests(): readonly RecordingRequest[] {
    return [...this.#waiting.values()].map((waiting) => waiting.request);
  }

  get activity(): Activity {
    return this.#activity;
  }

  /** Why the last recording the person started from the app did not become a note, until the next one. */
  get problem(): string | undefined {
    return this.#problem;
  }

  /**
   * An agent's call (`voice.request_recording`): shown to the person until they record or decline, or the
   * call ends (`signal`). Resolves with the call's result once the recording is saved; rejects with a
   * `ToolFailure` otherwise. `progress` tells the agent each stage (recording, saving).
   */
  request(request: RecordingRequest, options: { readonly signal: AbortSignal; readonly progress?: (report: StageReport) => Promise<void> }): Promise<RecordedResult> {
    return new Promise<RecordedResult>((resolve, reject) => {
      if (options.signal.aborted) {
        reject(new ToolFailure("cancelled_by_user", "the call ended before the person answered"));
        return;
      }
      const waiting: Waiting = { request, resolve, reject, progress: options.progress };
      this.#waiting.set(request.call_id, waiting);
      options.signal.addEventListener(
        "abort",
        () => {
          // The agent cancelled or the deadline passed: the request leaves the screen (a recording under way still becomes a note).
          if (this.#waiting.get(request.call_id) !== waiting) return;
          this.#waiting.delete(request.call_id);
          this.notify();
          reject(new ToolFailure("cancelled_by_user", "the call ended before the person recorded"));
        },
        { once: true },
      );
      this.notify();
    });
  }

  /** The person chose "Not now": the agent's call ends `cancelled_by_user`. */
  decline(call_id: string): void {
    const waiting = this.#waiting.get(call_id);
    if (waiting === undefined || (this.#activity.kind !== "idle" && this.#activity.call_id === call_id)) return;
    this.#waiting.delete(call_id);
    this.notify();
    waiting.reject(new ToolFailure("cancelled_by_user", "the person chose not to record now"));
  }

  /**
   * The person pressed Record — for the agent's request `call_id`, or for a note of their own. One
   * recording at a time: a press while one is under way does nothing.
   */
  async record(call_id?: string): Promise<void> {
    if (this.#activity.kind !== "idle") return;
    const waiting = call_id === undefined ? undefined : this.#waiting.get(call_id);
    if (call_id !== undefined && waiting === undefined) return;
    const forCall = call_id === undefined ? {} : { call_id };
    this.#problem = undefined;
    this.#setActivity({ kind: "recording", ...forCall });
    void waiting?.progress?.({ stage: "recording", message: "The person is recording" }).catch(() => undefined);
    try {
      const max_seconds = waiting?.request.max_seconds ?? DEFAULT_SECONDS;
      let result: CapabilityResult;
      try {
        result = await this.#deps.capabilities.request({ capability: "microphone.record", purpose: purposeFor(waiting?.request), input: { max_ms: max_seconds * 1_000 } });
      } catch (error) {
        throw new ToolFailure("handler_failed", `the recording could not be made: ${messageOf(error)}`);
      }
      if (result.status !== "completed") {
        const failure = failureOf(result);
        throw new ToolFailure(failure.code, failure.message);
      }
      const recorded = readRecording(result.value);
      if (recorded === undefined) throw new ToolFailure("handler_failed", "LineUp's recording could not be read");
      this.#setActivity({ kind: "saving", ...forCall });
      void waiting?.progress?.({ stage: "saving", message: "Saving the recording" }).catch(() => undefined);
      const createdAt = this.#now();
      let artifact: ArtifactRef;
      try {
        artifact =
          recorded.kind === "artifact"
            ? recorded.artifact
            : await this.#deps.artifacts.create({ name: noteFileName(createdAt, recorded.mime_type), mime_type: recorded.mime_type, content: { encoding: "base64", data: recorded.data } });
      } catch (error) {
        throw new ToolFailure("handler_failed", `the recording could not be saved: ${messageOf(error)}`);
      }
      const note = noteOf(artifact, recorded.duration_ms, createdAt);
      await this.#add(note);
      this.#finish(call_id, waiting, (w) => w.resolve(resultOf(note)));
      // A note of the person's own: the agent hears it exists (an agent's request hears it through its call).
      if (call_id === undefined) void this.#deps.events?.emit("note.recorded", { artifact_id: note.id, name: note.name, duration_ms: note.duration_ms, mime_type: note.mime_type, size: note.size }).catch((error: unknown) => this.#deps.onError?.(error));
    } catch (error) {
      const failure = error instanceof ToolFailure ? error : new ToolFailure("handler_failed", messageOf(error));
      this.#problem = failure.code === "cancelled_by_user" ? undefined : `Not recorded: ${failure.message}`;
      this.#finish(call_id, waiting, (w) => w.reject(failure));
    }
  }

  /** The recording of a note, read back from its artifact for playback. */
  async audio(note_id: string): Promise<{ readonly bytes: Uint8Array; readonly mime_type: string }> {
    const read = await this.#deps.artifacts.read({ artifact_id: note_id, max_bytes: MAX_PLAYBACK_BYTES });
    if (read.truncated) throw new Error("the recording is too large to play here");
    const bytes = read.content.encoding === "base64" ? base64ToBytes(read.content.data) : new TextEncoder().encode(read.content.data);
    if (bytes === undefined) throw new Error("the recording could not be read");
    return { bytes, mime_type: read.artifact.mime_type };
  }

  /** The recording is over: the activity goes back to idle and the call (if it is still waiting) hears the outcome. */
  #finish(call_id: string | undefined, waiting: Waiting | undefined, settle: (waiting: Waiting) => void): void {
    const current = call_id === undefined ? undefined : this.#waiting.get(call_id);
    if (call_id !== undefined && current === waiting) this.#waiting.delete(call_id);
    this.#activity = IDLE;
    this.notify();
    if (waiting !== undefined && current === waiting) settle(waiting);
  }

  async #add(note: VoiceNote): Promise<void> {
    this.#unsaved.set(note.id, note);
    this.#notes = mergeNotes([...this.#unsaved.values()], this.#stored);
    this.notify();
    // Notes from elsewhere are never dropped: on a stale revision, the stored list is read again and the union written.
    let notes: VoiceNote[] = [];
    try {
      const { revision } = await replaceWithRetry(this.#deps.sessionData, this.#revision, (newer) => {
        if (newer !== undefined) this.applySnapshot(newer);
        notes = mergeNotes([...this.#unsaved.values()], this.#stored);
        return storedForm(notes);
      });
      if (revision >= this.#revision) {
        this.#revision = revision;
        this.#stored = notes;
      }
      for (const saved of notes) this.#unsaved.delete(saved.id);
      this.#notes = mergeNotes([...this.#unsaved.values()], this.#stored);
      this.notify();
    } catch (error) {
      this.#deps.onError?.(error);
    }
  }

  protected applySnapshot(snapshot: SessionDataSnapshot): void {
    if (snapshot.revision < this.#revision) return;
    this.#revision = snapshot.revision;
    this.#stored = parseStored(snapshot.data);
    this.#notes = mergeNotes([...this.#unsaved.values()], this.#stored);
    this.notify();
  }

  #setActivity(activity: Activity): void {
    this.#activity = activity;
    this.notify();
  }
}
