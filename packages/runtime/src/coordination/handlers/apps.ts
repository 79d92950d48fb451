/**
 * App Manager requests in the loop (spec 4.3): the pure `decide*` core decides; this handler commits
 * the decision with everything it implies, in one atomic batch —
 *
 * - the changed `ManagedApp` record (and the default app);
 * - the verified bundle archive, stored only when the decision keeps it (an installed, updated or
 *   waiting version), so a refused or interrupted request leaves no staged bytes behind (RELIABILITY P2);
 * - the decision's effects: calls of a disabled or removed app refused with a definite code, its
 *   instances closed, bundles that fell out of retention deleted, its data deleted on remove, and the
 *   inventory republished where what an agent sees changed;
 * - the audit facts, chained before any of it is acknowledged.
 *
 * The reply is the `AppOperation`, failed or not: a refusal is an outcome the App Registry shows,
 * not an exception.
 */
import type { JsonValue } from "@lineup/protocol";
import { decideInstall } from "../../app-lifecycle/manager/decide-install.js";
import { decideRemove } from "../../app-lifecycle/manager/decide-remove.js";
import { decideRollback } from "../../app-lifecycle/manager/decide-rollback.js";
import { decideDisable, decideEnable, decideInstallFailed, decideSetDefaultApp } from "../../app-lifecycle/manager/decide-state.js";
import { decideUpdate, decideUpdateApproval, decideUpdateToRetained } from "../../app-lifecycle/manager/decide-update.js";
import type { AppDecision, AppEffect } from "../../app-lifecycle/manager/operation.js";
import type { AppRegistryState } from "../../app-lifecycle/manager/records.js";
import { RUNTIME_COLLECTIONS as C } from "../../persistence/runtime-schema.js";
import { releaseMarkerKey } from "./artifacts.js";
import { refuseAppCalls } from "../../tools/reports.js";
import { applyCallDecision } from "../call-folding.js";
import { closeInstancesOf } from "../instance-folding.js";
import { republishInventories } from "../inventories.js";
import { Step, writeApp } from "../step.js";
import type { AppManagerRequest, RuntimeInput, TransitionResult } from "../inputs.js";
import type { RuntimeState } from "../state.js";
import { pendingOf, withPending } from "../backlog.js";
import type { TransitionEnv } from "./env.js";
import { viewGrantKey } from "./settings.js";

/** How many operations the App Registry can look back on. */
export const RECENT_OPERATIONS = 50;

function decide(state: RuntimeState, request: AppManagerRequest, env: TransitionEnv): AppDecision {
  const now = env.now();
  const apps = state.apps;
  const { host } = env;
  switch (request.type) {
    case "install":
      return decideInstall(apps, { operation_id: request.operation_id, candidate: request.candidate, approved: request.approved, ...(request.enable === undefined ? {} : { enable: request.enable }), now }, host, host.appPolicy);
    case "update":
      return decideUpdate(apps, { operation_id: request.operation_id, app_scope: request.app_scope, candidate: request.candidate, now, ...(request.target_version === undefined ? {} : { target_version: request.target_version }) }, host, host.appPolicy);
    case "install_failed":
      return decideInstallFailed(apps, { operation_id: request.operation_id, app_scope: request.app_scope, kind: request.kind, code: request.code, reason: request.reason, now });
    case "update_retained":
      return decideUpdateToRetained(apps, { operation_id: request.operation_id, app_scope: request.app_scope, now, ...(request.target_version === undefined ? {} : { target_version: request.target_version }) });
    case "resolve_update":
      return decideUpdateApproval(apps, { operation_id: request.operation_id, app_scope: request.app_scope, approved: request.approved, now });
    case "enable":
      return decideEnable(apps, { operation_id: request.operation_id, app_scope: request.app_scope, now }, host, host.appPolicy);
    case "disable":
      return decideDisable(apps, { operation_id: request.operation_id, app_scope: request.app_scope, now, ...(request.reason === undefined ? {} : { reason: request.reason }) });
    case "set_default":
      return decideSetDefaultApp(apps, { operation_id: request.operation_id, app_scope: request.app_scope, now });
    case "rollback":
      return decideRollback(apps, { operation_id: request.operation_id, app_scope: request.app_scope, reason: request.reason, now, ...(request.version === undefined ? {} : { target_version: request.version }) });
    case "remove":
      return decideRemove(apps, { operation_id: request.operation_id, app_scope: request.app_scope, confirmed: request.confirmed, now });
  }
}

