/**
 * @lineup/agent-sdk: the client library for remote LineUp agents, the demo agent and the
 * OpenAI-compatible LLM adapter. Platform-neutral; the Node WebSocket transport is at
 * `@lineup/agent-sdk/node`.
 */
export * from "./lifecycle.js";
export * from "./platform.js";
export * from "./transport.js";
export * from "./memory-transport.js";
export * from "./backoff.js";
export * from "./async-queue.js";
export * from "./rpc-client.js";
export * from "./messages.js";
export * from "./session-state.js";
export * from "./tool-calls.js";
export * from "./agent-client.js";
export * from "./task-turns.js";
export * from "./demo/app-events.js";
export * from "./demo/intents.js";
export * from "./demo/tasks.js";
export * from "./demo/tool-match.js";
export * from "./demo/whiteboard.js";
export * from "./demo-agent.js";
export * from "./turn-runner.js";
export * from "./turn-scope.js";
export * from "./turn-text.js";
export * from "./llm/chat-completions.js";
export * from "./llm/sse.js";
export * from "./llm/completion-stream.js";
export * from "./llm/function-tools.js";
export * from "./llm-agent.js";
