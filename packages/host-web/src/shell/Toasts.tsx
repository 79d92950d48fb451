import { useEffect, useState } from "preact/hooks";
import { t } from "../i18n/index.js";
import type { Notifications, Toast } from "./notifications.js";

/** The toast stack: a polite live region, so screen readers hear each notification once. */
export function Toasts({ notifications }: { notifications: Notifications }) {
  const [toasts, setToasts] = useState<readonly Toast[]>(notifications.list());
  useEffect(() => notifications.subscribe(setToasts), [notifications]);
  return (
    <div class="toasts" role="status" aria-live="polite">
      {toasts.map((toast) => (
        <div key={toast.id} class={`toast toast-${toast.tone}`}>
          <span>{toast.text}</span>
          {toast.action === undefined ? null : (
            <button
              type="button"
              class="toast-action"
              onClick={() => {
                notifications.dismiss(toast.id);
                toast.action?.run();
              }}
            >
              {toast.action.label}
            </button>
          )}
          <button type="button" class="toast-close" aria-label={t("shell.dismiss")} onClick={() => notifications.dismiss(toast.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
