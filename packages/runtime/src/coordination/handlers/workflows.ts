/**
 * Apps' workflow runs in the loop (docs/protocol.md "Workflows"). A run and each change to it — started, a step
 * started, waiting for the person, its outcome, cancelled — are committed with the trace entries they add, so a
 * run is exactly as far as its last commit says. What a step does happens in the workflow shell
 * (`workflows/shell.ts`) after the commit that started it (`workflow.advance`); its outcome comes back as an
 * input. After a restart every run that had not ended resumes at its step (`resumeWorkflows`): a step whose
 * outcome was never committed runs again with the same idempotency key, and its executor answers from the effect
 * already made.
 *
 * Every refusal is typed and writes nothing.
 */
import { LineUpError, type ErrorCode, type WorkflowDeclaration } from "@lineup/protocol";
import { createToolSchemaValidator } from "../../tools/schema-engine.js";
import { getInstance } from "../../app-lifecycle/instances/state.js";
import { activeManifest, getManagedApp } from "../../app-lifecycle/manager/records.js";
import { sha256Hex } from "../../core/sha256.js";
import { applyOutcome, cancelRun, isRunEnded, jsonHash, markStarted, markWaiting, resumeRun, startRun, traceKey, type RunChange, type WorkflowRun } from "../../workflows/run.js";
import { RUNTIME_COLLECTIONS as C } from "../../persistence/runtime-schema.js";
import type { StoreWrite } from "../../persistence/store.js";
import { unchanged, type Delivery, type Effect, type RuntimeInput, type TransitionResult } from "../inputs.js";
import type { RuntimeState } from "../state.js";
import type { TransitionEnv } from "./env.js";

export const WORKFLOW_FEATURE = "app.workflow.v1";
/** Runs an app keeps (ended ones beyond it are dropped with their trace, oldest first). */
export const MAX_RUNS_PER_APP = 100;
/** The largest run input, as JSON text. */
export const MAX_WORKFLOW_INPUT_BYTES = 256 * 1024;

type WorkflowInput = Extract<RuntimeInput, { kind: "workflow" }>;

function refuse(state: RuntimeState, input: WorkflowInput, code: ErrorCode, message: string, path?: string): TransitionResult {
  return unchanged(state, {
    audit: [{ type: "workflow.refused", code, subject: input.app_scope, detail: message.slice(0, 500) }],
    error: new LineUpError(code, message, path === undefined ? {} : { path }),
  });
}

const inputValidators = new Map<string, ReturnType<typeof createToolSchemaValidator>>();
function inputValidator(schema: object): ReturnType<typeof createToolSchemaValidator> {
  const key = JSON.stringify(schema);
  let validator = inputValidators.get(key);
  if (validator === undefined) {
    validator = createToolSchemaValidator(schema, { code: "invalid_params" });
    if (inputValidators.size >= 128) inputValidators.clear();
    inputValidators.set(key, validator);
  }
  return validator;
}

/** The declaration a run follows: that of the version that started it while it is retained, else the active one. */
export function workflowDeclarationOf(state: Pick<RuntimeState, "apps">, run: Pick<WorkflowRun, "app_scope" | "app_version" | "workflow_id">): WorkflowDeclaration | undefined {
  const app = getManagedApp(state.apps, run.app_scope);
  const manifest = app?.retained.find((v) => v.version === run.app_version)?.manifest ?? (app === undefined ? undefined : activeManifest(app));
  return manifest?.workflows?.find((w) => w.id === run.workflow_id);
}

/** The run id an idempotency key names: the same key asks for the same run. */
export const runIdFor = (appScope: string, key: string): string => `wfr-${sha256Hex(`${appScope}\u0000${key}`).slice(0, 32)}`;

/** One committed change of a run: its record, its new trace rows, the delivery, and a look at what comes next. */
function changed(state: RuntimeState, change: RunChange, extra: { readonly writes?: readonly StoreWrite[]; readonly advance?: boolean } = {}): { state: RuntimeState; writes: StoreWrite[]; effects: Effect[]; deliveries: Delivery[] } {
  const runs = state.workflows.with(change.run.run_id, change.run);
  const writes: StoreWrite[] = [
    ...(extra.writes ?? []),
    { op: "put", collection: C.workflowRuns, key: change.run.run_id, value: change.run as never },
    ...change.trace.map((entry): StoreWrite => ({ op: "put", collection: C.workflowTrace, key: traceKey(entry.run_id, entry.index), value: entry as never })),
  ];
  return {
    state: { ...state, workflows: runs },
    writes,
    effects: extra.advance === false || isRunEnded(change.run) ? [] : [{ kind: "workflow.advance", run_id: change.run.run_id }],
    deliveries: [{ kind: "workflow.changed", app_scope: change.run.app_scope, run: change.run, trace: change.trace }],
  };
}

