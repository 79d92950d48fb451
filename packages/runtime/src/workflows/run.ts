/**
 * Durable workflow runs, the pure core (spec 003 "Workflow Runtime", docs/architecture.md "One loop"): the run
 * record, its numbered trace, and the transitions the Runtime's loop commits. Nothing here does I/O — a handler
 * posts inputs, the loop commits the run and its trace entries together, and a shell runs the step effects
 * that `nextAction` asks for.
 *
 * The cycle, for the step at `current`: `nextAction` says `run_step` (with the resolved input and the step's
 * idempotency key) → the loop commits `markStarted` → the shell runs the effect (a confirm step, or an agent
 * task that asks the person, first commits `markWaiting`) → the loop commits `applyOutcome`. A failure is
 * retried while attempts are left (after a backoff: `nextAction` says `wait`), then `on_error` decides: end
 * the run, go on with a null output, or go to a later step. After the last step the run completes with the
 * declaration's `output` template resolved.
 *
 * Exactly once: a step's idempotency key is the run's id and the step's id, the same for every attempt. After
 * a restart `resumeRun` turns a step that was running (its outcome never committed) into a re-run of the same
 * attempt; the effect executor deduplicates by the key, so an effect that happened is answered from its
 * record instead of happening again.
 *
 * Every transition returns a new run (the given one is never changed) and the trace entries it added,
 * numbered after the run's last (`trace_count`). Misuse (a step that is not the current one, a run that has
 * ended) is a typed refusal, never a throw. Times: `now` is epoch milliseconds; `*_at` fields are ISO text,
 * `not_before`, `deadline` and `until` are epoch milliseconds.
 */
import { canonicalJson, fail, ok, type ErrorCode, type JsonValue, type ProtocolError, type Result, type WorkflowDeclaration, type WorkflowStep } from "@lineup/protocol";
import { sha256Hex } from "../core/sha256.js";
import { padNumber } from "../persistence/keys.js";
import { toTimestamp } from "../core/ports.js";
import { resolveTemplate, type TemplateDocument } from "./template.js";

export type RunStatus = "running" | "waiting_for_user" | "completed" | "failed" | "cancelled";
export type StepStatus = "pending" | "running" | "waiting" | "succeeded" | "failed" | "skipped";

/** A run that has ended: nothing moves it any more. */
export const TERMINAL_RUN_STATUSES: ReadonlySet<RunStatus> = new Set(["completed", "failed", "cancelled"]);
export const isRunEnded = (run: Pick<WorkflowRun, "status">): boolean => TERMINAL_RUN_STATUSES.has(run.status);

/** The wait before a retry when the step names none (`retry.backoff_ms`). */
export const DEFAULT_RETRY_BACKOFF_MS = 1_000;
/** The longest wait before a retry, however often the backoff doubled. */
export const MAX_RETRY_BACKOFF_MS = 10 * 60 * 1_000;

export interface StepError {
  readonly code: ErrorCode;
  readonly message: string;
}

export interface RunError extends StepError {
  /** The step whose failure ended the run (or that was in flight when it was cancelled). */
  readonly step_id?: string;
}

export interface StepRecord {
  readonly step_id: string;
  readonly status: StepStatus;
  /** The attempt running or next to run, from 1. */
  readonly attempt: number;
  /** The run's id and the step's id: the same for every attempt, so the effect happens once. */
  readonly idempotency_key: string;
  /** SHA-256 (hex) of the canonical JSON of the resolved input, once the step started. */
  readonly input_hash?: string;
  /** SHA-256 (hex) of the canonical JSON of the output, once it succeeded. */
  readonly output_hash?: string;
  /** Succeeded: its output; failed and gone on (`continue`, `goto`): null. */
  readonly output?: JsonValue;
  readonly started_at?: string;
  readonly ended_at?: string;
  /** The last failure (of an earlier attempt, while a retry is pending). */
  readonly error?: StepError;
  /** A retry: not before this time (epoch ms). */
  readonly not_before?: number;
}

export interface WorkflowRun {
  readonly run_id: string;
  readonly app_scope: string;
  readonly app_version: string;
  readonly workflow_id: string;
  readonly conversation_id?: string;
  readonly input: JsonValue;
  readonly status: RunStatus;
  readonly created_at: string;
  readonly updated_at: string;
  /** The index (in the declaration) of the step to run next; the step count once every step is done. */
  readonly current: number;
  readonly steps: Readonly<Record<string, StepRecord>>;
  /** Completed: the declaration's `output` resolved (default: the last succeeded step's output). */
  readonly output?: JsonValue;
  readonly error?: RunError;
  /** How many trace entries the run has; the next is numbered one more. */
  readonly trace_count: number;
}

