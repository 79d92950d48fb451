/**
 * @lineup/app-sdk/testkit: run an app's tools against a real Runtime in one process — a memory store,
 * a fake App Server and a fake clock — and play the agent. Platform-neutral (no `node:*`).
 */
export { createTestRuntime, type TestApp, type TestRuntime, type TestRuntimeOptions } from "./test-runtime.js";
export type { AgentCall, AgentCallOutcome, InvokeOptions, PublishedInventory, ReceivedAppEvent, TestAgent, ToolOutput } from "./agent.js";