export function onWorkflow(state: RuntimeState, input: WorkflowInput, env: TransitionEnv): TransitionResult {
  const op = input.op;
  if (op.type === "start") return onStart(state, input, op, env);
  const run = state.workflows.get(op.run_id);
  if (run === undefined || run.app_scope !== input.app_scope) return refuse(state, input, "not_found", `${input.app_scope} has no workflow run ${op.run_id}`, "/run_id");
  const decl = workflowDeclarationOf(state, run);
  const now = env.now();
  let result;
  switch (op.type) {
    case "started":
      if (decl === undefined) return refuse(state, input, "not_found", `workflow ${run.workflow_id} is no longer declared`);
      result = markStarted(decl, run, op.step_id, now);
      break;
    case "waiting":
      result = markWaiting(run, op.step_id, now);
      break;
    case "outcome": {
      if (decl === undefined) return refuse(state, input, "not_found", `workflow ${run.workflow_id} is no longer declared`);
      // An outcome of an attempt that is no longer the step's (the run moved on, or was cancelled) moves nothing.
      if (run.steps[op.step_id]?.attempt !== op.attempt) return refuse(state, input, "invalid_state", `attempt ${op.attempt} of step "${op.step_id}" is not the one running`);
      result = applyOutcome(decl, run, op.step_id, op.outcome, now);
      break;
    }
    case "answer": {
      if (decl === undefined) return refuse(state, input, "not_found", `workflow ${run.workflow_id} is no longer declared`);
      const step = decl.steps[run.current];
      if (step?.id !== op.step_id || step.kind !== "confirm" || run.steps[op.step_id]?.status !== "waiting") {
        return refuse(state, input, "invalid_state", `step "${op.step_id}" of run ${run.run_id} is not waiting for an answer`, "/step_id");
      }
      result = applyOutcome(decl, run, op.step_id, op.confirmed ? { ok: true, output: { confirmed: true } } : { ok: false, code: "cancelled_by_user", message: "the person said no", retryable: false }, now);
      break;
    }
    case "cancel":
      result = cancelRun(run, now, op.reason ?? "cancelled by the app", "request_cancelled");
      break;
  }
  if (!result.ok) return refuse(state, input, result.error.code, result.error.message, result.error.path);
  // A step that started is being run by the shell; one that waits for the person waits: no look needed.
  const done = changed(state, result.value, { advance: op.type !== "started" && op.type !== "waiting" });
  return { ...done, audit: isRunEnded(result.value.run) && !isRunEnded(run) ? [{ type: `workflow.${result.value.run.status}`, subject: input.app_scope, detail: `${run.workflow_id} ${run.run_id}` }] : [], reply: result.value.run as never };
}

