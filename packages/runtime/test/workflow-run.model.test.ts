/**
 * Workflow runs (`workflows/run.ts`), model-based (fast-check): random declarations (1–6 steps, random retry,
 * timeout, on_error — including gotos that point backwards, which the install check refuses — and inputs that
 * read the run's input, earlier steps, later steps and nothing), driven by a loop like the Runtime's against an
 * effect executor that deduplicates by idempotency key, under random outcome sequences, person's refusals,
 * cancels and "crash + resume" points (before the effect, and after it with its outcome lost).
 *
 * Invariants: each step's effect succeeds at most once; a run always ends in a terminal status within a bound
 * on the actions; trace indexes are 1..n without gaps; `current` never goes backwards (neither does a goto);
 * a step's input is resolved only from the run's input and earlier steps; after a terminal status
 * `nextAction` is `none` and every transition is refused. `npm test`: 200 seeded runs; `LINEUP_SOAK=1`: 2,000.
 *
 * Then examples of each rule: the happy path with templates, retries and their backoff, on_error, confirm
 * steps, resume, cancel, timeouts, misuse, and that no transition changes the run it was given.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ErrorCode, JsonValue, WorkflowDeclaration, WorkflowStep } from "@lineup/protocol";
import {
  MAX_RETRY_BACKOFF_MS,
  applyOutcome,
  cancelRun,
  isRunEnded,
  jsonHash,
  markStarted,
  markWaiting,
  nextAction,
  resumeRun,
  retryDelay,
  startRun,
  stepIdempotencyKey,
  traceKey,
  type RunChange,
  type StepOutcome,
  type TraceEntry,
  type WorkflowRun,
} from "../src/workflows/run.js";
import { parsePointer } from "../src/workflows/template.js";
import { soakSized, timeLimitFor } from "../../../test/support/soak.js";

const RUNS = soakSized(200, 2_000);
const T0 = Date.UTC(2025, 0, 1);

/** Unwraps a transition that must be accepted. */
function accepted(result: { ok: true; value: RunChange } | { ok: false; error: { code: string; message: string } }): RunChange {
  if (!result.ok) throw new Error(`refused ${result.error.code}: ${result.error.message}`);
  return result.value;
}

// --- The generated world ---

const IDS = ["s0", "s1", "s2", "s3", "s4", "s5"] as const;
const FAIL_CODES: readonly ErrorCode[] = ["handler_failed", "operation_expired", "failed", "rate_limited"];

interface StepShape {
  readonly confirm: boolean;
  readonly retry: { max_attempts: number; backoff_ms: number | undefined } | undefined;
  readonly timeout_ms: number | undefined;
  readonly on_error: "none" | "fail" | "continue" | { goto: number };
  /**
   * Each reference: the run's input, something the run never has, an earlier step's whole output or its `v`
   * (`back` steps before the one before), or any step at all (itself or a later one: the install check refuses those).
   */
  readonly refs: readonly Ref[];
}

type Ref = { kind: "input" } | { kind: "missing" } | { kind: "earlier"; back: number; whole: boolean } | { kind: "step"; index: number; whole: boolean };

const refArb: fc.Arbitrary<Ref> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: "input" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "missing" as const }) },
  { weight: 10, arbitrary: fc.record({ kind: fc.constant("earlier" as const), back: fc.integer({ min: 0, max: 5 }), whole: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("step" as const), index: fc.integer({ min: 0, max: 5 }), whole: fc.boolean() }) },
);

const stepArb: fc.Arbitrary<StepShape> = fc.record({
  confirm: fc.constantFrom(false, false, false, true),
  retry: fc.option(fc.record({ max_attempts: fc.integer({ min: 1, max: 4 }), backoff_ms: fc.option(fc.integer({ min: 0, max: 400_000 }), { nil: undefined }) }), { nil: undefined }),
  timeout_ms: fc.option(fc.integer({ min: 10, max: 60_000 }), { nil: undefined }),
  on_error: fc.oneof(fc.constant("none" as const), fc.constant("fail" as const), fc.constant("continue" as const), fc.record({ goto: fc.integer({ min: 0, max: 5 }) }), fc.record({ goto: fc.integer({ min: 0, max: 5 }) })),
  refs: fc.array(refArb, { maxLength: 3 }),
});

