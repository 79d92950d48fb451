/**
 * Runs an agent's turn handler for every turn the client hands over, keeping track of the work
 * in flight. Shared by the demo agent and the LLM adapter.
 *
 * A turn's `signal` aborts (reason: a `cancelled_by_user` LineUpError) when the device cancels the turn —
 * the person pressed Stop. The handler then stops working on it and sends nothing more for it: no
 * completion, no further tool calls, no message. Calls made with the signal end at once without a
 * `lineup.tool.cancel` (the Runtime ends the turn's open calls itself), except a Runtime-owned timer that
 * has started, which runs on beyond its turn and is followed to its end.
 */
import type { AgentClient, IncomingTurn } from "./agent-client.js";
import { silentDiagnostics, type DiagnosticsSink } from "./lifecycle.js";

export interface TurnRunner {
  /** Turns answered so far (completed, not failed or cancelled). */
  readonly answered: number;
  /** Resolves when no turn is being worked on. */
  idle(): Promise<void>;
  /** Stops taking new turns (turns in progress finish). */
  dispose(): void;
}

/** `handle` resolves true when it completed the turn; a rejection is reported to diagnostics. */
export function serveTurns(client: AgentClient, handle: (turn: IncomingTurn) => Promise<boolean>, diagnostics: DiagnosticsSink = silentDiagnostics): TurnRunner {
  const inFlight = new Set<Promise<void>>();
  let answered = 0;
  let disposed = false;
  const subscription = client.onTurn((turn) => {
    if (disposed) return;
    const work = handle(turn)
      .then((ok) => {
        if (ok) answered++;
      })
      .catch((error: unknown) => diagnostics({ kind: "agent_error", message: `turn ${turn.turnId} of ${turn.sessionId} failed`, error }))
      .finally(() => inFlight.delete(work));
    inFlight.add(work);
  });
  return {
    get answered() {
      return answered;
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    dispose() {
      disposed = true;
      subscription.dispose();
    },
  };
}

/** `runner`, whose `dispose` also ends what the agent follows outside turns (in order, after the runner). */
export function alsoDisposing(runner: TurnRunner, ...others: readonly (() => void)[]): TurnRunner {
  return {
    get answered() {
      return runner.answered;
    },
    idle: () => runner.idle(),
    dispose() {
      runner.dispose();
      for (const dispose of others) dispose();
    },
  };
}