/** Every bundle digest the registry still refers to (retained versions and waiting updates). */
export function referencedDigests(apps: AppRegistryState): Set<string> {
  const digests = new Set<string>();
  for (const app of Object.values(apps.apps)) {
    for (const version of app.retained) if (version.bundle_digest !== null) digests.add(version.bundle_digest);
    if (app.pending_update?.candidate.bundle_digest != null) digests.add(app.pending_update.candidate.bundle_digest);
  }
  return digests;
}

export function onAppRequest(state: RuntimeState, input: Extract<RuntimeInput, { kind: "app.request" }>, env: TransitionEnv): TransitionResult {
  const { request } = input;
  const decision = decide(state, request, env);
  const step = new Step(state);

  const before = state.apps;
  const after = decision.state;
  step.state = { ...step.state, apps: after, operations: [decision.operation, ...state.operations].slice(0, RECENT_OPERATIONS) };
  step.audit.push(...decision.audit);
  for (const scope of new Set([...Object.keys(before.apps), ...Object.keys(after.apps)])) {
    if (before.apps[scope] !== after.apps[scope]) writeApp(step, after, scope);
  }
  if (before.default_app !== after.default_app) step.writes.push({ op: "put", collection: C.meta, key: "default-app", value: { app_scope: after.default_app } });

  // The bundle is stored in the same commit that makes a version of it known — never otherwise.
  const referenced = referencedDigests(after);
  if ((request.type === "install" || request.type === "update") && referenced.has(request.candidate.bundle_digest) && !referencedDigests(before).has(request.candidate.bundle_digest)) {
    step.writes.push({ op: "put", collection: C.bundles, key: request.candidate.bundle_digest, value: request.bundle });
  }
  for (const effect of decision.effects) runAppEffect(step, env, effect, referenced);
  return step.result({ reply: decision.operation as unknown as JsonValue });
}

function runAppEffect(step: Step, env: TransitionEnv, effect: AppEffect, referenced: ReadonlySet<string>): void {
  switch (effect.kind) {
    case "refuse_pending_calls":
      applyCallDecision(step, env, refuseAppCalls(step.state.tools, { app_scope: effect.app_scope, code: effect.code }));
      return;
    case "close_instances":
      closeInstancesOf(step, env, effect.app_scope);
      return;
    case "delete_bundle":
      if (!referenced.has(effect.bundle_digest)) step.writes.push({ op: "delete", collection: C.bundles, key: effect.bundle_digest });
      return;
    case "delete_app_data": {
      const prefix = `${effect.app_scope}/`;
      step.writes.push(
        { op: "deleteRange", collection: C.inbox, range: { prefix } },
        { op: "deleteRange", collection: C.inboxPending, range: { prefix } },
        { op: "deleteRange", collection: C.sessionData, range: { prefix } },
        { op: "deleteRange", collection: C.settings, range: { prefix: viewGrantKey(effect.app_scope, "") } },
        // The artifacts it kept to itself are released after this commit (the shell finds them); the marker says so across a crash.
        { op: "put", collection: C.meta, key: releaseMarkerKey(effect.app_scope), value: { app_scope: effect.app_scope } },
      );
      // Its inbox is gone, and with it its backlog.
      let conversations = step.state.conversations;
      for (const conversation of step.state.conversations.values()) {
        const waiting = pendingOf(conversation, effect.app_scope);
        if (waiting !== 0) conversations = conversations.with(conversation.conversation_id, withPending(conversation, effect.app_scope, -waiting));
      }
      if (conversations !== step.state.conversations) step.state = { ...step.state, conversations };
      step.deliveries.push({ kind: "app.removed", app_scope: effect.app_scope });
      return;
    }
    case "publish_inventory":
      republishInventories(step, env);
      return;
  }
}
