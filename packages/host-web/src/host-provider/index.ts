/**
 * The browser's HostProvider and the shell's capability dialog. The host creates the provider with
 * `createBrowserHostProvider`; the shell renders `CapabilityPromptDialog` over `shellPromptQueue`.
 */
export { createBrowserHostProvider, type BrowserHostProvider, type BrowserHostProviderDeps } from "./browser-provider.js";
export { CapabilityPromptDialog } from "./CapabilityPrompt.js";
export { createPromptQueue, shellPromptQueue, type ActivationPrompt, type PromptQueue, type QueuedPrompt } from "./prompt-queue.js";
export { DEFAULT_MAX_ARTIFACT_BYTES } from "./inputs.js";
