/**
 * The workflow shell: after each commit that may have moved a run (`workflow.advance`), it looks at what the run
 * needs next (`nextAction`) and does it — commits the step's start, runs its effect through the executor, and
 * posts the outcome; waits out a retry's backoff; leaves a step that waits for the person alone. One step of a run
 * at a time. It holds nothing durable: after a restart `apps.resume` resumes every run and the shell is asked again.
 *
 * A step's effect is keyed `<idempotency key>~<attempt>`: a re-run of the same attempt after a restart reaches
 * the effect already made (the same agent task, the same artifact, the same evidence export), and a retry makes
 * a new one.
 */
import { ERROR_CODES, isErrorCode, LineUpError, type ErrorCode, type JsonValue, type WorkflowStep } from "@lineup/protocol";
import type { Clock } from "../core/ports.js";
import type { DiagnosticsSink } from "../core/emitter.js";
import type { WorkflowOp } from "../coordination/inputs.js";
import type { RuntimeState } from "../coordination/state.js";
import { workflowDeclarationOf } from "../coordination/handlers/workflows.js";
import { isRunEnded, nextAction, type StepOutcome, type WorkflowRun } from "./run.js";

/** Runs one step's effect; rejects with a `LineUpError` (its code becomes the step's failure). */
export type WorkflowStepExecutor = (run: WorkflowRun, step: WorkflowStep, input: JsonValue, effectKey: string) => Promise<JsonValue>;

export interface WorkflowShellOptions {
  readonly post: (appScope: string, op: WorkflowOp) => Promise<unknown>;
  readonly state: () => RuntimeState | undefined;
  readonly clock: Clock;
  readonly execute: WorkflowStepExecutor;
  readonly diagnostics: DiagnosticsSink;
}

export interface WorkflowShell {
  advance(runId: string): void;
  stop(): void;
}

export function createWorkflowShell(options: WorkflowShellOptions): WorkflowShell {
  const busy = new Set<string>();
  const timers = new Map<string, () => void>();
  let stopped = false;

  const outcomeOf = (error: unknown): StepOutcome => {
    const code: ErrorCode = error instanceof LineUpError ? error.code : isErrorCode((error as { code?: unknown } | null)?.code) ? ((error as { code: ErrorCode }).code) : "handler_failed";
    const message = error instanceof Error ? error.message : "the step failed";
    return { ok: false, code, message: message.slice(0, 2_000), retryable: ERROR_CODES[code].retryable || code === "handler_failed" || code === "operation_expired" };
  };

  const withDeadline = <T>(work: Promise<T>, deadline: number | undefined, stepId: string): Promise<T> => {
    if (deadline === undefined) return work;
    return new Promise<T>((resolve, reject) => {
      const cancel = options.clock.setTimer(Math.max(0, deadline - options.clock.now()), () => reject(new LineUpError("operation_expired", `step "${stepId}" ran past its timeout`)));
      work.then(
        (value) => {
          cancel();
          resolve(value);
        },
        (error: unknown) => {
          cancel();
          reject(error);
        },
      );
    });
  };

  const runStep = async (run: WorkflowRun, action: Extract<ReturnType<typeof nextAction>, { kind: "run_step" }>): Promise<void> => {
    const { step } = action;
    try {
      await options.post(run.app_scope, { type: "started", run_id: run.run_id, step_id: step.id });
    } catch (error) {
      busy.delete(run.run_id);
      options.diagnostics(error, "workflow step start");
      return;
    }
    if (step.kind === "confirm") {
      // The person answers in the app (`answer`); until then the run waits.
      busy.delete(run.run_id);
      await options.post(run.app_scope, { type: "waiting", run_id: run.run_id, step_id: step.id }).catch((error: unknown) => options.diagnostics(error, "workflow confirm"));
      return;
    }
    let outcome: StepOutcome;
    try {
      const output = await withDeadline(options.execute(run, step, action.input, `${action.idempotency_key}~${action.attempt}`), action.deadline, step.id);
      outcome = { ok: true, output: output ?? null };
    } catch (error) {
      outcome = outcomeOf(error);
    }
    busy.delete(run.run_id);
    if (stopped) return;
    await options.post(run.app_scope, { type: "outcome", run_id: run.run_id, step_id: step.id, attempt: action.attempt, outcome }).catch((error: unknown) => options.diagnostics(error, "workflow step outcome"));
  };

  const advance = (runId: string): void => {
    if (stopped || busy.has(runId)) return;
    const state = options.state();
    const run = state?.workflows.get(runId);
    if (state === undefined || run === undefined || isRunEnded(run)) return;
    const decl = workflowDeclarationOf(state, run);
    if (decl === undefined) {
      void options.post(run.app_scope, { type: "cancel", run_id: runId, reason: `workflow ${run.workflow_id} is no longer declared by ${run.app_scope}` }).catch((error: unknown) => options.diagnostics(error, "workflow"));
      return;
    }
    const action = nextAction(decl, run, options.clock.now());
    if (action.kind === "wait") {
      timers.get(runId)?.();
      timers.set(
        runId,
        options.clock.setTimer(Math.max(0, action.until - options.clock.now()), () => {
          timers.delete(runId);
          advance(runId);
        }),
      );
      return;
    }
    if (action.kind !== "run_step") return;
    busy.add(runId);
    void runStep(run, action);
  };

  return {
    advance,
    stop() {
      stopped = true;
      for (const cancel of timers.values()) cancel();
      timers.clear();
    },
  };
}
