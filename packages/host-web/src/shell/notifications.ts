/**
 * The shell's notifications (toasts): any part of the host pushes one; the shell shows the latest few and
 * drops each after its time. Framework-free, so core apps and the bootstrap share it.
 */
import { Emitter } from "@lineup/protocol";

export interface ToastAction {
  /** The button's text ("Reload"). */
  readonly label: string;
  /** What pressing it does; the toast is dismissed first. */
  readonly run: () => void;
}

export interface Toast {
  readonly id: number;
  readonly text: string;
  readonly tone: "info" | "success" | "error";
  readonly action?: ToastAction;
}

export interface Notifications {
  /**
   * Shows a toast; returns its id. One without an action goes after `timeoutMs`. One with an action stays
   * until it is dismissed or its action is taken: it is the only way to that action (a Reload for an app that
   * died may be wanted minutes later, by a person who was looking elsewhere when it was shown).
   */
  push(text: string, tone?: Toast["tone"], action?: ToastAction): number;
  dismiss(id: number): void;
  list(): readonly Toast[];
  subscribe(listener: (toasts: readonly Toast[]) => void): () => void;
}

export function createNotifications(options: { max?: number; timeoutMs?: number; setTimer?: (ms: number, fn: () => void) => void } = {}): Notifications {
  const max = options.max ?? 4;
  const timeoutMs = options.timeoutMs ?? 6_000;
  const setTimer = options.setTimer ?? ((ms, fn) => void setTimeout(fn, ms));
  let toasts: readonly Toast[] = [];
  let nextId = 1;
  const changes = new Emitter<readonly Toast[]>((error) => console.error("[lineup] a notifications listener failed", error));
  const emit = (): void => changes.fire(toasts);
  const api: Notifications = {
    push(text, tone = "info", action) {
      const id = nextId++;
      toasts = [...toasts, { id, text, tone, ...(action === undefined ? {} : { action }) }].slice(-max);
      emit();
      if (action === undefined) setTimer(timeoutMs, () => api.dismiss(id));
      return id;
    },
    dismiss(id) {
      if (!toasts.some((t) => t.id === id)) return;
      toasts = toasts.filter((t) => t.id !== id);
      emit();
    },
    list: () => toasts,
    subscribe: (listener) => changes.on(listener),
  };
  return api;
}
