import { useState } from "preact/hooks";

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
        aria-label="Message"
        placeholder={onStop === undefined ? "Message the agent — Enter to send, Shift+Enter for a new line" : "Message the agent — Enter to send, Esc to stop the agent"}
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
        <button type="button" class="secondary stop" aria-label="Stop the agent" title="Stop the agent (Esc)" disabled={stopping} onClick={stop}>
          Stop
        </button>
      )}
      <button type="submit" class="primary" disabled={disabled || text.trim() === ""}>
        Send
      </button>
    </form>
  );
}
