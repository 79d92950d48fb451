/**
 * tasks: an app's agent task round trip beside a tool-call round trip over the same path, in the same run
 * (issue 19, PERFORMANCE.md).
 *
 * - task_round_trip: the app calls `appPort(app).startTask` (request checked, task record, its first event
 *   and the `agentSession/turn/start` committed in one commit, sent through the outbox) → the in-process
 *   `FakeAppServer` applies the turn (`turn.started` in the log) → the agent answers at once with the demo
 *   agent's own `tidy_board` layout (`tidyBoard` from @lineup/agent-sdk, computed from the turn's context) as
 *   `turn.completed` with `output` → the Runtime applies the log events, checks the output against the app's
 *   output schema, commits the result and the task's events → the app's `subscribeTasks` listener receives
 *   `status: completed`. Timed from `startTask` to that event.
 * - Beside it, in alternating rounds on the same Runtime and server: the tool call of the `tools` suite — the
 *   agent's `lineup.tool.invoke` in the log → the Runtime → the app's handler → the `lineup.tool.result`
 *   envelope applied by the server. Both cross the device–server edge twice with commits on each side.
 * Target: ≤ 1.5× the tool call's time (so ≥ 0.67× its rate). Real clock, memory store, a signed app installed.
 */
import { tidyBoard } from "@lineup/agent-sdk";
import { createMemoryStore, createRuntime, generatePublisherKey, RUNTIME_SCHEMA } from "@lineup/runtime";
import { FakeAppServer, type AppliedWrite } from "@lineup/runtime/testing";
import type { AgentTaskRequest, JsonObject } from "@lineup/protocol";
import { machine, median, pairedAsync, percentile, round, type BenchResult, type SuiteResult } from "../lib.js";
import { APP, METHOD, signedApp } from "../tool-app.js";

const ROUND_MS = Number(process.env["LINEUP_BENCH_TASKS_ROUND_MS"] ?? 300);
const ROUNDS = Number(process.env["LINEUP_BENCH_TASKS_ROUNDS"] ?? 11);
const WARMUP_MS = Number(process.env["LINEUP_BENCH_TASKS_WARMUP_MS"] ?? 1_500);
const SESSION = "s-bench";
const RESULT = { shapes: 3, title: "Plan" };

const LAYOUT_SCHEMA: JsonObject = {
  type: "object",
  required: ["layout", "summary"],
  additionalProperties: false,
  properties: {
    layout: { type: "array", items: { type: "object", required: ["id", "x", "y"], additionalProperties: false, properties: { id: { type: "string" }, x: { type: "number" }, y: { type: "number" } } } },
    summary: { type: "string" },
  },
};

const REQUEST: AgentTaskRequest = {
  entry: "tidy_board",
  title: "Tidy this board",
  input: { text: "Tidy this board" },
  context: { board: { width: 1200, height: 800, items: Array.from({ length: 6 }, (_, i) => ({ id: `s${i}`, x: 37 * i, y: 11 * i, w: 80, h: 40, label: `item ${5 - i}` })) } },
  output_schema: LAYOUT_SCHEMA,
};

interface Callers {
  readonly task: () => Promise<void>;
  readonly tool: () => Promise<void>;
  readonly tasksMade: () => number;
  close(): Promise<void>;
}

