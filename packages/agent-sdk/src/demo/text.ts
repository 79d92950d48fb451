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

/** A duration in words: "45 seconds", "1 minute", "2 minutes 5 seconds". */
export function spoken(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1_000));
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  const part = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  if (minutes === 0) return part(rest, "second");
  return rest === 0 ? part(minutes, "minute") : `${part(minutes, "minute")} ${part(rest, "second")}`;
}
