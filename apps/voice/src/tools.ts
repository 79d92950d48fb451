/**
 * Voice Notes' agent tool, declared once: the build reads this module to emit the manifest's `tools`,
 * and the running app serves the same handler (spec 7.1, 9). `voice.request_recording` is the spec's
 * interactive example: the call waits for the person, who sees what the agent asks and chooses Record or
 * Not now; LineUp records (its confirmation, its Stop / Discard bar); the app saves the recording as an
 * artifact of the conversation and the call returns its id.
 */
import { defineAgentTools } from "@lineup/surface-sdk";
import { MAX_PROMPT_LENGTH, MAX_SECONDS, MIN_SECONDS, DEFAULT_SECONDS, recordingRequest } from "./model.js";
import { voiceNotes } from "./service.js";

/** How long a call may wait: the person answering, LineUp's confirmation and the longest recording. */
export const REQUEST_TIMEOUT_MS = 600_000;

export const tools = defineAgentTools({
  "voice.request_recording": {
    title: "Ask the user to record a voice note",
    description:
      "Shows the user what you ask them to say (`prompt`) with Record and Not now, and waits for them (interactive). " +
      "When they record, LineUp records from the microphone (after they allow it; they can stop early or discard it) and the recording is kept " +
      "as an artifact of this conversation: the result is `{ outcome: \"recorded\", artifact_id, duration_ms, mime_type, size }` — read the audio with artifact/read. " +
      "Fails `cancelled_by_user` when they choose Not now or discard the recording, `permission_denied` when the microphone is not allowed, " +
      "`operation_expired` when it was not finished in time.",
    call_model: "interactive",
    // The person must see the request: LineUp brings Voice Notes to the front before the call runs.
    activation_requirement: "foreground_required",
    timeout_ms: REQUEST_TIMEOUT_MS,
    capabilities: ["microphone.record"],
    input_schema: {
      type: "object",
      additionalProperties: false,
      properties: {
        prompt: { type: "string", minLength: 1, maxLength: MAX_PROMPT_LENGTH, description: "What you ask the user to say, shown above the Record button." },
        max_seconds: {
          type: "integer",
          minimum: MIN_SECONDS,
          maximum: MAX_SECONDS,
          description: `The longest the recording may run, in seconds (default ${DEFAULT_SECONDS}); the user can stop earlier.`,
        },
      },
    },
    output_schema: {
      type: "object",
      additionalProperties: false,
      required: ["outcome", "artifact_id", "duration_ms", "mime_type", "size"],
      properties: {
        outcome: { enum: ["recorded"] },
        artifact_id: { type: "string", minLength: 1 },
        duration_ms: { type: "integer", minimum: 0 },
        mime_type: { type: "string", minLength: 3 },
        size: { type: "integer", minimum: 0 },
      },
    },
    handler: async (args: { prompt?: string; max_seconds?: number }, ctx) => {
      const notes = voiceNotes();
      // Interactive: answer `pending` now (the host waits 30 s for an answer), the result follows when the person has recorded.
      await ctx.progress({ stage: "waiting_for_user", message: "Waiting for the user to record a voice note" });
      return notes.request(recordingRequest(ctx.call_id, args), { signal: ctx.signal, progress: (report) => ctx.progress(report) });
    },
  },
});