export type TraceKind =
  | "run.started"
  | "step.started"
  | "step.succeeded"
  | "step.failed"
  | "step.retry_scheduled"
  | "step.waiting"
  | "run.completed"
  | "run.failed"
  | "run.cancelled";

/** One numbered fact of a run, stored as its own row (`traceKey`). */
export interface TraceEntry {
  readonly index: number;
  readonly run_id: string;
  readonly step_id?: string;
  readonly at: string;
  readonly kind: TraceKind;
  /** The attempt the fact is about (`step.retry_scheduled`: the attempt that failed). */
  readonly attempt?: number;
  readonly input_hash?: string;
  readonly output_hash?: string;
  readonly error?: StepError;
}

/** What a transition produced: the new run and the trace entries it added, in order. */
export interface RunChange {
  readonly run: WorkflowRun;
  readonly trace: readonly TraceEntry[];
}

/** What the executor reports for a step. `retryable: false` skips the retries left (a person's refusal). */
export type StepOutcome = { readonly ok: true; readonly output: JsonValue } | { readonly ok: false; readonly code: ErrorCode; readonly message: string; readonly retryable?: boolean };

/** What the loop does next for a run. */
export type RunAction =
  | { readonly kind: "run_step"; readonly step: WorkflowStep; readonly attempt: number; readonly input: JsonValue; readonly idempotency_key: string; readonly deadline?: number }
  /** A retry's backoff: nothing to do before `until` (epoch ms). */
  | { readonly kind: "wait"; readonly until: number }
  /** A step waits for the person (a confirm step, an agent task's question). */
  | { readonly kind: "wait_for_user"; readonly step_id: string }
  /** The run has ended, or its step is running. */
  | { readonly kind: "none" };

export interface StartRunParams {
  readonly run_id: string;
  readonly app_scope: string;
  readonly app_version: string;
  readonly input: JsonValue;
  readonly conversation_id?: string;
  readonly now: number;
}

/** The idempotency key of a step's effect: the same for every attempt and every re-run after a restart. */
export const stepIdempotencyKey = (runId: string, stepId: string): string => `workflow:${runId}:${stepId}`;

/** The row key of a trace entry: a run's entries sort in order. */
export const traceKey = (runId: string, index: number): string => `${runId}/${padNumber(index)}`;

/** SHA-256 (hex) of a value's canonical JSON. */
export const jsonHash = (value: JsonValue): string => sha256Hex(canonicalJson(value));

