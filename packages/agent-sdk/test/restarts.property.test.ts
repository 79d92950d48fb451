/**
 * The demo agent's process dies at random moments of a pomodoro — before it saw the turn, while the turn
 * runs, after it ended, before or after the timer's end — and a new process (its own ids, as a real one's
 * are random) takes over each time. Whatever the moments, the person sees one call, one "Started …" reply,
 * the turn completed, "Time's up" said exactly once and the task card closed once.
 *
 * `npm test`: 12 seeded runs. `LINEUP_SOAK=1`: 100.
 */
import type { RuntimeEnvelope } from "@lineup/protocol";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { runDemoAgent, sequentialIds, type AgentClient, type DemoAgent } from "../src/index.js";
import { FakeAppServer, tool } from "./fake-app-server.js";
import { connectToFake, waitFor } from "./helpers.js";
import { soakSized, timeLimitFor } from "../../../test/support/soak.js";

const RUNS = soakSized(12, 100);
const POMODORO = tool("pomodoro", "pomodoro.start", { input_schema: { type: "object", properties: { minutes: { type: "integer", minimum: 1 } }, required: ["minutes"] } });
const STARTED = { operation_id: "op-1", started_at: "2026-12-01T09:00:00.000Z", ends_at: "2026-12-01T09:25:00.000Z" };
const TIMES_UP = "Time's up — your 25 minutes with the **pomodoro timer** is done. Nice focus! 🍅";

const running: { client: AgentClient; agent: DemoAgent }[] = [];
afterEach(async () => {
  for (const { client, agent } of running.splice(0)) {
    agent.dispose();
    await client.close();
  }
});

type Step = { readonly kind: "crash"; readonly pauseMs: number } | { readonly kind: "end"; readonly pauseMs: number };

const texts = (server: FakeAppServer): string[] => server.agentEnvelopes("s-1", "lineup.message").map((e) => (e.payload as { text: string }).text);

async function play(steps: readonly Step[]): Promise<void> {
  const server = new FakeAppServer();
  server.startSession("s-1");
  server.publishInventory("s-1", 1, [POMODORO]);
  const invokes: RuntimeEnvelope[] = [];
  server.onAgentEnvelope = (sessionId, envelope) => {
    if (envelope.type !== "lineup.tool.invoke") return;
    invokes.push(envelope);
    const correlation = { call_id: envelope.correlation!.call_id!, reply_to: envelope.id };
    server.deviceEnvelope(sessionId, "lineup.tool.receipt", { status: "accepted" }, correlation, "pomodoro");
    server.deviceEnvelope(sessionId, "lineup.tool.progress", { stage: "started", data: STARTED }, correlation, "pomodoro");
  };
  let processes = 0;
  let current: AgentClient | undefined;
  const startProcess = async () => {
    const client = await connectToFake(server, { ids: sequentialIds(1 + processes++ * 10_000) });
    running.push({ client, agent: runDemoAgent(client) });
    current = client;
  };
  await startProcess();
  server.startTurn("s-1", "start a 25 minute pomodoro", "t-1");
  for (const step of steps) {
    await new Promise((resolve) => setTimeout(resolve, step.pauseMs));
    if (step.kind === "crash") {
      // The process dies without a word: no dispose, its connection just closes.
      await current!.close();
      await startProcess();
    } else {
      // The timer ends on the device: the Runtime reports the call's one result. It needs the call first.
      await waitFor(() => invokes.length > 0, "the call");
      const invoke = invokes[0]!;
      server.deviceEnvelope("s-1", "lineup.tool.result", { result: { outcome: "completed", ...STARTED, ended_at: STARTED.ends_at } }, { call_id: invoke.correlation!.call_id!, reply_to: invoke.id }, "pomodoro");
    }
  }
  await waitFor(() => server.turn("s-1", "t-1")?.state === "completed" && texts(server).includes(TIMES_UP), "the turn completed and the end told", 5_000);
  // Give a late duplicate every chance to show.
  await new Promise((resolve) => setTimeout(resolve, 30));
  expect(new Set(invokes.map((i) => i.correlation?.call_id))).toEqual(new Set(["s-1.t-1.call-1"]));
  expect(texts(server).filter((t) => t.startsWith("Started the **pomodoro timer**"))).toHaveLength(1);
  expect(texts(server).filter((t) => t === TIMES_UP)).toHaveLength(1);
  // Its task card was closed once (a process that followed an ended call again would close it twice).
  expect(server.agentEnvelopes("s-1", "lineup.task.progress").filter((e) => (e.payload as { state: string }).state === "completed")).toHaveLength(1);
  const ids = server.agentEnvelopes("s-1").map((e) => e.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const { client, agent } of running.splice(0)) {
    agent.dispose();
    await client.close();
  }
}

describe("the demo agent across process restarts", () => {
  it("tells a pomodoro's start and its end once each, whenever its process dies and another takes over", async () => {
    const pause = fc.integer({ min: 0, max: 25 });
    const crash = pause.map((pauseMs): Step => ({ kind: "crash", pauseMs }));
    const steps = fc
      .tuple(fc.array(crash, { maxLength: 3 }), pause, fc.nat())
      .map(([crashes, endPause, at]) => {
        const list: Step[] = [...crashes];
        list.splice(at % (crashes.length + 1), 0, { kind: "end", pauseMs: endPause });
        return list;
      });
    await fc.assert(
      fc.asyncProperty(steps, async (list) => {
        await play(list);
      }),
      { numRuns: RUNS, seed: 20261201 },
    );
  }, timeLimitFor(RUNS, 12, 120_000));
});