/** The pointer of a reference made by the step at `index` (the workflow's output: `index` = the step count) of `count` steps. */
function pointerOf(ref: Ref, index: number, count: number): string {
  if (ref.kind === "input" || (ref.kind === "earlier" && index === 0)) return "/input/x";
  if (ref.kind === "missing") return "/input/nope";
  const target = ref.kind === "earlier" ? index - 1 - (ref.back % index) : ref.index % count;
  return `/steps/${IDS[target]}/output${ref.whole ? "" : "/v"}`;
}

function declarationOf(shapes: readonly StepShape[], outputRefs: readonly Ref[] | undefined): WorkflowDeclaration {
  const count = shapes.length;
  const steps = shapes.map((shape, i): WorkflowStep => {
    const onError = shape.on_error === "none" ? undefined : typeof shape.on_error === "object" ? { goto: IDS[shape.on_error.goto % count]! } : shape.on_error;
    return {
      id: IDS[i]!,
      kind: shape.confirm ? "confirm" : "tool",
      ...(shape.confirm ? {} : { tool: { method: "app.work" } }),
      ...(shape.refs.length === 0 ? {} : { input: Object.fromEntries(shape.refs.map((ref, j) => [`r${j}`, { $from: pointerOf(ref, i, count) }])) }),
      ...(shape.retry === undefined ? {} : { retry: { max_attempts: shape.retry.max_attempts, ...(shape.retry.backoff_ms === undefined ? {} : { backoff_ms: shape.retry.backoff_ms }) } }),
      ...(shape.timeout_ms === undefined ? {} : { timeout_ms: shape.timeout_ms }),
      ...(onError === undefined ? {} : { on_error: onError }),
    } as WorkflowStep;
  });
  const output = outputRefs === undefined ? undefined : { out: outputRefs.map((ref) => ({ $from: pointerOf(ref, count, count) })) };
  return { id: "flow", title: "A flow", steps, ...(output === undefined ? {} : { output }) };
}

/** What happens around one effect. */
interface Event {
  readonly ok: boolean;
  readonly code: ErrorCode;
  readonly retryable: boolean | undefined;
  readonly crash: "none" | "before_effect" | "after_effect" | "while_waiting";
  readonly cancel: "none" | "before_start" | "while_waiting";
}

const eventArb: fc.Arbitrary<Event> = fc.record({
  ok: fc.constantFrom(true, true, false),
  code: fc.constantFrom(...FAIL_CODES),
  retryable: fc.constantFrom(undefined, undefined, true, false),
  crash: fc.oneof({ weight: 12, arbitrary: fc.constant("none" as const) }, fc.constantFrom("before_effect" as const, "after_effect" as const, "while_waiting" as const)),
  cancel: fc.oneof({ weight: 30, arbitrary: fc.constant("none" as const) }, fc.constantFrom("before_start" as const, "while_waiting" as const)),
});

const DEFAULT_EVENT: Event = { ok: true, code: "failed", retryable: undefined, crash: "none", cancel: "none" };

interface Scenario {
  readonly decl: WorkflowDeclaration;
  readonly events: readonly Event[];
}

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    shapes: fc.array(stepArb, { minLength: 1, maxLength: 6 }),
    output: fc.option(fc.array(refArb, { maxLength: 2 }), { nil: undefined }),
    events: fc.array(eventArb, { maxLength: 30 }),
  })
  .map(({ shapes, output, events }) => ({ decl: declarationOf(shapes, output), events }));

// --- An independent reading of the rules, for the checks ---

/** A step's input as the rules say: only the run's input and the recorded outputs of steps before it; undefined when a pointer names nothing. */
function expectedInput(decl: WorkflowDeclaration, run: WorkflowRun, index: number): JsonValue | undefined {
  const template = decl.steps[index]!.input as Record<string, { $from: string }> | undefined;
  if (template === undefined) return null;
  const out: Record<string, JsonValue> = {};
  for (const [key, ref] of Object.entries(template)) {
    const segments = parsePointer(ref.$from)!;
    let value: JsonValue | undefined;
    if (segments[0] === "input") value = (run.input as Record<string, JsonValue>)[segments[1]!];
    else {
      const at = decl.steps.findIndex((s) => s.id === segments[1]);
      const output = at >= 0 && at < index ? run.steps[segments[1]!]?.output : undefined;
      value = output === undefined ? undefined : segments.length === 3 ? output : output !== null && typeof output === "object" && !Array.isArray(output) ? output[segments[3]!] : undefined;
    }
    if (value === undefined) return undefined;
    out[key] = value;
  }
  return out;
}

