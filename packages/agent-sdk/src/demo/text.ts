/** Small text helpers the demo agent's replies share. */

/** Keeps user and app text from turning into Markdown structure in a reply. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`);
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "512 bytes", "20.0 KB", "1.5 MB". */
export function kilobytes(bytes: number): string {
  return bytes < 1_024 ? `${bytes} bytes` : bytes < 1_048_576 ? `${(bytes / 1_024).toFixed(1)} KB` : `${(bytes / 1_048_576).toFixed(1)} MB`;
}
