import { useState } from "preact/hooks";

/**
 * The message input: Enter sends, Shift+Enter adds a line. When `onSend` answers `false` (at once or later)
 * the text was not taken, and comes back into the box unless the person has typed something else.
 */
export function Composer({ onSend, disabled }: { onSend: (text: string) => void | boolean | Promise<boolean>; disabled: boolean }) {
  const [text, setText] = useState("");
  const send = () => {
    if (text.trim() === "" || disabled) return;
    const value = text;
    setText("");
    void Promise.resolve(onSend(value)).then((taken) => {
      if (taken === false) setText((now) => (now === "" ? value : now));
    });
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
        placeholder="Message the agent — Enter to send, Shift+Enter for a new line"
        value={text}
        disabled={disabled}
        onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            send();
          }
        }}
      />
      <button type="submit" class="primary" disabled={disabled || text.trim() === ""}>
        Send
      </button>
    </form>
  );
}
