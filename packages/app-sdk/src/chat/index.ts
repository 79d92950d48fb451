/** The chat (Interaction App) view model, shared by every host that renders a conversation. */
export * from "./timeline-model.js";
export * from "./task-output.js";