/** Every "out:<id>" string in a value: which steps' outputs it holds. */
function producersIn(value: JsonValue, into: string[] = []): string[] {
  if (typeof value === "string" && value.startsWith("out:")) into.push(value.slice(4));
  else if (Array.isArray(value)) for (const item of value) producersIn(item, into);
  else if (value !== null && typeof value === "object") for (const item of Object.values(value)) producersIn(item, into);
  return into;
}

// --- The loop under test: the Runtime's, reduced to commits, a clock and an executor ---

interface Outcome {
  readonly run: WorkflowRun;
  readonly trace: readonly TraceEntry[];
  readonly effects: ReadonlyMap<string, number>;
  readonly actions: number;
  readonly bound: number;
}

function drive({ decl, events }: Scenario): Outcome {
  const trace: TraceEntry[] = [];
  let clock = T0;
  const started = startRun(decl, { run_id: "run-1", app_scope: "notes", app_version: "1.0.0", input: { x: "in:x" }, now: clock });
  let run = started.run;
  trace.push(...started.trace);
  /** The executor's record of effects that succeeded, by idempotency key (durable, like the outbox's server). */
  const executed = new Map<string, JsonValue>();
  /** How often each step's effect actually happened and succeeded. */
  const effects = new Map<string, number>();
  const keys = new Map<string, string>();
  let current = run.current;
  const commit = (change: RunChange): void => {
    expect(change.run.current, "current never goes backwards").toBeGreaterThanOrEqual(current);
    current = change.run.current;
    run = change.run;
    trace.push(...change.trace);
  };
  const bound = 2 * decl.steps.reduce((n, s) => n + (s.retry?.max_attempts ?? 1), 0) + events.length + 2;
  let cursor = 0;
  let actions = 0;
  while (!isRunEnded(run)) {
    actions += 1;
    if (actions > bound) throw new Error(`no end after ${bound} actions: ${JSON.stringify(run)}`);
    const action = nextAction(decl, run, clock);
    if (action.kind === "wait") {
      expect(action.until).toBeGreaterThan(clock);
      expect(action.until - clock).toBeLessThanOrEqual(MAX_RETRY_BACKOFF_MS);
      clock = action.until;
      continue;
    }
    expect(action.kind, "a live run between commits always has a step to run").toBe("run_step");
    if (action.kind !== "run_step") break;
    const index = run.current;
    const step = action.step;
    expect(step.id).toBe(decl.steps[index]!.id);
    expect(action.attempt).toBe(run.steps[step.id]!.attempt);
    expect(action.idempotency_key).toBe(stepIdempotencyKey(run.run_id, step.id));
    if (keys.has(step.id)) expect(action.idempotency_key, "one key per step, every attempt").toBe(keys.get(step.id));
    keys.set(step.id, action.idempotency_key);
    expect(action.deadline).toBe(step.timeout_ms === undefined ? undefined : clock + step.timeout_ms);
    // Inputs come from the run's input and earlier steps only.
    expect(action.input).toEqual(expectedInput(decl, run, index));
    for (const producer of producersIn(action.input)) expect(decl.steps.findIndex((s) => s.id === producer)).toBeLessThan(index);

    const event = events[cursor++] ?? DEFAULT_EVENT;
    if (event.cancel === "before_start") {
      commit(accepted(cancelRun(run, clock, "the app stopped it")));
      break;
    }
    commit(accepted(markStarted(decl, run, step.id, clock)));
    expect(nextAction(decl, run, clock), "a running step is not run twice").toEqual({ kind: "none" });
    if (event.crash === "before_effect") {
      commit(resumeRun(run, clock));
      continue;
    }
    let outcome: StepOutcome;
    if (step.kind === "confirm") {
      commit(accepted(markWaiting(run, step.id, clock)));
      expect(run.status).toBe("waiting_for_user");
      expect(nextAction(decl, run, clock)).toEqual({ kind: "wait_for_user", step_id: step.id });
      if (event.cancel === "while_waiting") {
        commit(accepted(cancelRun(run, clock, "the person closed it", "cancelled_by_user")));
        break;
      }
      if (event.crash === "while_waiting") {
        commit(resumeRun(run, clock));
        expect(run.status).toBe("running");
        continue;
      }
      outcome = event.ok ? { ok: true, output: { confirmed: true, v: `out:${step.id}` } } : { ok: false, code: "cancelled_by_user", message: "the person said no", retryable: false };
      if (event.ok) effects.set(step.id, (effects.get(step.id) ?? 0) + 1);
    } else {
      const done = executed.get(action.idempotency_key);
      if (done !== undefined) outcome = { ok: true, output: done };
      else if (event.ok) {
        const output = { v: `out:${step.id}`, attempt: action.attempt, from: action.input };
        executed.set(action.idempotency_key, output);
        effects.set(step.id, (effects.get(step.id) ?? 0) + 1);
        outcome = { ok: true, output };
      } else {
        outcome = { ok: false, code: event.code, message: `attempt ${action.attempt} failed`, ...(event.retryable === undefined ? {} : { retryable: event.retryable }) };
      }
      if (event.crash === "after_effect") {
        // The outcome never reached a commit: after the restart the same attempt runs again.
        commit(resumeRun(run, clock));
        continue;
      }
    }
    commit(accepted(applyOutcome(decl, run, step.id, outcome, clock)));
    const after = run.steps[step.id]!;
    const maxAttempts = step.retry?.max_attempts ?? 1;
    expect(action.attempt).toBeLessThanOrEqual(maxAttempts);
    if (outcome.ok) expect(after).toMatchObject({ status: "succeeded", output: outcome.output, attempt: action.attempt });
    else if (outcome.retryable !== false && action.attempt < maxAttempts) {
      expect(after).toMatchObject({ status: "pending", attempt: action.attempt + 1, not_before: clock + retryDelay(step, action.attempt), error: { code: outcome.code } });
      expect(run.current).toBe(index);
    } else {
      expect(after).toMatchObject({ status: "failed", attempt: action.attempt, error: { code: outcome.code } });
      if (run.status !== "failed") expect(after.output).toBeNull();
    }
    clock += 1;
  }
  return { run, trace, effects, actions, bound };
}

