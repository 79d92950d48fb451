/**
 * What every browser capability module gets from `createBrowserHostProvider`: the shell's prompt queue,
 * the shell's store of live recordings, the artifact limit, the app's display name and whether the page
 * holds a user gesture right now.
 */
import type { PromptQueue } from "./prompt-queue.js";
import type { RecordingStore } from "./recordings.js";

export interface ProviderContext {
  readonly prompts: PromptQueue;
  /** Where a running microphone recording is shown with its Stop / Discard controls. */
  readonly recordings: RecordingStore;
  readonly maxArtifactBytes: number;
  readonly appName: (appScope: string) => string;
  /** True while the page has transient user activation (pickers need it). */
  readonly hasUserActivation: () => boolean;
  /**
   * Called right before the page asks the browser for a system permission: inside the desktop's window it tells the
   * native side the ask is coming (host channel `permission.expect`), which refuses every ask it was not told of.
   */
  readonly announceAsk: AnnounceAsk;
}

/** See `ProviderContext.announceAsk`; settles once the native side has heard it, or at once where there is none. */
export type AnnounceAsk = (permission: "microphone" | "notifications") => Promise<void>;

/**
 * Makes sure the page holds a user gesture before a picker opens: when it does not, the shell shows a
 * prompt whose button supplies one. False when the user cancels or the request is aborted.
 */
export async function ensureUserActivation(context: ProviderContext, request: { request_id: string; app_scope: string; signal: AbortSignal }, text: { title: string; detail: string; action: string }): Promise<boolean> {
  if (request.signal.aborted) return false;
  if (context.hasUserActivation()) return true;
  const app_name = context.appName(request.app_scope);
  return context.prompts.activate({ request_id: request.request_id, app_scope: request.app_scope, app_name, ...text }, request.signal);
}
