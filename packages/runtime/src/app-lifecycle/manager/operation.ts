/**
 * `AppOperation` (spec 4.3): the observable record of one install, enable, disable, update,
 * rollback, remove or default-app request. Each step of the package pipeline (spec 003:
 * verify → projection → readiness → authorization → enable) is listed with its outcome, so the App
 * Registry app can show where a request stopped and why; a failed operation carries one error
 * with a distinct code, and a failed or waiting operation never changed the active version.
 */
import type { ErrorCode, ManifestProjection, ProjectionDiff, ProtocolError } from "@lineup/protocol";
import type { AuditFact } from "./audit-fact.js";
import type { AppRegistryState } from "./records.js";

export type AppOperationKind = "install" | "enable" | "disable" | "update" | "approve_update" | "rollback" | "remove" | "set_default";

export type AppOperationStepName = "verify" | "projection" | "readiness" | "authorization" | "enable" | "disable" | "confirmation" | "rollback" | "cleanup";

/** `waiting`: stopped for the user's decision; `not_reached`: an earlier step failed or is waiting. */
export type AppOperationStepStatus = "done" | "failed" | "waiting" | "skipped" | "not_reached";

export interface AppOperationStep {
  readonly name: AppOperationStepName;
  readonly status: AppOperationStepStatus;
  readonly code?: ErrorCode;
  readonly detail?: string;
}

export interface AppOperation {
  readonly operation_id: string;
  readonly kind: AppOperationKind;
  readonly app_scope: string;
  readonly status: "succeeded" | "failed" | "awaiting_approval";
  readonly requested_at: string;
  readonly steps: readonly AppOperationStep[];
  readonly from_version?: string;
  readonly to_version?: string;
  readonly error?: ProtocolError;
  /** What the app would add (install, update): shown before enabling. */
  readonly projection?: ManifestProjection;
  /** Update only: the difference from the active version; `requires_approval` gates it. */
  readonly diff?: ProjectionDiff;
  /** Rollback only: why, as the user or administrator gave it (audited). */
  readonly reason?: string;
}

/** Side effects the loop performs after committing the decision (and its audit facts). */
export type AppEffect =
  /** Bring every live instance of the app to `closing` (disable, remove). */
  | { readonly kind: "close_instances"; readonly app_scope: string }
  /** Refuse calls queued for or running in the app with a definite code (spec 5.4 rule 5). */
  | { readonly kind: "refuse_pending_calls"; readonly app_scope: string; readonly code: "app_disabled" | "app_not_installed" }
  /** Delete one stored bundle: a version that fell out of retention, or a refused staged update. */
  | { readonly kind: "delete_bundle"; readonly app_scope: string; readonly version: string; readonly bundle_digest: string }
  /** Delete the app's private data: session data, inbox, instance snapshots (remove, after confirmation). */
  | { readonly kind: "delete_app_data"; readonly app_scope: string }
  /** Tool visibility may have changed: recompute and republish the inventory. */
  | { readonly kind: "publish_inventory" };

/** What every `decide*` function returns. On a refusal `state` is the input state, unchanged. */
export interface AppDecision {
  readonly state: AppRegistryState;
  readonly operation: AppOperation;
  readonly effects: readonly AppEffect[];
  readonly audit: readonly AuditFact[];
}

/** Builds a step list: the named steps in order, `done` before `at`, `status` at it, `not_reached` after. */
export function operationSteps(
  names: readonly AppOperationStepName[],
  at: AppOperationStepName | undefined,
  status: AppOperationStepStatus,
  extra: { code?: ErrorCode; detail?: string } = {},
): AppOperationStep[] {
  const index = at === undefined ? names.length : names.indexOf(at);
  return names.map((name, i): AppOperationStep => {
    if (i < index) return { name, status: "done" };
    if (i === index) return { name, status, ...(extra.code === undefined ? {} : { code: extra.code }), ...(extra.detail === undefined ? {} : { detail: extra.detail }) };
    return { name, status: "not_reached" };
  });
}

/** A refused request: the state is returned untouched and the refusal is audited. */
export function refusedOperation(
  state: AppRegistryState,
  base: Omit<AppOperation, "status" | "steps" | "error">,
  steps: readonly AppOperationStepName[],
  at: AppOperationStepName,
  code: ErrorCode,
  message: string,
  path?: string,
): AppDecision {
  const error: ProtocolError = path === undefined ? { code, message } : { code, message, path };
  return {
    state,
    operation: { ...base, status: "failed", steps: operationSteps(steps, at, "failed", { code }), error },
    effects: [],
    audit: [{ type: `app.${base.kind}.failed`, code, subject: base.app_scope, detail: message }],
  };
}
