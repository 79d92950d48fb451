/**
 * RELIABILITY S3: random interleavings of invoke, progress, result, error, cancel, activation
 * outcomes, operation start and interrupt, deadlines, app crash and Runtime restart (the calls
 * state serialised to JSON and read back) — and through all of it: exactly one terminal outcome per
 * call_id, nothing after it, results always valid against the output schema, stale revisions refused.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  crashInstance,
  EMPTY_INSTANCES,
  focusInstance,
  restoreInstanceInBackground,
  foregroundInstance,
  instancePolicyFor,
  launchInstance,
  markInstanceReady,
  markInstanceRestored,
  restoreInstances,
  snapshotInstances,
  type InstancesState,
} from "../src/app-lifecycle/instances/index.js";
import {
  activationSettled,
  cancelCall,
  EMPTY_TOOL_CALLS,
  expireDueCalls,
  instanceFailed,
  interruptOperations,
  isTerminalOutput,
  receiveInvoke,
  reportError,
  reportProgress,
  reportResult,
  resumeAfterRestart,
  startOperation,
  type CallDecision,
  type ToolCallsState,
  type ToolOutput,
} from "../src/tools/index.js";
import { T0 } from "./apps-fixtures.js";
import { CONV, invoke, world } from "./tools-world.js";
import { soakSized, timeLimitFor } from "../../../test/support/soak.js";

const W = world();

const TOOLS = [
  { app: "whiteboard", method: "board.create", good: { title: "t" }, bad: { title: 1 }, ok: { board_id: "b" }, wrong: { board_id: 1 } },
  { app: "whiteboard", method: "board.summary", good: {}, bad: { x: 1 }, ok: { n: 1 }, wrong: 5 },
  { app: "pomodoro", method: "focus.start", good: { minutes: 5 }, bad: { minutes: 0 }, ok: {}, wrong: {} },
  { app: "pomodoro", method: "focus.interrupt", good: {}, bad: { reason: 3 }, ok: { interrupted: true }, wrong: { interrupted: "yes" } },
  { app: "voice", method: "voice.request_recording", good: { max_seconds: 3 }, bad: {}, ok: { artifact_id: "a" }, wrong: {} },
] as const;

type Op =
  | { k: "invoke"; call: number; tool: number; validArgs: boolean; stale: boolean }
  | { k: "settle"; pick: number; outcome: "ready" | "failed" | "cancelled" }
  | { k: "progress"; pick: number }
  | { k: "result"; pick: number; valid: boolean }
  | { k: "error"; pick: number; code: string }
  | { k: "cancel"; pick: number }
  | { k: "crash"; pick: number }
  | { k: "startOp"; pick: number; foreground: boolean }
  | { k: "interrupt" }
  | { k: "tick"; ms: number }
  | { k: "restart" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ k: fc.constant("invoke" as const), call: fc.nat(11), tool: fc.nat(TOOLS.length - 1), validArgs: fc.nat(4).map((n) => n > 0), stale: fc.nat(4).map((n) => n === 0) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant("settle" as const), pick: fc.nat(50), outcome: fc.constantFrom("ready" as const, "ready" as const, "failed" as const, "cancelled" as const) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("progress" as const), pick: fc.nat(50) }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant("result" as const), pick: fc.nat(50), valid: fc.nat(3).map((n) => n > 0) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("error" as const), pick: fc.nat(50), code: fc.constantFrom("handler_failed", "permission_denied", "nonsense") }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("cancel" as const), pick: fc.nat(50) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("crash" as const), pick: fc.nat(50) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("startOp" as const), pick: fc.nat(50), foreground: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ k: "interrupt" as const }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("tick" as const), ms: fc.constantFrom(1_000, 20_000, 400_000, 4_000_000) }) },
  { weight: 1, arbitrary: fc.constant({ k: "restart" as const }) },
);

class Sim {
  calls: ToolCallsState = EMPTY_TOOL_CALLS;
  instances: InstancesState = EMPTY_INSTANCES;
  now = T0;
  seq = 0;
  readonly log = new Map<string, ToolOutput[]>();
  readonly staleCalls = new Set<string>();

  apply(d: CallDecision): void {
    if (d.refusal !== undefined) expect(d.state).toBe(this.calls);
    if (!d.replayed) for (const o of d.outputs) this.log.set(o.call_id, [...(this.log.get(o.call_id) ?? []), o]);
    this.calls = d.state;
    for (const a of d.actions) {
      if (a.kind === "launch_instance") {
        const launched = launchInstance(this.instances, { instance_id: a.instance_id, app_scope: a.app_scope, policy: instancePolicyFor(a.app_scope), conversation_id: a.conversation_id, foreground: a.foreground, new_instance: a.new_instance, now: this.now });
        if (launched.ok) this.instances = launched.value.state;
        else this.apply(activationSettled(this.calls, { instance_id: a.instance_id, outcome: "failed", foreground: false }));
      } else if (a.kind === "focus_instance") {
        const focused = focusInstance(this.instances, a.instance_id, this.now);
        if (focused.ok) this.instances = focused.value.state;
      } else if (a.kind === "restore_instance") {
        const restored = restoreInstanceInBackground(this.instances, a.instance_id, this.now);
        if (restored.ok) this.instances = restored.value.state;
      }
    }
  }

  /** Picks a call in one of `phases`; one pick in four also considers finished calls (late reports must be refused). */
  pickCall(index: number, phases: readonly string[]): string | undefined {
    if (index % 4 !== 0) phases = phases.filter((p) => p !== "terminal");
    const ids = Object.values(this.calls.calls).filter((c) => phases.includes(c.phase)).map((c) => c.call_id).sort();
    return ids.length === 0 ? undefined : ids[index % ids.length];
  }

  run(op: Op): void {
    switch (op.k) {
      case "invoke": {
        const t = TOOLS[op.tool]!;
        const id = `k${op.call}`;
        const fresh = this.calls.calls[id] === undefined;
        const d = receiveInvoke(this.calls, invoke(id, t.app, t.method, op.validArgs ? t.good : t.bad, op.stale ? W.revision + 7 : W.revision, this.now, { launch_instance_id: `i${++this.seq}` }), W.context(this.instances));
        if (fresh && op.stale) {
          this.staleCalls.add(id);
          expect(d.outputs.map((o) => (o.type === "lineup.tool.error" ? o.payload.code : o.type))).toEqual(["stale_inventory_revision"]);
        }
        this.apply(d);
        return;
      }
      case "settle": {
        const ids = Object.keys(this.calls.activations).sort();
        const instanceId = ids[op.pick % Math.max(1, ids.length)];
        if (instanceId === undefined) return;
        if (op.outcome === "ready") {
          const inst = this.instances.instances[instanceId];
          const step = inst?.status === "launching" ? markInstanceReady(this.instances, instanceId, this.now) : inst?.status === "restoring" ? markInstanceRestored(this.instances, instanceId, this.now) : undefined;
          if (step?.ok) this.instances = step.value.state;
          const live = this.instances.instances[instanceId];
          if (live === undefined || (live.status !== "active" && live.status !== "backgrounded")) return; // not ready yet
        } else {
          const crashed = crashInstance(this.instances, instanceId, this.now);
          if (crashed.ok) this.instances = crashed.value.state;
        }
        this.apply(activationSettled(this.calls, { instance_id: instanceId, outcome: op.outcome, foreground: foregroundInstance(this.instances)?.instance_id === instanceId }));
        return;
      }
      case "progress": {
        const id = this.pickCall(op.pick, ["running", "operation_running", "terminal"]);
        if (id !== undefined) this.apply(reportProgress(this.calls, { call_id: id, instance_id: this.calls.calls[id]!.instance_id ?? "none", progress: { stage: "working", data: { not: "checked" } } }));
        return;
      }
      case "result": {
        const id = this.pickCall(op.pick, ["running", "awaiting_operation", "operation_running", "terminal"]);
        if (id === undefined) return;
        const call = this.calls.calls[id]!;
        const t = TOOLS.find((x) => x.method === call.method)!;
        this.apply(reportResult(this.calls, { call_id: id, instance_id: call.instance_id ?? "none", result: op.valid ? t.ok : t.wrong }, W.registry));
        return;
      }
      case "error": {
        const id = this.pickCall(op.pick, ["running", "awaiting_operation", "terminal"]);
        if (id !== undefined) this.apply(reportError(this.calls, { call_id: id, instance_id: this.calls.calls[id]!.instance_id ?? "none", code: op.code }));
        return;
      }
      case "cancel": {
        const id = this.pickCall(op.pick, ["starting", "waiting_activation", "running", "awaiting_operation", "operation_running", "terminal"]);
        if (id !== undefined) this.apply(cancelCall(this.calls, { call_id: id, agent_id: this.calls.calls[id]!.agent_id }));
        return;
      }
      case "crash": {
        const live = Object.values(this.instances.instances).filter((i) => i.status !== "closed" && i.status !== "failed").map((i) => i.instance_id).sort();
        const id = live[op.pick % Math.max(1, live.length)];
        if (id === undefined) return;
        const crashed = crashInstance(this.instances, id, this.now);
        if (crashed.ok) this.instances = crashed.value.state;
        this.apply(instanceFailed(this.calls, { instance_id: id }));
        return;
      }
      case "startOp": {
        const id = this.pickCall(op.pick, ["awaiting_operation"]);
        if (id !== undefined) this.apply(startOperation(this.calls, { call_id: id, operation_id: `op-${id}`, now: this.now, ends_at: this.now + 300_000, foreground: op.foreground }));
        return;
      }
      case "interrupt":
        this.apply(interruptOperations(this.calls, { app_scope: "pomodoro", conversation_id: CONV, reason: "stop", now: this.now }, W.registry));
        return;
      case "tick":
        this.now += op.ms;
        this.apply(expireDueCalls(this.calls, this.now, W.registry));
        return;
      case "restart": {
        this.calls = JSON.parse(JSON.stringify(this.calls)) as ToolCallsState;
        const snapshot = JSON.parse(JSON.stringify(snapshotInstances(this.instances))) as ReturnType<typeof snapshotInstances>;
        this.instances = restoreInstances(snapshot, this.now, () => true).state;
        this.apply(resumeAfterRestart(this.calls, this.now, W.registry));
        return;
      }
    }
  }

  check(): void {
    for (const [id, outputs] of this.log) {
      const terminals = outputs.filter(isTerminalOutput);
      expect(terminals.length, `terminals of ${id}`).toBeLessThanOrEqual(1);
      if (terminals.length === 1) expect(isTerminalOutput(outputs[outputs.length - 1]!)).toBe(true);
      // The stored record is the replay log: exactly what was sent, in order.
      expect(this.calls.calls[id]?.outputs).toEqual(outputs);
      for (const o of outputs) {
        if (o.type !== "lineup.tool.result") continue;
        const call = this.calls.calls[id]!;
        expect(W.registry.get(call.app_scope, call.method)!.validateOutput(o.payload.result).ok).toBe(true);
      }
      if (this.staleCalls.has(id)) expect(outputs.map((o) => (o.type === "lineup.tool.error" ? o.payload.code : o.type))).toEqual(["stale_inventory_revision"]);
    }
  }
}

