/**
 * Which cards this device answered, and how, kept in localStorage: after a reload the history still
 * holds the card but not the answer (an interaction response goes to the Runtime, not back to chat),
 * and a card must never look open again once answered. An `action.responded` in the history is
 * authoritative when present.
 */
import { decodeJson } from "@lineup/protocol";
import type { CardAnswer } from "@lineup/app-sdk/chat";

const KEY = "lineup.chat.answers";
const MAX_ENTRIES = 2_000;

export class AnswerJournal {
  private readonly answers = new Map<string, CardAnswer>();

  constructor(private readonly storage: Storage | undefined = globalThis.localStorage) {
    try {
      const raw = storage?.getItem(KEY);
      const decoded = raw === null || raw === undefined ? undefined : decodeJson(raw, { maxBytes: 1024 * 1024 });
      const parsed: unknown = decoded?.ok === true ? decoded.value : [];
      if (Array.isArray(parsed)) {
        for (const entry of parsed) {
          if (!Array.isArray(entry) || typeof entry[0] !== "string") continue;
          const answer = entry[1] as { outcome?: unknown; summary?: unknown } | undefined;
          if (typeof answer?.outcome === "string" && typeof answer.summary === "string") this.answers.set(entry[0], { outcome: answer.outcome, summary: answer.summary });
        }
      }
    } catch {
      // A damaged journal only loses the "answered" labels; the Runtime still refuses a second answer.
    }
  }

  get(messageId: string): CardAnswer | undefined {
    return this.answers.get(messageId);
  }

  record(messageId: string, answer: CardAnswer): void {
    this.answers.set(messageId, answer);
    const entries = [...this.answers].slice(-MAX_ENTRIES);
    try {
      this.storage?.setItem(KEY, JSON.stringify(entries));
    } catch {
      // Storage full or blocked: the in-memory answer still shows for this session.
    }
  }
}
