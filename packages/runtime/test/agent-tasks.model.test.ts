/**
 * RELIABILITY T1, model-based (fast-check `fc.commands`): apps' agent tasks under random interleavings of
 * start, duplicate start, the agent's updates, results (valid and not), failures, cancel, retry, resubmit,
 * accept and reject, the app reloading, the Runtime restarting, the device going offline and online, and the
 * AppServer dropping every connection (its state kept, as a durable server restarting).
 *
 * The app here follows its tasks as the SDKs do: subscribe, then page from the last index it holds, then live.
 * It is strict: a live event must be the next index of its task (a duplicate or a gap is a violation); only
 * events buffered while it paged may repeat what the page gave it. After the faults heal and the agent ends what
 * is left, every task has ended in exactly one terminal state per attempt, the app holds every stored event of
 * every task once and in order, each attempt is exactly one turn on the server, and every acknowledged start is
 * a task.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMemoryStoreData, type AppPort, type MemoryStoreData } from "../src/index.js";
import type { AgentTaskEvent, AgentTaskRequest, AppManifest, JsonObject } from "@lineup/protocol";
import { device, signedBundle } from "./helpers/apps-harness.js";
import { boardSummary, whiteboardManifest } from "./apps-fixtures.js";
import { FakeAppServer, settle, until, type Device } from "./helpers/runtime-harness.js";
import { soakSized, timeLimitFor } from "../../../test/support/soak.js";

const RUNS = soakSized(200, 1_000);
const MAX_COMMANDS = soakSized(14, 40);

const manifest: AppManifest = whiteboardManifest("1.0.0", {
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", "app.agent-task.v1"] },
  agent_tasks: { entries: [{ id: "tidy_board", title: "Tidy this board", tools: [{ method: boardSummary.method }] }] },
});

const SCHEMA: JsonObject = { type: "object", required: ["n"], additionalProperties: false, properties: { n: { type: "integer" } } };
const request = (text: string, key: string): AgentTaskRequest => ({ entry: "tidy_board", idempotency_key: key, input: { text }, output_schema: SCHEMA });

/** The app: what it has seen of each task, and the rule it holds the Runtime to. */
class AppView {
  readonly seen = new Map<string, AgentTaskEvent[]>();
  readonly violations: string[] = [];
  private off: (() => void) | undefined;

  async attach(port: AppPort): Promise<void> {
    this.detach();
    const buffer: AgentTaskEvent[] = [];
    let paging = true;
    this.off = port.subscribeTasks((event) => (paging ? buffer.push(event) : this.take(event, false)));
    for (const task of port.listTasks()) {
      for (;;) {
        const page = await port.taskEvents(task.task_id, this.of(task.task_id).length, 3);
        if (page.length === 0) break;
        for (const event of page) this.take(event, true);
      }
    }
    paging = false;
    for (const event of buffer) this.take(event, true);
  }

  detach(): void {
    this.off?.();
    this.off = undefined;
  }

  private of(taskId: string): AgentTaskEvent[] {
    let list = this.seen.get(taskId);
    if (list === undefined) this.seen.set(taskId, (list = []));
    return list;
  }

  /** `overlap`: a page, or a live event buffered while paging, which may repeat what is held already. */
  private take(event: AgentTaskEvent, overlap: boolean): void {
    const list = this.of(event.task_id);
    if (overlap && event.index <= list.length) {
      if (JSON.stringify(list[event.index - 1]) !== JSON.stringify(event)) this.violations.push(`${event.task_id}#${event.index} changed`);
      return;
    }
    if (event.index !== list.length + 1) {
      this.violations.push(`${event.task_id}: got #${event.index} ${overlap ? "paged" : "live"} after #${list.length}`);
      return;
    }
    list.push(event);
  }
}

interface Real {
  readonly server: FakeAppServer;
  readonly data: MemoryStoreData;
  device: Device;
  runs: number;
  readonly app: AppView;
  /** idempotency key → [request text, task id] of every start the Runtime acknowledged. */
  readonly started: Map<string, [string, string]>;
  offline: boolean;
}

type Model = Record<string, never>;
const port = (real: Real): AppPort => real.device.runtime.appPort("whiteboard");

/** A control may be refused `invalid_state` (the task moved on first): any other refusal is a failure. */
async function tolerate(promise: Promise<unknown>): Promise<void> {
  try {
    await promise;
  } catch (error) {
    if ((error as { code?: string }).code !== "invalid_state") throw error;
  }
}