/** The wait before the retry that follows attempt `attempt` (from 1): `backoff_ms * 2^(attempt-1)`, at most 10 minutes. */
export function retryDelay(step: WorkflowStep, attempt: number): number {
  const base = step.retry?.backoff_ms ?? DEFAULT_RETRY_BACKOFF_MS;
  return Math.min(MAX_RETRY_BACKOFF_MS, base * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
}

const iso = (now: number): string => toTimestamp(now);

/**
 * What the step at `index` may read: the run's input and the outputs of the steps before it that have one
 * (succeeded, or failed and gone on with null). `index` = the step count: every step (the run's output).
 */
export function runDocument(decl: WorkflowDeclaration, run: WorkflowRun, index: number): TemplateDocument {
  const steps: Record<string, { output: JsonValue }> = {};
  for (const step of decl.steps.slice(0, index)) {
    const record = run.steps[step.id];
    if (record?.output !== undefined) steps[step.id] = { output: record.output };
  }
  return { input: run.input, steps };
}

/** The input of the step at `index`, resolved (a step without `input` gets null). */
export function stepInput(decl: WorkflowDeclaration, run: WorkflowRun, index: number): Result<JsonValue> {
  const step = decl.steps[index];
  if (step === undefined) return fail("invalid_state", `workflow ${decl.id} has no step ${index}`);
  return step.input === undefined ? ok(null) : resolveTemplate(step.input, runDocument(decl, run, index));
}

/** The run's record of a step (own entries only: a step id is never read off the prototype). */
export function stepRecord(run: WorkflowRun, stepId: string): StepRecord | undefined {
  return Object.prototype.hasOwnProperty.call(run.steps, stepId) ? run.steps[stepId] : undefined;
}

const refused = (message: string): { ok: false; error: ProtocolError } => fail("invalid_state", message);

/** Accumulates one transition: the run's copy, its changed steps and the trace entries it adds. */
class RunDraft {
  run: WorkflowRun;
  private steps: Record<string, StepRecord> | undefined;
  readonly trace: TraceEntry[] = [];
  readonly at: string;

  constructor(
    run: WorkflowRun,
    readonly now: number,
  ) {
    this.run = run;
    this.at = iso(now);
  }

  step(stepId: string): StepRecord | undefined {
    return stepRecord(this.run, stepId);
  }

  setStep(record: StepRecord): void {
    if (this.steps === undefined) {
      this.steps = { ...this.run.steps };
      this.run = { ...this.run, steps: this.steps };
    }
    this.steps[record.step_id] = record;
  }

  patch(fields: Partial<Pick<WorkflowRun, "status" | "current" | "output" | "error">>): void {
    this.run = { ...this.run, ...fields };
  }

  emit(kind: TraceKind, fields: Partial<Omit<TraceEntry, "index" | "run_id" | "at" | "kind">> = {}): void {
    const index = this.run.trace_count + this.trace.length + 1;
    this.trace.push({ index, run_id: this.run.run_id, ...(fields.step_id === undefined ? {} : { step_id: fields.step_id }), at: this.at, kind, ...omitStep(fields) });
  }

  done(): RunChange {
    return { run: { ...this.run, updated_at: this.at, trace_count: this.run.trace_count + this.trace.length }, trace: this.trace };
  }
}

function omitStep<T extends { readonly step_id?: string }>(fields: T): Omit<T, "step_id"> {
  const { step_id: _step, ...rest } = fields;
  return rest;
}

/** `record` without the named optional fields (exact optional types: absent, not undefined). */
function without(record: StepRecord, ...keys: readonly (keyof StepRecord)[]): StepRecord {
  const copy: Record<string, unknown> = { ...record };
  for (const key of keys) delete copy[key];
  return copy as unknown as StepRecord;
}

/** Starts a run of `decl` at its first step (the caller has checked `input` against `input_schema`). */
export function startRun(decl: WorkflowDeclaration, params: StartRunParams): RunChange {
  const at = iso(params.now);
  const steps: Record<string, StepRecord> = {};
  for (const step of decl.steps) steps[step.id] = { step_id: step.id, status: "pending", attempt: 1, idempotency_key: stepIdempotencyKey(params.run_id, step.id) };
  const run: WorkflowRun = {
    run_id: params.run_id,
    app_scope: params.app_scope,
    app_version: params.app_version,
    workflow_id: decl.id,
    ...(params.conversation_id === undefined ? {} : { conversation_id: params.conversation_id }),
    input: params.input,
    status: "running",
    created_at: at,
    updated_at: at,
    current: 0,
    steps,
    trace_count: 0,
  };
  const draft = new RunDraft(run, params.now);
  draft.emit("run.started");
  settle(draft, decl);
  return draft.done();
}

/**
 * What the loop does next for `run` at `now`: run the current step (its input resolved, its deadline when it
 * has a timeout), wait for a retry's backoff, wait for the person, or nothing (the run has ended, or its step
 * is running — after a restart, call `resumeRun` first).
 */
export function nextAction(decl: WorkflowDeclaration, run: WorkflowRun, now: number): RunAction {
  if (isRunEnded(run)) return { kind: "none" };
  const step = decl.steps[run.current];
  const record = step === undefined ? undefined : stepRecord(run, step.id);
  if (step === undefined || record === undefined) return { kind: "none" };
  if (record.status === "waiting" || run.status === "waiting_for_user") return { kind: "wait_for_user", step_id: step.id };
  if (record.status !== "pending") return { kind: "none" };
  if (record.not_before !== undefined && record.not_before > now) return { kind: "wait", until: record.not_before };
  const input = stepInput(decl, run, run.current);
  // Settled runs always resolve; only a declaration other than the run's own can fail here.
  if (!input.ok) return { kind: "none" };
  return {
    kind: "run_step",
    step,
    attempt: record.attempt,
    input: input.value,
    idempotency_key: record.idempotency_key,
    ...(step.timeout_ms === undefined ? {} : { deadline: now + step.timeout_ms }),
  };
}

/**
 * After a restart: every step that was running or waiting (its outcome never committed) runs again — the same
 * attempt with the same idempotency key, so the executor answers an effect that happened from its record. A
 * run waiting for the person runs again too (the prompt is shown again). An ended run is returned unchanged.
 */
export function resumeRun(run: WorkflowRun, now: number): RunChange {
  if (isRunEnded(run)) return { run, trace: [] };
  const draft = new RunDraft(run, now);
  for (const record of Object.values(run.steps)) {
    if (record.status === "running" || record.status === "waiting") draft.setStep({ ...without(record, "not_before", "started_at"), status: "pending" });
  }
  if (run.status === "waiting_for_user") draft.patch({ status: "running" });
  return draft.done();
}

/** Finds the current step of a live run by id, or says why it is not one. */
function currentStep(decl: WorkflowDeclaration, run: WorkflowRun, stepId: string): Result<{ step: WorkflowStep; record: StepRecord }> {
  if (isRunEnded(run)) return refused(`workflow run ${run.run_id} has ended (${run.status})`);
  if (decl.id !== run.workflow_id) return refused(`workflow run ${run.run_id} is of workflow ${run.workflow_id}, not ${decl.id}`);
  const step = decl.steps[run.current];
  const record = step === undefined ? undefined : stepRecord(run, step.id);
  if (step === undefined || record === undefined || step.id !== stepId) return refused(`step "${stepId}" is not the current step of workflow run ${run.run_id}`);
  return ok({ step, record });
}

/** The current step starts its attempt: `step.started` with the hash of its resolved input. */
export function markStarted(decl: WorkflowDeclaration, run: WorkflowRun, stepId: string, now: number): Result<RunChange> {
  const found = currentStep(decl, run, stepId);
  if (!found.ok) return found;
  const { record } = found.value;
  if (run.status !== "running" || record.status !== "pending") return refused(`step "${stepId}" is ${record.status}: it cannot start`);
  if (record.not_before !== undefined && record.not_before > now) return refused(`step "${stepId}" retries at ${iso(record.not_before)}, not before`);
  const input = stepInput(decl, run, run.current);
  if (!input.ok) return input;
  const draft = new RunDraft(run, now);
  const inputHash = jsonHash(input.value);
  draft.setStep({ ...without(record, "not_before", "ended_at"), status: "running", started_at: draft.at, input_hash: inputHash });
  draft.emit("step.started", { step_id: stepId, attempt: record.attempt, input_hash: inputHash });
  return ok(draft.done());
}

/** The running step waits for the person (a confirm step's prompt, an agent task's question): the run is `waiting_for_user`. */
export function markWaiting(run: WorkflowRun, stepId: string, now: number): Result<RunChange> {
  if (isRunEnded(run)) return refused(`workflow run ${run.run_id} has ended (${run.status})`);
  const draft = new RunDraft(run, now);
  const record = draft.step(stepId);
  if (record?.status === "waiting") return ok({ run, trace: [] });
  if (record?.status !== "running") return refused(`step "${stepId}" is not running: it cannot wait for the person`);
  draft.setStep({ ...record, status: "waiting" });
  draft.patch({ status: "waiting_for_user" });
  draft.emit("step.waiting", { step_id: stepId, attempt: record.attempt });
  return ok(draft.done());
}

/**
 * The executor's outcome for the current step (running or waiting). Success stores the output and moves on
 * (after the last step the run completes). Failure retries while attempts are left and the outcome is not
 * `retryable: false`; then `on_error` decides. A timed-out step is reported as a failure `operation_expired`.
 */
export function applyOutcome(decl: WorkflowDeclaration, run: WorkflowRun, stepId: string, outcome: StepOutcome, now: number): Result<RunChange> {
  const found = currentStep(decl, run, stepId);
  if (!found.ok) return found;
  const { record } = found.value;
  if (record.status !== "running" && record.status !== "waiting") return refused(`step "${stepId}" is ${record.status}: it has no outcome to report`);
  const draft = new RunDraft(run, now);
  draft.patch({ status: "running" });
  if (outcome.ok) {
    const outputHash = jsonHash(outcome.output);
    draft.setStep({ ...without(record, "error", "not_before"), status: "succeeded", output: outcome.output, output_hash: outputHash, ended_at: draft.at });
    draft.emit("step.succeeded", { step_id: stepId, attempt: record.attempt, output_hash: outputHash });
    draft.patch({ current: run.current + 1 });
  } else {
    failStep(draft, decl, run.current, { code: outcome.code, message: outcome.message }, outcome.retryable !== false);
  }
  settle(draft, decl);
  return ok(draft.done());
}

/** Ends a live run as `cancelled`; the step in flight (if any) is failed with the same error. An ended run is refused. */
export function cancelRun(run: WorkflowRun, now: number, reason: string, code: ErrorCode = "request_cancelled"): Result<RunChange> {
  if (isRunEnded(run)) return refused(`workflow run ${run.run_id} has ended (${run.status})`);
  const draft = new RunDraft(run, now);
  const error: StepError = { code, message: reason };
  const inFlight = Object.values(run.steps).find((s) => s.status === "running" || s.status === "waiting");
  if (inFlight !== undefined) {
    draft.setStep({ ...inFlight, status: "failed", error, ended_at: draft.at });
  }
  draft.patch({ status: "cancelled", error: inFlight === undefined ? error : { ...error, step_id: inFlight.step_id } });
  draft.emit("run.cancelled", { ...(inFlight === undefined ? {} : { step_id: inFlight.step_id }), error });
  return ok(draft.done());
}

/** The step at `index` failed: a retry, or its `on_error` (fail the run, go on, go to a later step). */
function failStep(draft: RunDraft, decl: WorkflowDeclaration, index: number, error: StepError, retryable: boolean): void {
  const step = decl.steps[index]!;
  const record = draft.step(step.id)!;
  const maxAttempts = step.retry?.max_attempts ?? 1;
  if (retryable && record.attempt < maxAttempts) {
    draft.setStep({ ...without(record, "started_at"), status: "pending", attempt: record.attempt + 1, error, ended_at: draft.at, not_before: draft.now + retryDelay(step, record.attempt) });
    draft.emit("step.retry_scheduled", { step_id: step.id, attempt: record.attempt, error });
    return;
  }
  const onError = step.on_error ?? "fail";
  const target = typeof onError === "object" ? decl.steps.findIndex((s) => s.id === onError.goto) : -1;
  // A goto that is not forward (the install check refuses one) ends the run like `fail`.
  const goesOn = onError === "continue" || target > index;
  draft.setStep({ ...without(record, "not_before"), status: "failed", error, ended_at: draft.at, ...(goesOn ? { output: null } : {}) });
  draft.emit("step.failed", { step_id: step.id, attempt: record.attempt, error });
  if (!goesOn) {
    endFailed(draft, { ...error, step_id: step.id });
    return;
  }
  const next = onError === "continue" ? index + 1 : target;
  for (let i = index + 1; i < next; i++) {
    const skipped = draft.step(decl.steps[i]!.id);
    if (skipped !== undefined) draft.setStep({ ...without(skipped, "not_before"), status: "skipped", ended_at: draft.at });
  }
  draft.patch({ current: next });
}

function endFailed(draft: RunDraft, error: RunError): void {
  draft.patch({ status: "failed", error });
  draft.emit("run.failed", { ...(error.step_id === undefined ? {} : { step_id: error.step_id }), error: { code: error.code, message: error.message } });
}

/**
 * Brings a running run to a state `nextAction` can act on: a step whose input cannot be resolved (it names
 * nothing in the run) fails at once, not retried, and its `on_error` applies; past the last step the run
 * completes. Each pass moves `current` forward or ends the run, so it stops within the step count.
 */
function settle(draft: RunDraft, decl: WorkflowDeclaration): void {
  while (draft.run.status === "running") {
    const index = draft.run.current;
    const step = decl.steps[index];
    if (step === undefined) {
      complete(draft, decl);
      return;
    }
    const record = draft.step(step.id);
    if (record === undefined) {
      endFailed(draft, { code: "invalid_state", message: `workflow run ${draft.run.run_id} has no record of step "${step.id}"`, step_id: step.id });
      return;
    }
    if (record.status !== "pending") return;
    const input = stepInput(decl, draft.run, index);
    if (input.ok) return;
    failStep(draft, decl, index, { code: input.error.code, message: input.error.message }, false);
  }
}

/** Every step is done: the run's output is the declaration's `output` resolved, or the last succeeded step's output. */
function complete(draft: RunDraft, decl: WorkflowDeclaration): void {
  let output: JsonValue = null;
  if (decl.output !== undefined) {
    const resolved = resolveTemplate(decl.output, runDocument(decl, draft.run, decl.steps.length));
    if (!resolved.ok) {
      endFailed(draft, { code: resolved.error.code, message: `the workflow's output: ${resolved.error.message}` });
      return;
    }
    output = resolved.value;
  } else {
    for (let i = decl.steps.length - 1; i >= 0; i--) {
      const record = draft.step(decl.steps[i]!.id);
      if (record?.status === "succeeded") {
        output = record.output ?? null;
        break;
      }
    }
  }
  const outputHash = jsonHash(output);
  draft.patch({ status: "completed", output, current: decl.steps.length });
  draft.emit("run.completed", { output_hash: outputHash });
}
