/**
 * The dashboard's one agent tool, declared once: the build reads this module to emit the manifest's `tools`,
 * and the running app serves the same handler. An agent opens the dashboard in its conversation with it
 * ("open the task dashboard"); the tasks themselves are started by the person, from the forms.
 */
import { defineAgentTools } from "@lineup/surface-sdk";

export const tools = defineAgentTools({
  "tasks.open": {
    title: "Open the task dashboard",
    description:
      "Brings the task dashboard to the front in this conversation, where the person hands you tasks from forms " +
      "(summarize the conversation's files, plan the week from notes, write a note on a topic) and follows them.",
    call_model: "command",
    activation_requirement: "foreground_required",
    input_schema: { type: "object", additionalProperties: false, properties: {} },
    output_schema: { type: "object", additionalProperties: false, required: ["opened"], properties: { opened: { const: true } } },
    handler: () => ({ opened: true as const }),
  },
});