function onStart(state: RuntimeState, input: WorkflowInput, op: Extract<WorkflowInput["op"], { type: "start" }>, env: TransitionEnv): TransitionResult {
  const app = getManagedApp(state.apps, input.app_scope);
  if (app === undefined) return refuse(state, input, "app_not_installed", `no app ${input.app_scope} is installed`);
  if (!app.record.enabled || app.record.install_state === "failed") return refuse(state, input, "app_disabled", `${input.app_scope} is disabled: it may not start workflows`);
  const manifest = activeManifest(app);
  const features = [...(manifest?.runtime_sdk.required_features ?? []), ...(manifest?.runtime_sdk.optional_features ?? [])];
  if (manifest === undefined || !features.includes(WORKFLOW_FEATURE)) return refuse(state, input, "capability_not_declared", `${input.app_scope} does not declare the feature ${WORKFLOW_FEATURE}`);
  if (!env.host.features.includes(WORKFLOW_FEATURE)) return refuse(state, input, "unsupported_on_host", `this host does not offer ${WORKFLOW_FEATURE}`);
  const decl = manifest.workflows?.find((w) => w.id === op.workflow_id);
  if (decl === undefined) return refuse(state, input, "not_found", `${input.app_scope} declares no workflow "${op.workflow_id}"`, "/workflow_id");
  const text = JSON.stringify(op.input ?? null);
  if (text === undefined || text.length > MAX_WORKFLOW_INPUT_BYTES) return refuse(state, input, "message_too_large", `a run's input is at most ${MAX_WORKFLOW_INPUT_BYTES} bytes of JSON`, "/input");
  if (decl.input_schema !== undefined) {
    const validator = inputValidator(decl.input_schema);
    if (!validator.ok) return refuse(state, input, "manifest_invalid_tool_schema", `workflow ${decl.id}'s input_schema cannot be used: ${validator.error.message}`);
    const verdict = validator.value(op.input);
    if (!verdict.ok) return refuse(state, input, "invalid_params", `the run's input: ${verdict.error.message}`, `/input${verdict.error.path ?? ""}`);
  }
  let conversationId = op.conversation_id;
  if (op.instance_id !== undefined) {
    const instance = getInstance(state.instances, op.instance_id);
    if (instance === undefined || instance.app_scope !== input.app_scope) return refuse(state, input, "not_found", `${op.instance_id} is not an instance of ${input.app_scope}`, "/instance_id");
    conversationId = instance.conversation_id;
  }
  if (conversationId !== undefined && !state.conversations.has(conversationId)) return refuse(state, input, "conversation_unknown", `no conversation ${conversationId}`, "/conversation_id");
  if (conversationId === undefined && decl.steps.some((step) => step.kind === "agent.task")) {
    return refuse(state, input, "invalid_state", `${decl.title} asks the agent, so it runs in a conversation: open ${input.app_scope} in one and start it there`, "/conversation_id");
  }
  if (conversationId === undefined && decl.steps.some((step) => step.kind === "tool")) {
    return refuse(state, input, "invalid_state", `${decl.title} calls ${input.app_scope}'s tools, which run in an instance of a conversation: open ${input.app_scope} in one and start it there`, "/conversation_id");
  }

  const runId = op.idempotency_key === undefined ? op.run_id : runIdFor(input.app_scope, op.idempotency_key);
  const existing = state.workflows.get(runId);
  if (existing !== undefined) {
    if (existing.workflow_id !== op.workflow_id || jsonHash(existing.input) !== jsonHash(op.input ?? null)) {
      return refuse(state, input, "idempotency_conflict", `idempotency key ${op.idempotency_key ?? runId} already started another run`, "/idempotency_key");
    }
    return unchanged(state, { reply: existing as never });
  }
  const version = app.record.installed_version;
  const change = startRun(decl, { run_id: runId, app_scope: input.app_scope, app_version: version, input: op.input ?? null, ...(conversationId === undefined ? {} : { conversation_id: conversationId }), now: env.now() });
  const evicted = evictions(state, input.app_scope);
  const pruned = evicted.length === 0 ? state : { ...state, workflows: evicted.reduce((runs, id) => runs.without(id), state.workflows) };
  const done = changed(pruned, change, { writes: evicted.flatMap(dropRunWrites) });
  return { ...done, audit: [{ type: "workflow.started", subject: input.app_scope, detail: `${decl.id} ${runId}` }], reply: change.run as never };
}

/** The ended runs to drop so the app keeps at most `MAX_RUNS_PER_APP` with the new one: oldest first. */
function evictions(state: RuntimeState, appScope: string): string[] {
  const own = [...state.workflows.values()].filter((r) => r.app_scope === appScope);
  const excess = own.length + 1 - MAX_RUNS_PER_APP;
  if (excess <= 0) return [];
  return own
    .filter(isRunEnded)
    .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0))
    .slice(0, excess)
    .map((r) => r.run_id);
}

/** A run's record and every trace row. */
function dropRunWrites(runId: string): StoreWrite[] {
  return [
    { op: "delete", collection: C.workflowRuns, key: runId },
    { op: "deleteRange", collection: C.workflowTrace, range: { prefix: `${runId}/` } },
  ];
}

/** At start: every run that had not ended picks up at its step. */
export function resumeWorkflows(result: TransitionResult, env: TransitionEnv): TransitionResult {
  let state = result.state;
  const writes = [...result.writes];
  const effects = [...result.effects];
  const deliveries = [...result.deliveries];
  for (const run of state.workflows.values()) {
    if (isRunEnded(run)) continue;
    const change = resumeRun(run, env.now());
    const done = changed(state, change);
    state = done.state;
    writes.push(...done.writes);
    effects.push(...done.effects);
    deliveries.push(...done.deliveries);
  }
  return { ...result, state, writes, effects, deliveries };
}

/**
 * After an App Manager request: runs of an app that was removed go (record and trace); those of one that is no
 * longer enabled end `app_disabled`.
 */
export function afterAppRequestWorkflows(result: TransitionResult, env: TransitionEnv): TransitionResult {
  let state = result.state;
  if (state.workflows.size === 0 || state.apps === undefined) return result;
  const writes = [...result.writes];
  const deliveries = [...result.deliveries];
  for (const run of [...state.workflows.values()]) {
    const app = getManagedApp(state.apps, run.app_scope);
    if (app === undefined) {
      state = { ...state, workflows: state.workflows.without(run.run_id) };
      writes.push(...dropRunWrites(run.run_id));
      continue;
    }
    if (app.record.enabled || isRunEnded(run)) continue;
    const cancelled = cancelRun(run, env.now(), `${run.app_scope} was disabled`, "app_disabled");
    if (!cancelled.ok) continue;
    const done = changed(state, cancelled.value, { advance: false });
    state = done.state;
    writes.push(...done.writes);
    deliveries.push(...done.deliveries);
  }
  return { ...result, state, writes, deliveries };
}