/** The running turn on the server, if any. */
function runningTurn(real: Real): string | undefined {
  for (const [turnId, turn] of real.server.sessions.get("s-1")!.turns) if (turn.state === "running") return turnId;
  return undefined;
}

class Start implements fc.AsyncCommand<Model, Real> {
  constructor(readonly key: string, readonly text: string) {}
  check = () => true;
  async run(_m: Model, real: Real) {
    const before = real.started.get(this.key);
    const text = before?.[0] ?? this.text;
    const task = await port(real).startTask(request(text, this.key), { conversation_id: "s-1" });
    if (before !== undefined) expect(task.task_id, `the same key and request is the same task (${this.key})`).toBe(before[1]);
    real.started.set(this.key, [text, task.task_id]);
    await settle(5);
  }
  toString = () => `Start(${this.key}, ${this.text})`;
}

class Conflict implements fc.AsyncCommand<Model, Real> {
  constructor(readonly key: string) {}
  check = (_m: Model) => true;
  async run(_m: Model, real: Real) {
    const before = real.started.get(this.key);
    if (before === undefined) return;
    await expect(port(real).startTask(request(`${before[0]}!`, this.key), { conversation_id: "s-1" })).rejects.toMatchObject({ code: "idempotency_conflict" });
  }
  toString = () => `Conflict(${this.key})`;
}

class Agent implements fc.AsyncCommand<Model, Real> {
  constructor(readonly act: "update" | "complete" | "invalid" | "fail") {}
  check = () => true;
  async run(_m: Model, real: Real) {
    const turnId = runningTurn(real);
    if (turnId === undefined) return;
    if (this.act === "update") real.server.agentUpdatesTurn("s-1", turnId, { status: "working", text_delta: "…", progress: 0.5 });
    else if (this.act === "complete") real.server.agentCompletesTurn("s-1", turnId, "done", { n: 1 });
    else if (this.act === "invalid") real.server.agentCompletesTurn("s-1", turnId, undefined, { n: "one" });
    else real.server.agentFailsTurn("s-1", turnId, { code: "failed", message: "could not" });
    await settle(5);
  }
  toString = () => `Agent(${this.act})`;
}

class Control implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number, readonly op: "cancel" | "retry" | "resubmit" | "accept" | "reject") {}
  check = () => true;
  async run(_m: Model, real: Real) {
    const tasks = port(real).listTasks();
    if (tasks.length === 0) return;
    const task = tasks[this.pick % tasks.length]!;
    const control = this.op === "resubmit" ? { op: "resubmit" as const, input: { text: `edited ${this.pick}` } } : this.op === "reject" ? { op: "reject" as const, reason: "no" } : { op: this.op };
    await tolerate(port(real).controlTask(task.task_id, control));
    await settle(5);
  }
  toString = () => `Control(${this.pick}, ${this.op})`;
}

class Reload implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, real: Real) {
    await real.app.attach(port(real));
  }
  toString = () => "Reload";
}

class Restart implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, real: Real) {
    real.app.detach();
    await real.device.stop();
    real.runs += 1;
    if (real.offline) real.server.transport.setReachable(true);
    real.offline = false;
    real.device = await device(real.server, real.data, `r${real.runs}`);
    await real.app.attach(port(real));
    await settle(5);
  }
  toString = () => "Restart";
}

class Offline implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, real: Real) {
    real.offline = !real.offline;
    real.server.transport.setReachable(!real.offline);
    if (real.offline) real.device.runtime.dropConnection();
    else real.device.runtime.reconnectNow();
    await settle(5);
  }
  toString = () => "Offline/Online";
}

class ServerRestart implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, real: Real) {
    real.server.disconnectAll();
    await settle(5);
  }
  toString = () => "ServerRestart";
}

const key = fc.constantFrom("k1", "k2", "k3", "k4");
const commands = [
  fc.tuple(key, fc.stringMatching(/^[a-z]{1,6}$/)).map(([k, t]) => new Start(k, t)),
  key.map((k) => new Conflict(k)),
  fc.constantFrom("update" as const, "complete" as const, "complete" as const, "invalid" as const, "fail" as const).map((a) => new Agent(a)),
  fc.tuple(fc.nat(7), fc.constantFrom("cancel" as const, "retry" as const, "resubmit" as const, "accept" as const, "reject" as const)).map(([p, op]) => new Control(p, op)),
  fc.constant(new Reload()),
  fc.constant(new Restart()),
  fc.constant(new Offline()),
  fc.constant(new ServerRestart()),
];