const RUNS = soakSized(500, 5_000);

describe("RELIABILITY S3: tool call lifecycle under random interleavings", () => {
  it(`exactly one terminal per call_id, output schema enforced, stale revisions refused (${RUNS} runs)`, () => {
    let terminalResults = 0;
    let terminalErrors = 0;
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 10, maxLength: 80 }), (ops) => {
        const sim = new Sim();
        for (const op of ops) {
          sim.run(op);
          sim.check();
        }
        // Whatever is left ends by its deadline: afterwards every call has exactly one terminal.
        sim.run({ k: "tick", ms: 10 ** 10 });
        sim.check();
        for (const [id, outputs] of sim.log) {
          expect(outputs.filter(isTerminalOutput).length, `terminal of ${id}`).toBe(1);
          terminalResults += outputs.filter((o) => o.type === "lineup.tool.result").length;
          terminalErrors += outputs.filter((o) => o.type === "lineup.tool.error").length;
        }
        for (const call of Object.values(sim.calls.calls)) expect(call.phase).toBe("terminal");
      }),
      { numRuns: RUNS, seed: 0x53 },
    );
    // The schedule reaches both kinds of outcome, not just refusals.
    expect(terminalResults).toBeGreaterThan(100);
    expect(terminalErrors).toBeGreaterThan(100);
  }, timeLimitFor(RUNS, 500, 20_000));
});
