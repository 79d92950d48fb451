/** Small helpers shared by the agent-sdk tests. */
import type { AgentClient, ConnectAgentOptions } from "../src/index.js";
import { connectAgent, sequentialIds } from "../src/index.js";
import type { FakeAppServer } from "./fake-app-server.js";
import { slack } from "../../../test/support/soak.js";

/** Polls `condition` until it holds; fails with `what` after `timeoutMs` (longer under the soak: `slack`). */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + slack(timeoutMs);
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** An agent connected to a fake server with fast polling and reconnects, and deterministic ids. */
export function connectToFake(server: FakeAppServer, options: Partial<ConnectAgentOptions> = {}): Promise<AgentClient> {
  return connectAgent({
    url: "memory://fake",
    token: "agent-token",
    transport: server.transport(),
    ids: sequentialIds(),
    sessionPollMs: 20,
    reconnect: { initialMs: 5, maxMs: 40 },
    requestTimeoutMs: 2_000,
    ...options,
  });
}
