/**
 * Calls that outlive their turn. The server runs one turn at a time, so an agent lets a call that waits
 * minutes (a pomodoro's timer, a voice note the person records when they like) go on without the turn, and
 * tells the person how it ended when its result comes. Such a call is the agent's to follow in memory, so
 * a process restarted meanwhile would never tell its end. Here:
 * - the end is told under `endEnvelopeId(call_id)`, so the log says whether it was;
 * - once a session is caught up, each of this agent's calls that outlived its turn (`detached`) and whose
 *   end was not told is handed to the agent to follow again (`client.invokeTool` under its call_id follows
 *   it from the log: nothing runs twice), unless this process follows it already.
 */
import type { AgentClient } from "./agent-client.js";
import type { Disposable } from "./lifecycle.js";
import type { LoggedToolCall } from "./session-state.js";
import { underlyingClient } from "./turn-scope.js";

/** The calls each client's process follows now, by session and call id. */
const followed = new WeakMap<AgentClient, Set<string>>();

function followedBy(client: AgentClient): Set<string> {
  const key = underlyingClient(client);
  let set = followed.get(key);
  if (set === undefined) followed.set(key, (set = new Set()));
  return set;
}

const keyOf = (sessionId: string, callId: string): string => `${sessionId}\u0000${callId}`;

/** Marks a call as followed by this process until `done` settles: a catch-up meanwhile does not hand it over again. */
export function followCall(client: AgentClient, sessionId: string, callId: string, done: Promise<unknown>): void {
  const set = followedBy(client);
  const key = keyOf(sessionId, callId);
  set.add(key);
  void done.finally(() => set.delete(key)).catch(() => undefined);
}

/**
 * On each session's catch-up (at start, and after any resubscription), hands `resume` every call of this
 * agent that outlived its turn and whose end was not told, unless this process follows it already.
 * `resume` follows it (and should mark it with `followCall`).
 */
export function resumeDetachedCalls(client: AgentClient, resume: (sessionId: string, call: LoggedToolCall) => void): Disposable {
  return client.onCaughtUp((sessionId) => {
    for (const call of client.toolCalls(sessionId)) {
      if (call.detached && !call.endTold && !followedBy(client).has(keyOf(sessionId, call.callId))) resume(sessionId, call);
    }
  });
}
