/**
 * The browser's HostProvider, the shell's capability dialog and its recording indicator. The host creates
 * the provider with `createBrowserHostProvider`; the shell renders `CapabilityPromptDialog` over
 * `shellPromptQueue` and `RecordingIndicator` over `shellRecordings`.
 */
export { createBrowserHostProvider, type BrowserHostProvider, type BrowserHostProviderDeps } from "./browser-provider.js";
export { CapabilityPromptDialog } from "./CapabilityPrompt.js";
export { RecordingIndicator } from "./RecordingIndicator.js";
export { createRecordingStore, shellRecordings, type LiveRecording, type RecordingStore } from "./recordings.js";
export { createPromptQueue, shellPromptQueue, type ActivationPrompt, type PromptQueue, type QueuedPrompt } from "./prompt-queue.js";
export { DEFAULT_MAX_ARTIFACT_BYTES } from "./inputs.js";
