import { useState } from "preact/hooks";

/** The message input: Enter sends, Shift+Enter adds a line. */
export function Composer({ onSend, disabled }: { onSend: (text: string) => void; disabled: boolean }) {
  const [text, setText] = useState("");
  const send = () => {
    if (text.trim() === "" || disabled) return;
    onSend(text);
    setText("");
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