function checkEnded(decl: WorkflowDeclaration, { run, trace, effects }: Outcome): void {
  expect(["completed", "failed", "cancelled"]).toContain(run.status);
  // The trace is numbered 1..n, all of this run, and the run counts it.
  expect(trace.map((e) => e.index)).toEqual(trace.map((_, i) => i + 1));
  expect(run.trace_count).toBe(trace.length);
  expect(new Set(trace.map((e) => e.run_id))).toEqual(new Set([run.run_id]));
  expect(trace[0]!.kind).toBe("run.started");
  expect(trace.at(-1)!.kind).toBe(run.status === "completed" ? "run.completed" : run.status === "failed" ? "run.failed" : "run.cancelled");
  expect(trace.filter((e) => e.kind.startsWith("run.") && e.kind !== "run.started")).toHaveLength(1);
  // Each step's effect succeeded at most once.
  for (const [stepId, count] of effects) expect(count, stepId).toBeLessThanOrEqual(1);
  // A step that started had an input; one that never did and failed was refused its input or skipped.
  for (const step of decl.steps) {
    const record = run.steps[step.id]!;
    const started = trace.some((e) => e.kind === "step.started" && e.step_id === step.id);
    if (record.status === "succeeded") {
      expect(started).toBe(true);
      expect(record.output_hash).toBe(jsonHash(record.output!));
      expect(trace.filter((e) => e.kind === "step.succeeded" && e.step_id === step.id)).toHaveLength(1);
    }
    if (record.status === "failed" && !started) expect(["invalid_params", "request_cancelled", "cancelled_by_user"]).toContain(record.error?.code);
    if (record.status === "skipped") expect(started).toBe(false);
  }
  // Skipped steps lie between a failed step that went to a later one and that step.
  decl.steps.forEach((step, i) => {
    if (run.steps[step.id]!.status !== "skipped") return;
    const from = decl.steps.findIndex((s, j) => j < i && run.steps[s.id]!.status === "failed" && typeof s.on_error === "object" && decl.steps.findIndex((t) => t.id === (s.on_error as { goto: string }).goto) > i);
    expect(from, `${step.id} skipped without a goto over it`).toBeGreaterThanOrEqual(0);
  });
  if (run.status === "completed") {
    expect(run.current).toBe(decl.steps.length);
    for (const step of decl.steps) expect(["succeeded", "failed", "skipped"]).toContain(run.steps[step.id]!.status);
    if (decl.output === undefined) {
      const last = [...decl.steps].reverse().find((s) => run.steps[s.id]!.status === "succeeded");
      expect(run.output).toEqual(last === undefined ? null : run.steps[last.id]!.output);
    }
    for (const producer of producersIn(run.output!)) expect(run.steps[producer]!.status).toBe("succeeded");
  } else {
    expect(run.error).toBeDefined();
    expect(run.output).toBeUndefined();
  }
  // After the end: nothing to do, and every transition is refused.
  const later = T0 + 10 * MAX_RETRY_BACKOFF_MS * 100;
  expect(nextAction(decl, run, later)).toEqual({ kind: "none" });
  const stepId = decl.steps[Math.min(run.current, decl.steps.length - 1)]!.id;
  for (const refusal of [markStarted(decl, run, stepId, later), applyOutcome(decl, run, stepId, { ok: true, output: null }, later), markWaiting(run, stepId, later), cancelRun(run, later, "again")]) {
    expect(refusal).toMatchObject({ ok: false, error: { code: "invalid_state" } });
  }
  expect(resumeRun(run, later)).toEqual({ run, trace: [] });
}

