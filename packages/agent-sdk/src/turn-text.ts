/**
 * A turn's text as it is being written, sent to the AppServer as `agentSession/turn/update` `text_delta`s.
 *
 * Pieces are batched: the first goes at once, then at most one update every `intervalMs`, carrying
 * everything that arrived meanwhile. A model streams a token every few milliseconds, and each update is
 * a durable write — one log event fsynced by the AppServer, one inbox row stored by every device
 * following the session, one fold and render of the chat — so one write per token would cost hundreds
 * of writes per answer for text a person reads no faster at 12 updates a second than at 100. The bound
 * is time, not size: a fast model's answer goes in about as many updates as a slow one's per second.
 * A backlog of `maxChars` goes at once (the protocol allows 65 536 characters per update).
 *
 * Once the turn's signal aborts (the person pressed Stop) nothing more is sent, and what waits is dropped.
 * Updates are issued without waiting for each other: the client keeps a session's writes in issue order.
 */
import type { AgentClient } from "./agent-client.js";
import type { DiagnosticsSink } from "./lifecycle.js";
import { systemClock, type Clock, type TimerHandle } from "./platform.js";

export interface TurnTextOptions {
  /** Least time between two updates, ms. Default 80. */
  readonly intervalMs?: number;
  /** Most characters one update carries; a backlog this long goes at once. Default 8 192. */
  readonly maxChars?: number;
  readonly clock?: Clock;
  readonly diagnostics?: DiagnosticsSink;
}

export interface TurnText {
  /** Adds to the turn's text; sent within `intervalMs`. Ignored once cancelled or the signal aborted. */
  push(text: string): void;
  /** Sends what waits now; text pushed after this starts a new paragraph (a new step of the model's). */
  endParagraph(): void;
  /** Sends what waits now and resolves once every update sent has settled (failed ones included). */
  flush(): Promise<void>;
  /** Drops what waits and sends nothing more. */
  cancel(): void;
  /** Updates issued so far. */
  readonly updates: number;
}

export const DEFAULT_TEXT_INTERVAL_MS = 80;

/** The batched text of one turn of `sessionId`. */
export function streamTurnText(client: Pick<AgentClient, "updateTurn">, sessionId: string, turnId: string, signal: AbortSignal, options: TurnTextOptions = {}): TurnText {
  const clock = options.clock ?? systemClock;
  const intervalMs = options.intervalMs ?? DEFAULT_TEXT_INTERVAL_MS;
  const maxChars = Math.max(2, options.maxChars ?? 8_192);
  const inFlight = new Set<Promise<void>>();
  let pending = "";
  let written = false;
  let paragraphBreak = false;
  let lastSentAt: number | undefined;
  let timer: TimerHandle | undefined;
  let closed = false;
  let updates = 0;

  const stopTimer = (): void => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };
  const cancel = (): void => {
    closed = true;
    pending = "";
    stopTimer();
    signal.removeEventListener("abort", cancel);
  };
  signal.addEventListener("abort", cancel, { once: true });
  if (signal.aborted) cancel();

  const issue = (textDelta: string): void => {
    updates += 1;
    const update = client.updateTurn(sessionId, turnId, { textDelta }).then(
      () => undefined,
      (error: unknown) => {
        // Lost text is not lost for good: the final message carries all of it.
        if (!signal.aborted) options.diagnostics?.({ kind: "agent_error", message: `a text update of turn ${turnId} was not written`, error });
      },
    );
    inFlight.add(update);
    void update.finally(() => inFlight.delete(update));
  };

  const sendNow = (): void => {
    stopTimer();
    if (closed || pending === "") return;
    lastSentAt = clock.now();
    let rest = pending;
    pending = "";
    while (rest.length > 0) {
      let cut = Math.min(rest.length, maxChars);
      // Never between the two halves of a surrogate pair.
      if (cut < rest.length && /[\uD800-\uDBFF]/.test(rest.charAt(cut - 1))) cut -= 1;
      issue(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
  };

  return {
    push(text) {
      if (closed || text === "") return;
      if (paragraphBreak && written) text = `\n\n${text}`;
      paragraphBreak = false;
      written = true;
      pending += text;
      if (pending.length >= maxChars) {
        sendNow();
        return;
      }
      if (timer !== undefined) return;
      const wait = lastSentAt === undefined ? 0 : lastSentAt + intervalMs - clock.now();
      if (wait <= 0) sendNow();
      else timer = clock.setTimeout(sendNow, wait);
    },
    endParagraph() {
      sendNow();
      paragraphBreak = true;
    },
    async flush() {
      sendNow();
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    cancel,
    get updates() {
      return updates;
    },
  };
}
