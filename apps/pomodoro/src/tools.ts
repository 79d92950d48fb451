/**
 * The pomodoro's agent tools, declared once: the build reads this module to emit the manifest's
 * `tools`, and the running app serves the same handler (spec 7.1, 9). The session is a Runtime-owned
 * timed operation (spec 6.3): LineUp reports it started, ends it when the time is up or the user stops
 * it, and sends the agent its one result. The app shows the timer.
 */
import { defineAgentTools, timedOperation } from "@lineup/surface-sdk";
import { MAX_MINUTES, MAX_REASON_LENGTH, MAX_TITLE_LENGTH, MIN_MINUTES } from "./model.js";
import { timer } from "./service.js";

export const tools = defineAgentTools({
  "pomodoro.start": {
    title: "Start a pomodoro",
    description:
      "Starts a focus timer of the given length (the classic pomodoro is 25 minutes) and shows it to the user. " +
      "The call ends when the time is up (outcome `completed`) or when the user stops it early (outcome `interrupted`, with the time it ended).",
    call_model: "operation",
    // The user should see the timer: LineUp brings the pomodoro to the front before the session starts.
    activation_requirement: "foreground_required",
    // When the session ends, what the timer displaced (the chat, usually) comes back by itself.
    restore_focus: true,
    input_schema: {
      type: "object",
      additionalProperties: false,
      required: ["minutes"],
      properties: {
        minutes: { type: "integer", minimum: MIN_MINUTES, maximum: MAX_MINUTES, description: "How long the session lasts." },
        title: { type: "string", minLength: 1, maxLength: MAX_TITLE_LENGTH, description: "What the user focuses on, shown above the timer." },
      },
    },
    output_schema: {
      type: "object",
      additionalProperties: false,
      required: ["outcome", "operation_id"],
      properties: {
        outcome: { enum: ["completed", "interrupted"] },
        operation_id: { type: "string" },
        started_at: { type: "string" },
        ends_at: { type: "string" },
        ended_at: { type: "string" },
        reason: { type: "string" },
      },
    },
    handler: (args: { minutes: number; title?: string }, ctx) => {
      timer().start({ call_id: ctx.call_id, minutes: args.minutes, ...(args.title === undefined ? {} : { title: args.title }) });
      return timedOperation(args.minutes * 60_000);
    },
  },
  "pomodoro.interrupt": {
    title: "Stop the pomodoro",
    description:
      "Stops the running focus timer early, as the user's Stop button does: the `pomodoro.start` call ends with outcome `interrupted`. " +
      "Answers `interrupted: false` when no timer is running. It never opens the pomodoro.",
    call_model: "command",
    // Reaches the timer wherever it is — behind another app, or still starting — and never starts or moves it (spec 7.3).
    activation_requirement: "activation_not_required",
    input_schema: {
      type: "object",
      additionalProperties: false,
      properties: { reason: { type: "string", minLength: 1, maxLength: MAX_REASON_LENGTH, description: "Why it stops, shown to the agent in the start call's result." } },
    },
    output_schema: { type: "object", additionalProperties: false, required: ["interrupted"], properties: { interrupted: { type: "boolean" } } },
    handler: async (args: { reason?: string }) => ({ interrupted: await timer().stop(args.reason ?? "stopped by the agent") }),
  },
});
