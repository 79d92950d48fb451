/**
 * `microphone.record` in the browser: `getUserMedia({audio:true})` and a `MediaRecorder` until `max_ms`
 * passes, the track ends, the person presses Stop in the shell's recording indicator (the audio is kept:
 * `completed` with what was recorded and its real duration), the person presses Discard (→
 * `cancelled_by_user`, the audio is dropped) or the request is aborted (→ `cancelled_by_user`, dropped).
 * While the recorder runs it is listed in the shell's store of live recordings (`recordings.ts`). The
 * microphone's tracks are stopped on every path, so the browser's recording indicator goes out.
 * Also the system permission prompt for the microphone (`requestMicrophone`).
 */
import { bytesToBase64, capabilityCompleted, capabilityRefused, type CapabilityResult } from "@lineup/protocol";
import type { HostInvocation } from "@lineup/runtime";
import type { AnnounceAsk, ProviderContext } from "./context.js";
import { checkMicrophoneInput } from "./inputs.js";
import { artifactJson, baseMimeType, cancelledByUser, hostFailed, nativeFailure, recordingName, tooLarge } from "./outcomes.js";
import type { RecordingHandle } from "./recordings.js";

/** Chunks arrive this often, so the size limit is enforced while recording, not after. */
const CHUNK_MS = 1_000;
const PREFERRED_TYPES = ["audio/webm;codecs=opus", "audio/webm", "audio/ogg;codecs=opus", "audio/mp4"];

export function microphoneSupported(): boolean {
  return typeof navigator !== "undefined" && typeof navigator.mediaDevices?.getUserMedia === "function" && typeof MediaRecorder === "function";
}

function stopTracks(stream: MediaStream): void {
  for (const track of stream.getTracks()) track.stop();
}

/** The system prompt: opening the microphone once asks; the tracks are stopped at once. */
export async function requestMicrophone(announceAsk: AnnounceAsk): Promise<"granted" | "denied"> {
  if (!microphoneSupported()) return "denied";
  try {
    await announceAsk("microphone");
    stopTracks(await navigator.mediaDevices.getUserMedia({ audio: true }));
    return "granted";
  } catch {
    return "denied";
  }
}

function recorderType(): string | undefined {
  return PREFERRED_TYPES.find((type) => MediaRecorder.isTypeSupported(type));
}

/** Why the recorder stopped: `time` and `stopped` keep the audio, `discarded` and `aborted` drop it. */
type Ending = "time" | "stopped" | "discarded" | "aborted" | "too_large" | "error";

export async function recordMicrophone(invocation: HostInvocation, context: ProviderContext): Promise<CapabilityResult> {
  const checked = checkMicrophoneInput(invocation.input);
  if (!checked.ok) return checked.refusal;
  const { max_ms } = checked.value;
  const { signal } = invocation;
  if (signal.aborted) return cancelledByUser("microphone.record");
  let stream: MediaStream;
  try {
    await context.announceAsk("microphone");
    stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (error) {
    return nativeFailure("microphone.record", error);
  }
  const chunks: Blob[] = [];
  let size = 0;
  let ending: Ending;
  let started = 0;
  // When the recording ended (the control pressed, the time up), not when the recorder's last chunk arrived.
  let ended: number | undefined;
  let recorder: MediaRecorder;
  let live: RecordingHandle | undefined;
  try {
    if (signal.aborted) return cancelledByUser("microphone.record");
    const mimeType = recorderType();
    recorder = new MediaRecorder(stream, mimeType === undefined ? undefined : { mimeType });
    ending = await new Promise<Ending>((resolve) => {
      let reason: Ending | undefined;
      const timer = setTimeout(() => finish("time"), max_ms);
      const onAbort = () => finish("aborted");
      const onEnded = () => finish("time");
      const tracks = stream.getAudioTracks();
      function finish(why: Ending): void {
        if (reason !== undefined) return;
        reason = why;
        ended = performance.now();
        live?.end();
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        for (const track of tracks) track.removeEventListener("ended", onEnded);
        // `stop` flushes the last chunk, then fires `stop`; an inactive recorder has nothing more to give.
        if (recorder.state === "inactive") resolve(why);
        else recorder.stop();
      }
      recorder.addEventListener("dataavailable", (event) => {
        if (event.data.size === 0) return;
        chunks.push(event.data);
        size += event.data.size;
        if (size > context.maxArtifactBytes) finish("too_large");
      });
      recorder.addEventListener("error", () => {
        finish("error");
        resolve("error");
      });
      recorder.addEventListener("stop", () => resolve(reason ?? "time"));
      signal.addEventListener("abort", onAbort, { once: true });
      for (const track of tracks) track.addEventListener("ended", onEnded, { once: true });
      try {
        recorder.start(CHUNK_MS);
      } catch {
        finish("error");
        return;
      }
      started = performance.now();
      // The person sees the recording from now on, and can end it: Stop keeps the audio, Discard drops it.
      live = context.recordings.begin(
        { request_id: invocation.request_id, app_scope: invocation.app_scope, app_name: context.appName(invocation.app_scope), max_ms },
        { stop: () => finish("stopped"), discard: () => finish("discarded") },
      );
    });
  } catch (error) {
    return nativeFailure("microphone.record", error);
  } finally {
    live?.end();
    stopTracks(stream);
  }
  const duration_ms = Math.min(max_ms, Math.max(0, Math.round((ended ?? performance.now()) - started)));
  if (ending === "discarded") return capabilityRefused("cancelled_by_user", "the user discarded the recording");
  if (ending === "aborted" || signal.aborted) return cancelledByUser("microphone.record");
  if (ending === "too_large") return tooLarge("the recording", context.maxArtifactBytes);
  if (ending === "error") return hostFailed("microphone.record");
  if (size === 0) return hostFailed("microphone.record", "the microphone produced no audio");
  try {
    const mime_type = baseMimeType(recorder.mimeType || chunks[0]?.type || "audio/webm");
    const bytes = new Uint8Array(await new Blob(chunks, { type: mime_type }).arrayBuffer());
    return capabilityCompleted({ recording: artifactJson({ name: recordingName(mime_type), mime_type, size: bytes.byteLength, data: bytesToBase64(bytes) }), duration_ms });
  } catch (error) {
    return nativeFailure("microphone.record", error);
  }
}
