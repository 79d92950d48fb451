/**
 * The shell's notifications (toasts): any part of the host pushes one; the shell shows the latest few and
 * drops each after its time. Framework-free, so core apps and the bootstrap share it.
 */
export interface Toast {
  readonly id: number;
  readonly text: string;
  readonly tone: "info" | "success" | "error";
}

export interface Notifications {
  push(text: string, tone?: Toast["tone"]): void;
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
  const listeners = new Set<(toasts: readonly Toast[]) => void>();
  const emit = (): void => {
    for (const listener of [...listeners]) listener(toasts);
  };
  const api: Notifications = {
    push(text, tone = "info") {
      const id = nextId++;
      toasts = [...toasts, { id, text, tone }].slice(-max);
      emit();
      setTimer(timeoutMs, () => api.dismiss(id));
    },
    dismiss(id) {
      if (!toasts.some((t) => t.id === id)) return;
      toasts = toasts.filter((t) => t.id !== id);
      emit();
    },
    list: () => toasts,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return api;
}
