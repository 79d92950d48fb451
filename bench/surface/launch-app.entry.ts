/**
 * The installed app of the launch bench: the real surface SDK and Preact, one tool that needs the app
 * ready (`bench.open`, so the Runtime starts an instance to serve it), a small view, then `ready()`.
 */
import { h, render } from "preact";
import { connectSurface, defineAgentTools } from "@lineup/surface-sdk";

export const tools = defineAgentTools({
  "bench.open": {
    title: "Open the bench board",
    call_model: "command",
    activation_requirement: "app_ready",
    input_schema: { type: "object", additionalProperties: false },
    output_schema: { type: "object" },
    handler: () => ({ opened: true }),
  },
});

void (async () => {
  const surface = await connectSurface({ tools });
  render(h("main", null, h("h1", null, "Bench board"), h("p", null, "Opened by the agent.")), document.body);
  await surface.lifecycle.ready();
})();
