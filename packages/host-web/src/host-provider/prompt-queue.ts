/**
 * The shell's prompt queue: capability confirmations (Allow / Don't allow) and "go ahead" prompts that
 * give a device picker the user activation the browser demands. One prompt is shown at a time, in the
 * order asked; the shell's `CapabilityPromptDialog` renders the head. Framework-free, so it is tested
 * in Node and shared by the provider and the shell.
 */
import type { CapabilityConfirmation, CapabilityPrompt } from "@lineup/runtime";

/** A prompt whose only purpose is a user gesture: the browser opens a picker only from one. */
export interface ActivationPrompt {
  readonly request_id: string;
  readonly app_scope: string;
  readonly app_name: string;
  /** "Choose a file for Notes", shown as the dialog's heading. */
  readonly title: string;
  readonly detail: string;
  /** The button that goes ahead ("Choose file…"); the other one cancels. */
  readonly action: string;
}

export type QueuedPrompt =
  | { readonly id: number; readonly kind: "confirm"; readonly prompt: CapabilityPrompt }
  | { readonly id: number; readonly kind: "activation"; readonly prompt: ActivationPrompt };

export interface PromptQueue {
  /** Asks the user to allow a capability: `allow`, `deny`, or `dismiss` (closed without a choice, withdrawn). */
  confirm(prompt: CapabilityPrompt): Promise<CapabilityConfirmation>;
  /** Asks the user to go ahead (a click that gives user activation); false when they cancel or `signal` aborts. */
  activate(prompt: ActivationPrompt, signal?: AbortSignal): Promise<boolean>;
  /** The prompt on screen, if any. */
  current(): QueuedPrompt | undefined;
  /** The user's answer to the prompt `id`; answers to prompts no longer queued are ignored. */
  answer(id: number, allowed: boolean): void;
  /** The prompt `id` was closed without a choice (Escape): a confirmation resolves `dismiss`, an activation false. */
  dismiss(id: number): void;
  /** Withdraws every prompt of a request (it expired or was cancelled): confirmations resolve `dismiss`, activations false. */
  withdraw(request_id: string): void;
  subscribe(listener: (current: QueuedPrompt | undefined) => void): () => void;
}

interface Entry {
  readonly queued: QueuedPrompt;
  readonly resolve: (answer: CapabilityConfirmation) => void;
}

export function createPromptQueue(): PromptQueue {
  let entries: readonly Entry[] = [];
  let nextId = 1;
  const listeners = new Set<(current: QueuedPrompt | undefined) => void>();
  const emit = (): void => {
    const head = entries[0]?.queued;
    for (const listener of [...listeners]) listener(head);
  };
  const settle = (keep: (entry: Entry) => boolean, answer: CapabilityConfirmation): void => {
    const headBefore = entries[0];
    const gone = entries.filter((entry) => !keep(entry));
    if (gone.length === 0) return;
    entries = entries.filter(keep);
    for (const entry of gone) entry.resolve(answer);
    if (entries[0] !== headBefore) emit();
  };
  const enqueue = (make: (id: number) => QueuedPrompt): Promise<CapabilityConfirmation> =>
    new Promise<CapabilityConfirmation>((resolve) => {
      entries = [...entries, { queued: make(nextId++), resolve }];
      if (entries.length === 1) emit();
    });

  return {
    confirm(prompt) {
      // The same request asked twice shares one answer.
      const same = entries.find((entry) => entry.queued.kind === "confirm" && entry.queued.prompt.request_id === prompt.request_id);
      if (same !== undefined) {
        return new Promise<CapabilityConfirmation>((resolve) => {
          const previous = same.resolve;
          entries = entries.map((entry) => (entry === same ? { queued: same.queued, resolve: (answer: CapabilityConfirmation) => (previous(answer), resolve(answer)) } : entry));
        });
      }
      return enqueue((id) => ({ id, kind: "confirm", prompt }));
    },
    activate(prompt, signal) {
      if (signal?.aborted === true) return Promise.resolve(false);
      const answer = enqueue((id) => ({ id, kind: "activation", prompt }));
      const queued = entries[entries.length - 1]!.queued;
      signal?.addEventListener("abort", () => settle((entry) => entry.queued !== queued, "dismiss"), { once: true });
      return answer.then((a) => a === "allow");
    },
    current: () => entries[0]?.queued,
    answer(id, allowed) {
      settle((entry) => entry.queued.id !== id, allowed ? "allow" : "deny");
    },
    dismiss(id) {
      settle((entry) => entry.queued.id !== id, "dismiss");
    },
    withdraw(request_id) {
      settle((entry) => entry.queued.prompt.request_id !== request_id, "dismiss");
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The shell's one queue: the provider asks here by default and `Shell` renders it. */
export const shellPromptQueue: PromptQueue = createPromptQueue();