async function callers(): Promise<Callers> {
  const key = await generatePublisherKey();
  const server = new FakeAppServer();
  server.createSession({ session_id: SESSION, agent_id: "agent-1" });
  const store = await createMemoryStore(RUNTIME_SCHEMA);
  const errors: unknown[] = [];
  const runtime = createRuntime({ store, transport: server.transport, serverUrl: "mem://bench", token: server.deviceToken, trustedPublishers: [key.trustedKey], relistIntervalMs: 0, diagnostics: (error) => errors.push(error) });
  await runtime.start();
  await runtime.whenOnline();

  let inventoryRevision = 0;
  const toolWaiting = new Map<string, () => void>();
  const applied = server.applied;
  const push = applied.push.bind(applied);
  applied.push = (...writes: AppliedWrite[]): number => {
    for (const write of writes) {
      if (write.method === "inventory/publish") inventoryRevision = Number(write.params["revision"]);
      if (write.method === "agentSession/turn/start") {
        // The agent answers the task as the demo agent does, once the turn is in the log.
        const turnId = String(write.params["turn_id"]);
        const options = write.params["options"] as { lineup_task?: { context?: JsonObject } } | undefined;
        const answer = tidyBoard(options?.lineup_task?.context);
        queueMicrotask(() => {
          try {
            server.agentCompletesTurn(SESSION, turnId, answer.summary, answer as unknown as JsonObject);
          } catch (error) {
            errors.push(error);
          }
        });
      }
      if (write.method === "agentSession/envelope/send") {
        const envelope = write.params["envelope"] as { type: string; correlation?: { call_id?: string } };
        const callId = envelope.correlation?.call_id;
        if (envelope.type === "lineup.tool.result" && callId !== undefined) toolWaiting.get(callId)?.();
      }
    }
    applied.length = 0;
    return push(...writes);
  };

  const operation = await runtime.appManager.install(await signedApp(key, { features: ["app.agent-task.v1"], agent_tasks: { entries: [{ id: "tidy_board", title: "Tidy this board" }] } }), { approved: true });
  if (operation.status !== "succeeded") throw new Error(`install: ${JSON.stringify(operation.error)}`);
  const port = runtime.appPort(APP);
  port.registerToolHandler({
    call(call) {
      void port.reportTool(call.call_id, { kind: "result", result: RESULT }).catch((error: unknown) => errors.push(error));
    },
    cancel() {},
  });
  const taskWaiting = new Map<string, () => void>();
  port.subscribeTasks((event) => {
    if (event.kind === "status" && (event.status === "completed" || event.status === "failed" || event.status === "cancelled")) {
      if (event.status !== "completed") errors.push(new Error(`task ${event.task_id} ended ${event.status}`));
      taskWaiting.get(event.task_id)?.();
    }
  });
  const deadline = Date.now() + 5_000;
  while (inventoryRevision === 0) {
    if (Date.now() > deadline) throw new Error("the inventory was never published");
    await new Promise((resolve) => setImmediate(resolve));
  }

  let calls = 0;
  let tasks = 0;
  const check = (): void => {
    if (errors.length > 0) throw new Error(`errors during the bench: ${String(errors[0])}`);
  };
  return {
    tasksMade: () => tasks,
    async task() {
      check();
      tasks += 1;
      let resolveDone: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (resolveDone = resolve));
      const task = await port.startTask(REQUEST, { conversation_id: SESSION });
      // The result may already be in (the listener fires before the start's promise settles): look at the record.
      if (port.getTask(task.task_id).status === "completed") return;
      taskWaiting.set(task.task_id, () => {
        taskWaiting.delete(task.task_id);
        resolveDone();
      });
      if (port.getTask(task.task_id).status === "completed") return;
      await done;
    },
    async tool() {
      check();
      const callId = `call-${++calls}`;
      const done = new Promise<void>((resolve) => toolWaiting.set(callId, () => (toolWaiting.delete(callId), resolve())));
      server.agentEnvelope(SESSION, {
        v: 1,
        id: `inv-${calls}`,
        type: "lineup.tool.invoke",
        timestamp: new Date().toISOString(),
        sender: { kind: "agent", id: "agent-1" },
        target: { kind: "app", app_scope: APP },
        scope: { app_scope: APP, conversation_id: SESSION },
        correlation: { call_id: callId, inventory_revision: String(inventoryRevision) },
        payload: { method: METHOD, arguments: {} },
      });
      await done;
    },
    async close() {
      await runtime.stop();
      await store.close();
      check();
    },
  };
}

export async function run(): Promise<SuiteResult> {
  const c = await callers();
  await round(c.task, WARMUP_MS, []);
  await round(c.tool, WARMUP_MS, []);
  const taskLatencies: number[] = [];
  const toolLatencies: number[] = [];
  const rates = await pairedAsync(
    () => round(c.task, ROUND_MS, taskLatencies),
    () => round(c.tool, ROUND_MS, toolLatencies),
    ROUNDS,
  );
  const tasksMade = c.tasksMade();
  await c.close();
  const p = (values: readonly number[], q: number) => Number(percentile(values, q).toFixed(4));
  const results: BenchResult[] = [
    {
      metric: "task_round_trip",
      unit: "tasks/s",
      value: Math.round(rates.ours),
      baseline: "tool_call_round_trip_same_path",
      baseline_value: Math.round(rates.baseline),
      // ≤ 1.5× the tool call's time is ≥ 1/1.5 of its rate.
      ratio: Number(rates.ratio.toFixed(3)),
      target_ratio: Number((1 / 1.5).toFixed(3)),
      higher_is_better: true,
      rounds: rates.rounds,
      round_ms: ROUND_MS,
      p50_ms: p(taskLatencies, 50),
      p99_ms: p(taskLatencies, 99),
      baseline_p50_ms: p(toolLatencies, 50),
      baseline_p99_ms: p(toolLatencies, 99),
      time_ratio: Number((median(taskLatencies) / median(toolLatencies)).toFixed(3)),
      tasks_made: tasksMade,
      notes:
        "One Runtime, one in-process FakeAppServer, memory store, real clock; rounds alternate. A task: startTask → task record + first event + turn/start committed → outbox → server turn.started → the demo agent's tidy_board layout (tidyBoard) as turn.completed output → log applied, output checked against the schema, result committed → the app's completed event. The tool call: invoke in the log → handler → result envelope applied. time_ratio is the median task latency over the median tool-call latency.",
    },
  ];
  return { suite: "tasks", machine: machine(), results };
}
