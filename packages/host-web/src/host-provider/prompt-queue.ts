/**
 * The shell's prompt queue: capability confirmations (Allow / Don't allow), "go ahead" prompts that
 * give a device picker the user activation the browser demands, and an app's MCP server's questions
 * (`elicitation/create`: a form, or accept / decline). One prompt is shown at a time, in the
 * order asked; the shell's `CapabilityPromptDialog` renders the head. Framework-free, so it is tested
 * in Node and shared by the provider and the shell.
 */
import { Emitter, type JsonObject } from "@lineup/protocol";
import type { CapabilityConfirmation, CapabilityPrompt, ElicitationAnswer, ElicitationPrompt } from "@lineup/runtime";

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
  | { readonly id: number; readonly kind: "activation"; readonly prompt: ActivationPrompt }
  | { readonly id: number; readonly kind: "elicit"; readonly prompt: ElicitationPrompt };

export interface PromptQueue {
  /** Asks the user to allow a capability: `allow`, `deny`, or `dismiss` (closed without a choice, withdrawn). */
  confirm(prompt: CapabilityPrompt): Promise<CapabilityConfirmation>;
  /** Asks the user to go ahead (a click that gives user activation); false when they cancel or `signal` aborts. */
  activate(prompt: ActivationPrompt, signal?: AbortSignal): Promise<boolean>;
  /**
   * Asks the person an MCP server's question: `accept` with what they filled in (`submit`), `decline` (`answer`
   * false), or `cancel` when closed without a choice or withdrawn (`signal`).
   */
  elicit(prompt: ElicitationPrompt, signal?: AbortSignal): Promise<ElicitationAnswer>;
  /** The person's filled-in answer to the question `id`; ignored for any other kind of prompt. */
  submit(id: number, content: JsonObject): void;
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

/** What settles a prompt: a decision, or (a question only) what the person filled in. */
type Settlement = CapabilityConfirmation | { readonly content: JsonObject };

/** A confirmation is only ever settled by a decision; filled-in content settles questions alone. */
const decision = (settled: Settlement): CapabilityConfirmation => (typeof settled === "object" ? "dismiss" : settled);

interface Entry {
  readonly queued: QueuedPrompt;
  readonly resolve: (answer: Settlement) => void;
}

export function createPromptQueue(): PromptQueue {
  let entries: readonly Entry[] = [];
  let nextId = 1;
  const changes = new Emitter<QueuedPrompt | undefined>((error) => console.error("[lineup] a prompt queue listener failed", error));
  const emit = (): void => changes.fire(entries[0]?.queued);
  const settle = (keep: (entry: Entry) => boolean, answer: Settlement): void => {
    const headBefore = entries[0];
    const gone = entries.filter((entry) => !keep(entry));
    if (gone.length === 0) return;
    entries = entries.filter(keep);
    for (const entry of gone) entry.resolve(answer);
    if (entries[0] !== headBefore) emit();
  };
  const enqueue = (make: (id: number) => QueuedPrompt): Promise<Settlement> =>
    new Promise<Settlement>((resolve) => {
      entries = [...entries, { queued: make(nextId++), resolve }];
      if (entries.length === 1) emit();
    });

  return {
    confirm(prompt) {
      // The same request asked twice shares one answer.
      const same = entries.find((entry) => entry.queued.kind === "confirm" && entry.queued.prompt.request_id === prompt.request_id);
      if (same !== undefined) {
        return new Promise<Settlement>((resolve) => {
          const previous = same.resolve;
          entries = entries.map((entry) => (entry === same ? { queued: same.queued, resolve: (answer: Settlement) => (previous(answer), resolve(answer)) } : entry));
        }).then(decision);
      }
      return enqueue((id) => ({ id, kind: "confirm", prompt })).then(decision);
    },
    activate(prompt, signal) {
      if (signal?.aborted === true) return Promise.resolve(false);
      const answer = enqueue((id) => ({ id, kind: "activation", prompt }));
      const queued = entries[entries.length - 1]!.queued;
      signal?.addEventListener("abort", () => settle((entry) => entry.queued !== queued, "dismiss"), { once: true });
      return answer.then((a) => a === "allow");
    },
    elicit(prompt, signal) {
      if (signal?.aborted === true) return Promise.resolve({ action: "cancel" });
      const answer = enqueue((id) => ({ id, kind: "elicit", prompt }));
      const queued = entries[entries.length - 1]!.queued;
      signal?.addEventListener("abort", () => settle((entry) => entry.queued !== queued, "dismiss"), { once: true });
      return answer.then((a): ElicitationAnswer => (typeof a === "object" ? { action: "accept", content: a.content } : a === "deny" ? { action: "decline" } : { action: "cancel" }));
    },
    submit(id, content) {
      settle((entry) => entry.queued.id !== id || entry.queued.kind !== "elicit", { content });
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
      return changes.on(listener);
    },
  };
}

/** The shell's one queue: the provider asks here by default and `Shell` renders it. */
export const shellPromptQueue: PromptQueue = createPromptQueue();
