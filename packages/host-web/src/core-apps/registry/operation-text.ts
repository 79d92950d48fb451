/**
 * Plain words for `AppOperation`s (spec 4.3): what each pipeline step is called, what its status
 * means, where a failed operation stopped and why (its code, its message and the code's meaning
 * from the protocol's error table), and the operations list newest first. Pure.
 */
import { ERROR_CODES, isErrorCode, type RiskLevel } from "@lineup/protocol";
import { t, uiLanguage, type MessageKey } from "../../i18n/index.js";
import { reasonText } from "../../i18n/reasons.js";
import type { AppOperation, AppOperationStep, AppOperationStepName } from "./manager-api.js";

/** Each pipeline step's plain name, by catalogue key. */
export const STEP_LABELS: Readonly<Record<AppOperationStepName, MessageKey>> = {
  verify: "opStep.verify",
  projection: "opStep.projection",
  readiness: "opStep.readiness",
  authorization: "opStep.authorization",
  enable: "opStep.enable",
  disable: "opStep.disable",
  confirmation: "opStep.confirmation",
  rollback: "opStep.rollback",
  cleanup: "opStep.cleanup",
};

const STEP_STATUS_LABELS: Readonly<Record<AppOperationStep["status"], MessageKey>> = {
  done: "opStepStatus.done",
  failed: "opStepStatus.failed",
  waiting: "opStepStatus.waiting",
  skipped: "opStepStatus.skipped",
  not_reached: "opStepStatus.not_reached",
};

const OPERATION_KIND_LABELS: Readonly<Record<AppOperation["kind"], MessageKey>> = {
  install: "opKind.install",
  enable: "opKind.enable",
  disable: "opKind.disable",
  update: "opKind.update",
  approve_update: "opKind.approve_update",
  rollback: "opKind.rollback",
  remove: "opKind.remove",
  set_default: "opKind.set_default",
};

const OPERATION_STATUS_LABELS: Readonly<Record<AppOperation["status"], MessageKey>> = {
  succeeded: "opStatus.succeeded",
  failed: "opStatus.failed",
  awaiting_approval: "opStatus.awaiting_approval",
};

const RISK_LABELS: Readonly<Record<RiskLevel, MessageKey>> = { low: "risk.low", medium: "risk.medium", high: "risk.high" };

const CALL_MODEL_LABELS: Readonly<Record<string, MessageKey>> = {
  query: "callModel.query",
  command: "callModel.command",
  interactive: "callModel.interactive",
  operation: "callModel.operation",
};

/** Where an agent subscription applies. */
const SUBSCRIPTION_SCOPE_LABELS: Readonly<Record<string, MessageKey>> = {
  instance: "scope.instance",
  conversation: "scope.conversation",
  app: "scope.app",
};

const labelOf = (labels: Readonly<Record<string, MessageKey>>, value: string): string => {
  const key = labels[value];
  return key === undefined ? value : t(key);
};

export const stepLabel = (name: string): string => labelOf(STEP_LABELS, name);
export const stepStatusLabel = (status: AppOperationStep["status"]): string => t(STEP_STATUS_LABELS[status]);
export const riskLabel = (risk: RiskLevel): string => t(RISK_LABELS[risk]);
/** A tool's call model in words (`reads only`); the model itself when it has none. */
export const callModelLabel = (callModel: string): string => labelOf(CALL_MODEL_LABELS, callModel);
export const subscriptionScopeLabel = (scope: string): string => labelOf(SUBSCRIPTION_SCOPE_LABELS, scope);

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
  // The protocol's description of a code is English: other languages have the catalogue's words for the code.
  const meaning = isErrorCode(code) && uiLanguage() === "en" ? ERROR_CODES[code].description.replace(/`/g, "") : undefined;
  const said = operation.error?.message ?? failed?.detail;
  return {
    ...(failed === undefined ? {} : { step: stepLabel(failed.name) }),
    code,
    message: said === undefined ? t("op.refusedDefault") : reasonText({ code, message: said }),
    ...(meaning === undefined ? {} : { meaning }),
  };
}

/** The status word the activity list shows: a refused update the user declined is "declined", not "failed". */
export function activityStatus(operation: AppOperation): { readonly label: string; readonly tone: "ok" | "failed" | "waiting" | "neutral" } {
  if (operation.kind === "approve_update" && operation.status === "failed" && operation.error?.code === "cancelled_by_user") return { label: t("opStatus.declined"), tone: "neutral" };
  return { label: t(OPERATION_STATUS_LABELS[operation.status]), tone: operation.status === "succeeded" ? "ok" : operation.status === "failed" ? "failed" : "waiting" };
}

/** The parts of an operations list line: what was done, to which app (its scope, empty when unknown), the versions. */
export function operationParts(operation: AppOperation): { readonly kind: string; readonly scope: string; readonly versions: string } {
  const versions =
    operation.from_version !== undefined && operation.to_version !== undefined
      ? ` ${operation.from_version} → ${operation.to_version}`
      : operation.to_version !== undefined
        ? ` ${operation.to_version}`
        : "";
  return { kind: t(OPERATION_KIND_LABELS[operation.kind]), scope: operation.app_scope, versions };
}

/** One line for the operations list: `Install whiteboard 1.0.0`. */
export function operationSummary(operation: AppOperation): string {
  const { kind, scope, versions } = operationParts(operation);
  return `${kind} ${scope === "" ? t("op.unknownApp") : scope}${versions}`;
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
