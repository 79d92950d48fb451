/**
 * Plain words for `AppOperation`s (spec 4.3): what each pipeline step is called, what its status
 * means, where a failed operation stopped and why (its code, its message and the code's meaning
 * from the protocol's error table), and the operations list newest first. Pure.
 */
import { ERROR_CODES, isErrorCode, type RiskLevel } from "@lineup/protocol";
import type { AppOperation, AppOperationStep, AppOperationStepName } from "./manager-api.js";

export const STEP_LABELS: Readonly<Record<AppOperationStepName, string>> = {
  verify: "Check the bundle and its signature",
  projection: "Read what the app adds",
  readiness: "Check this device can run it",
  authorization: "Your approval",
  enable: "Turn the app on",
  disable: "Turn the app off",
  confirmation: "Your confirmation",
  rollback: "Switch to the older version",
  cleanup: "Delete the bundle and data",
};

export const STEP_STATUS_LABELS: Readonly<Record<AppOperationStep["status"], string>> = {
  done: "done",
  failed: "failed",
  waiting: "waiting for you",
  skipped: "skipped",
  not_reached: "not reached",
};

export const OPERATION_KIND_LABELS: Readonly<Record<AppOperation["kind"], string>> = {
  install: "Install",
  enable: "Enable",
  disable: "Disable",
  update: "Update",
  approve_update: "Update decision",
  rollback: "Rollback",
  remove: "Remove",
  set_default: "Make default",
};

export const OPERATION_STATUS_LABELS: Readonly<Record<AppOperation["status"], string>> = {
  succeeded: "done",
  failed: "failed",
  awaiting_approval: "waiting for approval",
};

export const RISK_LABELS: Readonly<Record<RiskLevel, string>> = { low: "Low risk", medium: "Medium risk", high: "High risk" };

export const CALL_MODEL_LABELS: Readonly<Record<string, string>> = {
  query: "reads only",
  command: "makes a change",
  interactive: "asks you first",
  operation: "runs for a while",
};

/** Where an agent subscription applies. */
export const SUBSCRIPTION_SCOPE_LABELS: Readonly<Record<string, string>> = {
  instance: "for each open window of the app",
  conversation: "in conversations where the app is open",
  app: "for the whole app",
};

export function stepLabel(name: string): string {
  return (STEP_LABELS as Readonly<Record<string, string>>)[name] ?? name;
}

/** What went wrong, for people: the step where it stopped, the code, the message and what the code means. */
export interface FailureText {
  /** The step's plain name, or undefined when no step is marked failed. */
  readonly step?: string;
  readonly code: string;
  readonly message: string;
  /** The protocol's description of the code, without Markdown backticks. */
  readonly meaning?: string;
}

export function describeFailure(operation: AppOperation): FailureText | undefined {
  if (operation.status !== "failed") return undefined;
  const failed = operation.steps.find((s) => s.status === "failed");
  const code = operation.error?.code ?? failed?.code ?? "internal_error";
  const meaning = isErrorCode(code) ? ERROR_CODES[code].description.replace(/`/g, "") : undefined;
  return {
    ...(failed === undefined ? {} : { step: stepLabel(failed.name) }),
    code,
    message: operation.error?.message ?? failed?.detail ?? "The request was refused.",
    ...(meaning === undefined ? {} : { meaning }),
  };
}

/** The status word the activity list shows: a refused update the user declined is "declined", not "failed". */
export function activityStatus(operation: AppOperation): { readonly label: string; readonly tone: "ok" | "failed" | "waiting" | "neutral" } {
  if (operation.kind === "approve_update" && operation.status === "failed" && operation.error?.code === "cancelled_by_user") return { label: "declined", tone: "neutral" };
  return { label: OPERATION_STATUS_LABELS[operation.status], tone: operation.status === "succeeded" ? "ok" : operation.status === "failed" ? "failed" : "waiting" };
}

/** One line for the operations list: `Install whiteboard 1.0.0 — done`. */
export function operationSummary(operation: AppOperation): string {
  const versions =
    operation.from_version !== undefined && operation.to_version !== undefined
      ? ` ${operation.from_version} → ${operation.to_version}`
      : operation.to_version !== undefined
        ? ` ${operation.to_version}`
        : "";
  const scope = operation.app_scope === "" ? "(unknown app)" : operation.app_scope;
  return `${OPERATION_KIND_LABELS[operation.kind]} ${scope}${versions}`;
}

/** Newest first by `requested_at` (unreadable times last); equal times keep the manager's order, which is newest first. */
export function newestFirst(operations: readonly AppOperation[]): AppOperation[] {
  return operations
    .map((operation, index) => {
      const at = Date.parse(operation.requested_at);
      return { operation, index, at: Number.isNaN(at) ? -Infinity : at };
    })
    .sort((a, b) => (a.at === b.at ? a.index - b.index : b.at > a.at ? 1 : -1))
    .map(({ operation }) => operation);
}

/** A manager that throws broke its contract (refusals resolve as operations): show it like any refusal. */
export function unexpectedFailure(error: unknown, kind: AppOperation["kind"], appScope: string, now: Date = new Date()): AppOperation {
  return {
    operation_id: "",
    kind,
    app_scope: appScope,
    status: "failed",
    requested_at: now.toISOString(),
    steps: [],
    error: { code: "internal_error", message: error instanceof Error ? error.message : String(error) },
  };
}