/** Heals the faults, then plays the agent until every task has ended. */
async function finish(real: Real): Promise<void> {
  real.server.transport.setReachable(true);
  real.offline = false;
  real.device.runtime.reconnectNow();
  await until(() => real.device.runtime.lifecycle.snapshot().status === "online", 5_000, "online again");
  for (let round = 0; round < 200; round++) {
    await settle(10);
    const open = port(real).listTasks().filter((t) => t.status !== "completed" && t.status !== "failed" && t.status !== "cancelled");
    if (open.length === 0 && real.device.chat.view().queued_actions === 0) return;
    const turnId = runningTurn(real);
    if (turnId !== undefined) real.server.agentCompletesTurn("s-1", turnId, "done", { n: 2 });
    else await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`tasks did not end: ${JSON.stringify(port(real).listTasks().map((t) => [t.task_id, t.status, t.attempt]))}`);
}

describe("RELIABILITY T1: agent tasks, model-based", () => {
  it("each attempt ends once, the app sees every event once and in order, each attempt is one turn, nothing is lost", async () => {
    const bundle = await signedBundle(manifest);
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: MAX_COMMANDS }), async (cmds) => {
        const server = new FakeAppServer();
        server.createSession({ session_id: "s-1", agent_id: "agent-1" });
        const data = createMemoryStoreData();
        const d = await device(server, data, "r0");
        await d.runtime.whenOnline();
        await d.runtime.appManager.install(bundle, { approved: true });
        const real: Real = { server, data, device: d, runs: 0, app: new AppView(), started: new Map(), offline: false };
        await real.app.attach(port(real));
        try {
          await fc.asyncModelRun(() => ({ model: {}, real }), cmds);
          await finish(real);
          await settle(20);
          const tasks = port(real).listTasks();
          expect(real.app.violations).toEqual([]);
          // Every acknowledged start is a task, with the request it was started with.
          expect(new Set(tasks.map((t) => t.task_id))).toEqual(new Set([...real.started.values()].map(([, id]) => id)));
          for (const task of tasks) {
            // The app holds exactly the stored events, in order.
            const stored: AgentTaskEvent[] = [];
            for (;;) {
              const page = await port(real).taskEvents(task.task_id, stored.length, 50);
              if (page.length === 0) break;
              stored.push(...page);
            }
            expect(stored.map((e) => e.index)).toEqual(stored.map((_, i) => i + 1));
            expect(stored.length).toBe(task.event_count);
            expect(real.app.seen.get(task.task_id) ?? []).toEqual(stored);
            // One terminal status per attempt at most, exactly one for the last, and it is the task's.
            for (let attempt = 1; attempt <= task.attempt; attempt++) {
              const ends = stored.filter((e) => e.attempt === attempt && e.kind === "status" && (e.status === "completed" || e.status === "failed" || e.status === "cancelled"));
              expect(ends.length, `terminal states of ${task.task_id} attempt ${attempt}`).toBeLessThanOrEqual(1);
              if (attempt === task.attempt) expect(ends.map((e) => (e as { status: string }).status)).toEqual([task.status]);
            }
            if (task.status === "completed") expect(task.result).toMatchObject({ output: expect.anything() });
            // Each attempt is exactly one turn on the server.
            const turns = server.sessions
              .get("s-1")!
              .events.filter((e) => e.kind === "turn.started")
              .map((e) => (e.data as { turn: { options?: { lineup_task?: { task_id: string; attempt: number } } } }).turn.options?.lineup_task)
              .filter((t) => t?.task_id === task.task_id)
              .map((t) => t!.attempt);
            expect(turns).toEqual(Array.from({ length: task.attempt }, (_, i) => i + 1));
          }
          const keys = server.applied.map((w) => w.idempotency_key);
          expect(new Set(keys).size).toBe(keys.length);
          expect(await real.device.runtime.verifyAudit()).toMatchObject({ ok: true });
        } finally {
          real.app.detach();
          await real.device.stop();
        }
      }),
      { seed: 1919, numRuns: RUNS, endOnFailure: true },
    );
  }, timeLimitFor(RUNS * MAX_COMMANDS, 200 * 14, 300_000));
});