describe("workflow runs, model-based", () => {
  it(`ends every run correctly under random outcomes, cancels and crashes (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        const outcome = drive(scenario);
        expect(outcome.actions).toBeLessThanOrEqual(outcome.bound);
        checkEnded(scenario.decl, outcome);
      }),
      { numRuns: RUNS, seed: 20_2025, endOnFailure: true },
    );
  }, timeLimitFor(RUNS, 200, 20_000));
});

// --- Examples ---

const tool = (id: string, extra: Partial<WorkflowStep> = {}): WorkflowStep => ({ id, kind: "tool", tool: { method: "app.work" }, ...extra });
const flow = (steps: WorkflowStep[], extra: Partial<WorkflowDeclaration> = {}): WorkflowDeclaration => ({ id: "flow", title: "A flow", steps, ...extra });
const start = (decl: WorkflowDeclaration, input: JsonValue = { q: "cats" }): RunChange => startRun(decl, { run_id: "r1", app_scope: "notes", app_version: "1.0.0", input, now: T0 });

/** Starts, then reports `outcome` for the current step at `now`. */
function step(decl: WorkflowDeclaration, run: WorkflowRun, outcome: StepOutcome, now = T0): RunChange {
  const action = nextAction(decl, run, now);
  if (action.kind !== "run_step") throw new Error(`expected run_step, got ${action.kind}`);
  const started = accepted(markStarted(decl, run, action.step.id, now));
  const done = accepted(applyOutcome(decl, started.run, action.step.id, outcome, now));
  return { run: done.run, trace: [...started.trace, ...done.trace] };
}

const kinds = (trace: readonly TraceEntry[]): string[] => trace.map((e) => (e.step_id === undefined ? e.kind : `${e.kind}:${e.step_id}`));

/** Freezes a value and everything in it: a transition that changes its argument throws. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

describe("workflow runs, examples", () => {
  it("runs steps in order, feeding each the run's input and earlier outputs, and completes with the output template", () => {
    const decl = flow(
      [tool("search", { input: { q: { $from: "/input/q" } } }), tool("save", { input: { hits: { $from: "/steps/search/output/hits" }, q: { $from: "/input/q" } }, timeout_ms: 5_000 })],
      { output: { saved: { $from: "/steps/save/output/id" }, count: { $from: "/steps/search/output/total" } } },
    );
    const started = start(decl);
    expect(started.run).toMatchObject({ status: "running", current: 0, workflow_id: "flow", trace_count: 1, created_at: new Date(T0).toISOString() });
    expect(kinds(started.trace)).toEqual(["run.started"]);
    const first = nextAction(decl, started.run, T0);
    expect(first).toEqual({ kind: "run_step", step: decl.steps[0], attempt: 1, input: { q: "cats" }, idempotency_key: stepIdempotencyKey("r1", "search") });
    const a = step(decl, started.run, { ok: true, output: { hits: ["h1", "h2"], total: 2 } });
    expect(a.run.current).toBe(1);
    expect(a.trace.map((e) => e.index)).toEqual([2, 3]);
    expect(a.trace[0]).toMatchObject({ kind: "step.started", step_id: "search", attempt: 1, input_hash: jsonHash({ q: "cats" }) });
    expect(a.trace[1]).toMatchObject({ kind: "step.succeeded", output_hash: jsonHash({ hits: ["h1", "h2"], total: 2 }) });
    expect(nextAction(decl, a.run, T0 + 7)).toEqual({ kind: "run_step", step: decl.steps[1], attempt: 1, input: { hits: ["h1", "h2"], q: "cats" }, idempotency_key: stepIdempotencyKey("r1", "save"), deadline: T0 + 7 + 5_000 });
    const b = step(decl, a.run, { ok: true, output: { id: "n1" } });
    expect(b.run).toMatchObject({ status: "completed", output: { saved: "n1", count: 2 }, current: 2, trace_count: 6 });
    expect(kinds(b.trace)).toEqual(["step.started:save", "step.succeeded:save", "run.completed"]);
    expect(b.trace.at(-1)!.output_hash).toBe(jsonHash({ saved: "n1", count: 2 }));
    expect(b.run.steps["save"]).toMatchObject({ status: "succeeded", output: { id: "n1" }, input_hash: jsonHash({ hits: ["h1", "h2"], q: "cats" }) });
  });

  it("completes with the last succeeded step's output by default, null when none succeeded", () => {
    const decl = flow([tool("a"), tool("b", { on_error: "continue" })]);
    const a = step(decl, start(decl).run, { ok: true, output: { v: 1 } });
    const b = step(decl, a.run, { ok: false, code: "handler_failed", message: "no" });
    expect(b.run).toMatchObject({ status: "completed", output: { v: 1 } });
    const lone = flow([tool("a", { on_error: "continue" })]);
    expect(step(lone, start(lone).run, { ok: false, code: "handler_failed", message: "no" }).run).toMatchObject({ status: "completed", output: null });
  });

  it("retries with a doubling backoff, capped at ten minutes, and keeps the idempotency key", () => {
    const decl = flow([tool("a", { retry: { max_attempts: 3, backoff_ms: 100 } })]);
    const first = step(decl, start(decl).run, { ok: false, code: "handler_failed", message: "busy" }, T0);
    expect(kinds(first.trace)).toEqual(["step.started:a", "step.retry_scheduled:a"]);
    expect(first.trace[1]).toMatchObject({ attempt: 1, error: { code: "handler_failed", message: "busy" } });
    expect(first.run.steps["a"]).toMatchObject({ status: "pending", attempt: 2, not_before: T0 + 100 });
    expect(nextAction(decl, first.run, T0 + 50)).toEqual({ kind: "wait", until: T0 + 100 });
    expect(markStarted(decl, first.run, "a", T0 + 50)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    const again = nextAction(decl, first.run, T0 + 100);
    expect(again).toMatchObject({ kind: "run_step", attempt: 2, idempotency_key: stepIdempotencyKey("r1", "a") });
    const second = step(decl, first.run, { ok: false, code: "operation_expired", message: "timed out" }, T0 + 100);
    expect(second.run.steps["a"]).toMatchObject({ attempt: 3, not_before: T0 + 100 + 200 });
    const third = step(decl, second.run, { ok: true, output: "done" }, T0 + 300);
    expect(third.run).toMatchObject({ status: "completed", output: "done" });
    expect(third.run.steps["a"]!.error).toBeUndefined();

    expect(retryDelay(tool("x", { retry: { max_attempts: 10, backoff_ms: 400_000 } }), 1)).toBe(400_000);
    expect(retryDelay(tool("x", { retry: { max_attempts: 10, backoff_ms: 400_000 } }), 2)).toBe(MAX_RETRY_BACKOFF_MS);
    expect(retryDelay(tool("x", { retry: { max_attempts: 10, backoff_ms: 0 } }), 5)).toBe(0);
    expect(retryDelay(tool("x", { retry: { max_attempts: 10, backoff_ms: 1 } }), 1_000)).toBe(MAX_RETRY_BACKOFF_MS);
  });

  it("fails the run after the last attempt (on_error fail, the default), and retries nothing refused for good", () => {
    const decl = flow([tool("a", { retry: { max_attempts: 2, backoff_ms: 0 } }), tool("b")]);
    const one = step(decl, start(decl).run, { ok: false, code: "handler_failed", message: "once" });
    const two = step(decl, one.run, { ok: false, code: "handler_failed", message: "twice" });
    expect(two.run).toMatchObject({ status: "failed", error: { code: "handler_failed", message: "twice", step_id: "a" } });
    expect(kinds(two.trace)).toEqual(["step.started:a", "step.failed:a", "run.failed:a"]);
    expect(two.run.steps["b"]!.status).toBe("pending");
    expect(nextAction(decl, two.run, T0)).toEqual({ kind: "none" });

    const refusedForGood = step(decl, start(decl).run, { ok: false, code: "permission_denied", message: "no", retryable: false });
    expect(refusedForGood.run).toMatchObject({ status: "failed", error: { code: "permission_denied", step_id: "a" } });
  });

  it("goes on with a null output on continue, and later steps read that null", () => {
    const decl = flow([tool("a", { on_error: "continue" }), tool("b", { input: { prev: { $from: "/steps/a/output" } } })]);
    const a = step(decl, start(decl).run, { ok: false, code: "handler_failed", message: "no" });
    expect(a.run.steps["a"]).toMatchObject({ status: "failed", output: null, error: { code: "handler_failed" } });
    expect(nextAction(decl, a.run, T0)).toMatchObject({ kind: "run_step", input: { prev: null } });
  });

  it("skips the steps between on a goto and goes on at its target", () => {
    const decl = flow([tool("a", { on_error: { goto: "d" } }), tool("b"), tool("c"), tool("d", { input: { a: { $from: "/steps/a/output" } } })]);
    const a = step(decl, start(decl).run, { ok: false, code: "handler_failed", message: "no" });
    expect(a.run.current).toBe(3);
    expect(a.run.steps["b"]!.status).toBe("skipped");
    expect(a.run.steps["c"]!.status).toBe("skipped");
    expect(nextAction(decl, a.run, T0)).toMatchObject({ kind: "run_step", step: { id: "d" }, input: { a: null } });
  });

  it("treats a goto that does not go forward as fail", () => {
    const decl = flow([tool("a"), tool("b", { on_error: { goto: "a" } })]);
    const a = step(decl, start(decl).run, { ok: true, output: 1 });
    const b = step(decl, a.run, { ok: false, code: "handler_failed", message: "no" });
    expect(b.run).toMatchObject({ status: "failed", current: 1, error: { step_id: "b" } });
  });

  it("fails a step whose input names nothing without running it, then applies its on_error", () => {
    const decl = flow([tool("a", { input: { $from: "/input/missing" }, on_error: "continue", retry: { max_attempts: 3 } }), tool("b", { input: { $from: "/steps/b/output" } })]);
    const started = start(decl);
    expect(started.run.steps["a"]).toMatchObject({ status: "failed", output: null, error: { code: "invalid_params" } });
    expect(started.run).toMatchObject({ status: "failed", error: { code: "invalid_params", step_id: "b" } });
    expect(kinds(started.trace)).toEqual(["run.started", "step.failed:a", "step.failed:b", "run.failed:b"]);
  });

  it("fails the run when its output template names nothing", () => {
    const decl = flow([tool("a")], { output: { $from: "/steps/a/output/nope" } });
    const a = step(decl, start(decl).run, { ok: true, output: { yes: 1 } });
    expect(a.run).toMatchObject({ status: "failed", error: { code: "invalid_params" } });
    expect(a.run.output).toBeUndefined();
  });

  it("waits for the person on a confirm step, and a refusal ends the run", () => {
    const decl = flow([{ id: "ok", kind: "confirm", title: "Send it?" }, tool("send")]);
    const { run } = start(decl);
    expect(nextAction(decl, run, T0)).toMatchObject({ kind: "run_step", step: { kind: "confirm" } });
    const started = accepted(markStarted(decl, run, "ok", T0));
    const waiting = accepted(markWaiting(started.run, "ok", T0));
    expect(waiting.run.status).toBe("waiting_for_user");
    expect(waiting.trace).toMatchObject([{ kind: "step.waiting", step_id: "ok", attempt: 1, index: 3 }]);
    expect(nextAction(decl, waiting.run, T0)).toEqual({ kind: "wait_for_user", step_id: "ok" });
    expect(accepted(markWaiting(waiting.run, "ok", T0)).trace).toEqual([]);
    const yes = accepted(applyOutcome(decl, waiting.run, "ok", { ok: true, output: { confirmed: true } }, T0));
    expect(yes.run).toMatchObject({ status: "running", current: 1 });
    const no = accepted(applyOutcome(decl, waiting.run, "ok", { ok: false, code: "cancelled_by_user", message: "no", retryable: false }, T0));
    expect(no.run).toMatchObject({ status: "failed", error: { code: "cancelled_by_user", step_id: "ok" } });
  });

  it("re-runs a step that was running at a restart: the same attempt, the same key", () => {
    const decl = flow([tool("a", { retry: { max_attempts: 3, backoff_ms: 10 } })]);
    const failed = step(decl, start(decl).run, { ok: false, code: "handler_failed", message: "no" });
    const running = accepted(markStarted(decl, failed.run, "a", T0 + 10));
    expect(nextAction(decl, running.run, T0 + 10)).toEqual({ kind: "none" });
    const resumed = resumeRun(running.run, T0 + 99);
    expect(resumed.trace).toEqual([]);
    expect(resumed.run.steps["a"]).toMatchObject({ status: "pending", attempt: 2 });
    expect(nextAction(decl, resumed.run, T0 + 99)).toMatchObject({ kind: "run_step", attempt: 2, idempotency_key: stepIdempotencyKey("r1", "a") });

    const confirm = flow([{ id: "ok", kind: "confirm" }]);
    const asking = accepted(markWaiting(accepted(markStarted(confirm, start(confirm).run, "ok", T0)).run, "ok", T0));
    const back = resumeRun(asking.run, T0 + 1);
    expect(back.run.status).toBe("running");
    expect(nextAction(confirm, back.run, T0 + 1)).toMatchObject({ kind: "run_step", attempt: 1, step: { id: "ok" } });
  });

  it("cancels a live run once; later outcomes and cancels are refused", () => {
    const decl = flow([tool("a"), tool("b")]);
    const running = accepted(markStarted(decl, start(decl).run, "a", T0));
    const cancelled = accepted(cancelRun(running.run, T0 + 5, "the person stopped it"));
    expect(cancelled.run).toMatchObject({ status: "cancelled", error: { code: "request_cancelled", message: "the person stopped it", step_id: "a" } });
    expect(cancelled.run.steps["a"]).toMatchObject({ status: "failed", error: { code: "request_cancelled" } });
    expect(cancelled.trace).toMatchObject([{ kind: "run.cancelled", index: 3, step_id: "a" }]);
    expect(cancelRun(cancelled.run, T0 + 6, "again")).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    expect(applyOutcome(decl, cancelled.run, "a", { ok: true, output: 1 }, T0 + 6)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    expect(nextAction(decl, cancelled.run, T0 + 6)).toEqual({ kind: "none" });
    const idle = accepted(cancelRun(start(decl).run, T0, "never mind"));
    expect(idle.run.error).toEqual({ code: "request_cancelled", message: "never mind" });
  });

  it("reports a timed-out step as operation_expired, retried like any failure", () => {
    const decl = flow([tool("a", { timeout_ms: 1_000, retry: { max_attempts: 2, backoff_ms: 0 } })]);
    const { run } = start(decl);
    expect(nextAction(decl, run, T0)).toMatchObject({ deadline: T0 + 1_000 });
    const expired = step(decl, run, { ok: false, code: "operation_expired", message: "no answer within 1000 ms" });
    expect(expired.run.steps["a"]).toMatchObject({ status: "pending", attempt: 2, error: { code: "operation_expired" } });
  });

  it("refuses steps out of turn and outcomes for steps that are not running", () => {
    const decl = flow([tool("a"), tool("b")]);
    const { run } = start(decl);
    expect(markStarted(decl, run, "b", T0)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    expect(markStarted(decl, run, "zz", T0)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    expect(markStarted(decl, run, "constructor", T0)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    expect(applyOutcome(decl, run, "a", { ok: true, output: 1 }, T0)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    expect(markWaiting(run, "a", T0)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    const running = accepted(markStarted(decl, run, "a", T0));
    expect(markStarted(decl, running.run, "a", T0)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
    expect(markStarted({ ...decl, id: "other" }, run, "a", T0)).toMatchObject({ ok: false, error: { code: "invalid_state" } });
  });

  it("never changes the run it is given", () => {
    const decl = deepFreeze(flow([tool("a", { retry: { max_attempts: 2, backoff_ms: 5 }, on_error: { goto: "c" } }), tool("b"), tool("c")]));
    const { run } = start(decl);
    const frozen = deepFreeze(run);
    const before = JSON.stringify(frozen);
    const running = accepted(markStarted(decl, frozen, "a", T0));
    deepFreeze(running.run);
    accepted(markWaiting(running.run, "a", T0));
    resumeRun(running.run, T0);
    accepted(cancelRun(running.run, T0, "x"));
    const retried = accepted(applyOutcome(decl, running.run, "a", { ok: false, code: "failed", message: "x" }, T0));
    deepFreeze(retried.run);
    const again = accepted(markStarted(decl, retried.run, "a", T0 + 5));
    deepFreeze(again.run);
    const gone = accepted(applyOutcome(decl, again.run, "a", { ok: false, code: "failed", message: "x" }, T0 + 5));
    expect(gone.run.current).toBe(2);
    expect(JSON.stringify(frozen)).toBe(before);
    expect(retried.run.steps["a"]!.status).toBe("pending");
  });

  it("keys trace rows so a run's entries sort in order", () => {
    const keys = [1, 2, 10, 100, 9].map((i) => traceKey("r1", i));
    expect([...keys].sort()).toEqual([1, 2, 9, 10, 100].map((i) => traceKey("r1", i)));
  });
});
