/**
 * The outcome of one `AppOperation`, for people: on failure, the step where it stopped, the error
 * code and message and what the code means, then every step of the pipeline with its status; on
 * success a short line. Failures are announced (role="alert").
 */
import type { AppOperation } from "./manager-api.js";
import { describeFailure, stepLabel, stepStatusLabel } from "./operation-text.js";
import { t } from "../../i18n/index.js";

const STEP_MARKS: Readonly<Record<string, string>> = { done: "✓", failed: "✕", waiting: "…", skipped: "–", not_reached: "·" };

export function StepList({ operation }: { operation: AppOperation }) {
  return (
    <ol class="steps" aria-label={t("op.steps")}>
      {operation.steps.map((step) => (
        <li key={step.name} class={`step step-${step.status}`} data-step={step.name} data-status={step.status}>
          <span class="step-mark" aria-hidden="true">
            {STEP_MARKS[step.status] ?? "·"}
          </span>
          <span class="step-name">{stepLabel(step.name)}</span>
          <span class="step-status">{stepStatusLabel(step.status)}</span>
          {step.code !== undefined ? <code class="step-code">{step.code}</code> : null}
        </li>
      ))}
    </ol>
  );
}

/**
 * `expected`: a refusal the user asked for (Keep current answers an update with `cancelled_by_user`)
 * is shown as the plain outcome it is, not as an error.
 */
export function OperationResult({ operation, success, expected = false }: { operation: AppOperation; success?: string; expected?: boolean }) {
  const failure = describeFailure(operation);
  if (failure === undefined || expected) {
    return (
      <p class="operation-ok" role="status" data-operation={operation.kind} data-status={operation.status}>
        {success ?? t("common.done")}
      </p>
    );
  }
  return (
    <div class="operation-failed" role="alert" data-operation={operation.kind} data-status="failed" data-code={failure.code}>
      <p class="failure-head">
        <strong>{failure.step === undefined ? t("op.refused") : t("op.stoppedAt", { step: failure.step })}</strong> {failure.message}
      </p>
      <p class="failure-meaning">
        {failure.meaning === undefined ? null : <span>{failure.meaning} </span>}
        <span class="muted">
          {t("common.errorCode")} <code class="error-code">{failure.code}</code>
        </span>
      </p>
      {operation.steps.length > 0 ? <StepList operation={operation} /> : null}
    </div>
  );
}
