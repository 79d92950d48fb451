/**
 * Local echo for sent messages: a message shows at once as `sending`, becomes `queued` once the Runtime
 * stored it in its outbox (it will be sent, in order, even after a reload), and disappears when the
 * server's copy (the user's `lineup.message`) arrives. A refusal makes it `failed`, with a retry.
 */
import type { AgentAppMessage } from "@lineup/app-sdk";

export interface EchoEntry {
  readonly local_id: string;
  readonly conversation_id: string;
  readonly text: string;
  readonly status: "sending" | "queued" | "failed";
  readonly receipt_id?: string;
  readonly error?: string;
}

/** Drops, for each user message that arrived, the oldest unconfirmed echo with the same text. */
export function confirmEchoes(echoes: readonly EchoEntry[], arrived: readonly AgentAppMessage[]): readonly EchoEntry[] {
  let out = echoes;
  for (const message of arrived) {
    if (message.type !== "lineup.message" || message.sender.kind !== "user") continue;
    const payload = message.payload as { text?: unknown };
    const index = out.findIndex((e) => e.conversation_id === message.conversation_id && e.status !== "failed" && e.text === payload.text);
    if (index >= 0) out = [...out.slice(0, index), ...out.slice(index + 1)];
  }
  return out;
}

/** Marks echoes failed whose receipt the Runtime reports as refused for good. */
export function failEchoes(echoes: readonly EchoEntry[], failed: readonly { receipt_id: string; message: string }[]): readonly EchoEntry[] {
  if (failed.length === 0) return echoes;
  let changed = false;
  const out = echoes.map((echo) => {
    const hit = echo.receipt_id === undefined ? undefined : failed.find((f) => f.receipt_id === echo.receipt_id);
    if (hit === undefined || echo.status === "failed") return echo;
    changed = true;
    return { ...echo, status: "failed" as const, error: hit.message };
  });
  return changed ? out : echoes;
}

export function updateEcho(echoes: readonly EchoEntry[], localId: string, patch: Partial<Omit<EchoEntry, "local_id">>): readonly EchoEntry[] {
  return echoes.map((echo) => (echo.local_id === localId ? { ...echo, ...patch } : echo));
}
