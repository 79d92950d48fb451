import { useState } from "preact/hooks";
import { t } from "../../i18n/index.js";

/**
 * The message input: Enter sends, Shift+Enter adds a line. When `onSend` answers `false` (at once or later)
 * the text was not taken, and comes back into the box unless the person has typed something else.
 *
 * While the agent works on a turn (`onStop` given), a Stop button stands beside Send, and Escape in the box
 * stops the agent too — unless something else on the page takes Escape first (an open dialog, or a handler
 * that already used the key).
 */
export function Composer({ onSend, disabled, onStop, stopping = false }: { onSend: (text: string) => void | boolean | Promise<boolean>; disabled: boolean; onStop?: () => void; stopping?: boolean }) {
  const [text, setText] = useState("");
  const send = () => {
    if (text.trim() === "" || disabled) return;
    const value = text;
    setText("");
    void Promise.resolve(onSend(value)).then((taken) => {
      if (taken === false) setText((now) => (now === "" ? value : now));
    });
  };
  const stop = () => {
    if (onStop !== undefined && !stopping) onStop();
  };
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <textarea
        rows={2}
        aria-label={t("composer.message")}
        placeholder={t(onStop === undefined ? "composer.placeholder" : "composer.placeholderStop")}
        value={text}
        disabled={disabled}
        onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            send();
          } else if (e.key === "Escape" && onStop !== undefined && !e.isComposing && !e.defaultPrevented && document.querySelector("dialog[open]") === null) {
            e.preventDefault();
            stop();
          }
        }}
      />
      {onStop === undefined ? null : (
        <button type="button" class="secondary stop" aria-label={t("composer.stopLabel")} title={t("composer.stopTitle")} disabled={stopping} onClick={stop}>
          {t("composer.stop")}
        </button>
      )}
      <button type="submit" class="primary" disabled={disabled || text.trim() === ""}>
        {t("composer.send")}
      </button>
    </form>
  );
}
