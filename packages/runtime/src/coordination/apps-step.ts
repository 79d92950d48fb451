/**
 * What the apps, instances and tools transitions share. A `Step` accumulates one transition's next
 * state, store writes, effects, deliveries and audit drafts; the helpers below fold the pure decision
 * cores (`apps/manager`, `apps/instances`, `tools/`) into it:
 *
 * - a tool decision's outputs become `lineup.tool.*` envelopes in the outbox (sent in order, with
 *   idempotency keys), its changed call records and activations are written in the same commit, and
 *   its actions run here — launching or focusing an instance is itself a pure step, so a call that
 *   launches an app is one commit;
 * - an instance change is folded back into the calls that wait for it (activation ready / failed /
 *   cancelled), persisted as one snapshot, and counted on the app's record;
 * - the inventory of every conversation is recomputed after a change and, when what its agent sees
 *   changed, published with the next revision through the outbox.
 */
import { validateEnvelope, type InventoryTool as WireInventoryTool, type JsonObject, type JsonValue } from "@lineup/protocol";
import { instancePolicyFor, liveInstanceCount, type InstanceChange, type InstancesState } from "../apps/instances/state.js";
import { snapshotInstances } from "../apps/instances/snapshot.js";
import { closeAppInstances, focusInstance, launchInstance, pruneFinishedInstances, restoreInstanceInBackground, returnFocus, type InstanceResult } from "../apps/instances/transitions.js";
import { DEFAULT_MAX_LIVE_SURFACES, suspendPastBound, type SurfaceBound } from "../apps/instances/suspend.js";
import { appProvenance, publisherTrusted, withActiveInstanceCount } from "../apps/manager/records.js";
import { putOutboxEntry, type OutboxEntry, type OutboxMethod } from "../communication/outbox.js";
import { toTimestamp } from "../core/ports.js";
import { RUNTIME_COLLECTIONS as C } from "../persistence/runtime-schema.js";
import type { StoreWrite } from "../persistence/store.js";
import { settleActivation } from "../tools/activation.js";
import { failInstanceCalls } from "../tools/reports.js";
import { CallDraft, isTerminalOutput, type CallAction, type CallDecision, type CallRecord, type ToolCallsState, type ToolOutput } from "../tools/call-state.js";
import { computeInventory, currentInventoryRevision, inventorySessionKey, publishInventory, type Inventory, type InventoryTool } from "../tools/inventory.js";
import { buildToolRegistry, toolSourcesFromRegistry, type ToolRegistry } from "../tools/registry.js";
import type { AuditDraft, Delivery, Effect, TransitionResult } from "./inputs.js";
import type { RuntimeState } from "./state.js";
import type { TransitionEnv } from "./handlers/env.js";
import { TaskDraft, withTaskChange } from "../tasks/records.js";

export class Step {
  state: RuntimeState;
  readonly writes: StoreWrite[] = [];
  readonly effects: Effect[] = [];
  readonly deliveries: Delivery[] = [];
  readonly audit: AuditDraft[] = [];
  private flushing = false;

  constructor(state: RuntimeState) {
    this.state = state;
  }

  /**
   * Stores a new outbox entry (sent after the commit, in order per conversation), under a new idempotency
   * key, or under `idempotency_key` when it repeats a request already sent (the server answers from its record).
   */
  enqueue(env: TransitionEnv, fields: { conversation_id: string; app_scope: string; action_type: string; method: OutboxMethod; params: JsonObject; idempotency_key?: string }): OutboxEntry {
    const { idempotency_key: repeatedKey, ...rest } = fields;
    const entry: OutboxEntry = {
      order: this.state.next_outbox_order,
      receipt_id: env.newId("rcpt"),
      accepted_at: toTimestamp(env.now()),
      status: "pending",
      ...rest,
      params: { ...rest.params, idempotency_key: repeatedKey ?? env.newId("idem") },
    };
    const outbox = new Map(this.state.outbox);
    outbox.set(entry.order, entry);
    this.state = { ...this.state, outbox, next_outbox_order: entry.order + 1 };
    this.writes.push(putOutboxEntry(entry));
    if (!this.flushing) {
      this.effects.push({ kind: "outbox.flush" });
      this.flushing = true;
    }
    return entry;
  }

  result(extra: Pick<TransitionResult, "reply" | "error"> = {}): TransitionResult {
    return { state: this.state, writes: this.writes, effects: this.effects, deliveries: this.deliveries, audit: this.audit, ...extra };
  }
}

// --- tools -------------------------------------------------------------------------------------

const registryCache = new WeakMap<RuntimeState["apps"], ToolRegistry>();

/** The tool registry of the current App Manager records (rebuilt only when the records change). */
export function toolRegistryOf(state: RuntimeState): ToolRegistry {
  let registry = registryCache.get(state.apps);
  if (registry === undefined) registryCache.set(state.apps, (registry = buildToolRegistry(toolSourcesFromRegistry(state.apps)).registry));
  return registry;
}

const inventoryCache = new WeakMap<RuntimeState["apps"], { host: TransitionEnv["host"]; trusted: RuntimeState["trusted_publishers"]; byAgent: Map<string, Inventory> }>();

/**
 * The inventory one agent sees in one conversation, now. It depends only on the App Manager records,
 * the host facts and policy (replaced, never mutated, when they change at run time) and the trusted
 * publishers, so it is computed once per set of those and agent session, not on every call. An app whose
 * active version was signed by a key no longer trusted shows nothing.
 */
export function inventoryFor(state: RuntimeState, env: TransitionEnv, agentId: string, conversationId: string): Inventory {
  let cached = inventoryCache.get(state.apps);
  if (cached === undefined || cached.host !== env.host || cached.trusted !== state.trusted_publishers) {
    inventoryCache.set(state.apps, (cached = { host: env.host, trusted: state.trusted_publishers, byAgent: new Map() }));
  }
  const key = inventorySessionKey(agentId, conversationId);
  let inventory = cached.byAgent.get(key);
  if (inventory === undefined) {
    inventory = computeInventory({
      apps: toolSourcesFromRegistry(state.apps).filter((app) => publisherTrusted(state.apps.apps[app.app_scope]!, trustedKeyIds(state))),
      hostCapabilities: env.host.capabilities,
      hostFeatures: env.host.features,
      policy: env.host.inventoryPolicy,
      agentId,
      conversationId,
    });
    cached.byAgent.set(key, inventory);
  }
  return inventory;
}

/** The key ids of the trusted publishers (one set per list). */
const trustedCache = new WeakMap<RuntimeState["trusted_publishers"], ReadonlySet<string>>();
function trustedKeyIds(state: RuntimeState): ReadonlySet<string> {
  let ids = trustedCache.get(state.trusted_publishers);
  if (ids === undefined) trustedCache.set(state.trusted_publishers, (ids = new Set(state.trusted_publishers.map((k) => k.key_id))));
  return ids;
}

/** The envelope that carries one tool output to the agent, through the session log: the one it went in before, if it was sent. */
function toolEnvelope(state: RuntimeState, env: TransitionEnv, call: Pick<CallRecord, "call_id" | "conversation_id" | "app_scope" | "reply_to">, output: ToolOutput): JsonObject {
  return {
    v: 1,
    id: output.sent?.envelope_id ?? env.newId("env"),
    type: output.type,
    timestamp: output.sent?.timestamp ?? toTimestamp(env.now()),
    sender: { kind: "runtime", id: state.runtime_id },
    target: { kind: "runtime", app_scope: "runtime" },
    scope: { app_scope: call.app_scope, conversation_id: call.conversation_id },
    correlation: call.reply_to === undefined ? { call_id: call.call_id } : { call_id: call.call_id, reply_to: call.reply_to },
    payload: output.payload as unknown as JsonValue,
  };
}

/**
 * Why the envelope carrying `output` would not be sent (its payload fails the envelope's schema), or
 * undefined. Lets a report with such a payload be refused to the app up front instead of dropped.
 */
export function toolOutputProblem(state: RuntimeState, env: TransitionEnv, call: Pick<CallRecord, "call_id" | "conversation_id" | "app_scope" | "reply_to">, output: ToolOutput): string | undefined {
  const checked = validateEnvelope(toolEnvelope(state, env, call, output));
  return checked.ok ? undefined : checked.error.message;
}

/**
 * Sends `outputs` of calls in `calls` to their agents. A new output goes in a new envelope; one sent before
 * (a replay) goes as the very same request — its envelope and idempotency key — unless that request is still
 * in the outbox. Returns each new output sent, stamped with how it went (to be stored in its call's record).
 */
function sendOutputs(step: Step, env: TransitionEnv, calls: Readonly<Record<string, CallRecord>>, outputs: readonly ToolOutput[]): Map<ToolOutput, ToolOutput> {
  const stamped = new Map<ToolOutput, ToolOutput>();
  for (const output of outputs) {
    const call = calls[output.call_id];
    if (call === undefined) continue;
    if (call.workflow !== undefined) {
      // No agent made it: the step that did hears its end, after the commit.
      if (isTerminalOutput(output)) step.deliveries.push({ kind: "tool.settled", app_scope: call.app_scope, call_id: call.call_id, output });
      continue;
    }
    const sent = output.sent;
    if (sent !== undefined && inOutbox(step.state, sent.idempotency_key)) continue;
    const envelope = toolEnvelope(step.state, env, call, output);
    const checked = validateEnvelope(envelope);
    if (!checked.ok) {
      step.audit.push({ type: "tool.output.invalid", code: checked.error.code, conversation_id: call.conversation_id, subject: call.call_id, detail: checked.error.message });
      continue;
    }
    const entry = step.enqueue(env, {
      conversation_id: call.conversation_id,
      app_scope: "runtime",
      action_type: output.type,
      method: "agentSession/envelope/send",
      params: { session_id: call.conversation_id, envelope },
      ...(sent === undefined ? {} : { idempotency_key: sent.idempotency_key }),
    });
    if (sent === undefined) stamped.set(output, { ...output, sent: { envelope_id: String(envelope["id"]), timestamp: String(envelope["timestamp"]), idempotency_key: String(entry.params["idempotency_key"]) } });
  }
  return stamped;
}

/** Whether an entry with this idempotency key waits in the outbox (or failed there): sending it twice would do nothing more. */
function inOutbox(state: RuntimeState, idempotencyKey: string): boolean {
  for (const entry of state.outbox.values()) if (entry.params["idempotency_key"] === idempotencyKey) return true;
  return false;
}

/** `calls` with each stamped output in place of the one it stamps. */
function withSentOutputs(calls: Readonly<Record<string, CallRecord>>, stamped: ReadonlyMap<ToolOutput, ToolOutput>): Readonly<Record<string, CallRecord>> {
  if (stamped.size === 0) return calls;
  const next = { ...calls };
  for (const output of stamped.keys()) {
    const call = next[output.call_id];
    if (call !== undefined) next[output.call_id] = { ...call, outputs: call.outputs.map((o) => stamped.get(o) ?? o) };
  }
  return next;
}

/** Codes that mean the agent was kept from a tool (a permission block), shown to the task's app as such. */
const BLOCK_CODES: ReadonlySet<string> = new Set(["tool_not_visible", "permission_denied", "foreground_required", "policy_denied", "capability_not_declared", "app_disabled", "app_not_installed", "unsupported_on_host"]);

/** The terminal outputs of calls an agent made for an app's task, as that task's events. */
function recordTaskToolOutputs(step: Step, env: TransitionEnv, calls: Readonly<Record<string, CallRecord>>, outputs: readonly ToolOutput[]): void {
  const tasks = step.state.tasks;
  // Most calls are no task's: only then is a draft made.
  if (tasks.tasks.size === 0 || !outputs.some((o) => (o.type === "lineup.tool.result" || o.type === "lineup.tool.error") && tasks.by_turn.has(calls[o.call_id]?.turn_id ?? ""))) return;
  const draft = new TaskDraft(tasks, toTimestamp(env.now()));
  for (const output of outputs) {
    if (output.type !== "lineup.tool.result" && output.type !== "lineup.tool.error") continue;
    const turn = draft.turn(calls[output.call_id]?.turn_id);
    if (turn === undefined) continue;
    if (output.type === "lineup.tool.result") {
      draft.append(turn.task.task_id, turn.attempt, { kind: "tool_result", call_id: output.call_id, outcome: "result" });
      continue;
    }
    const code = output.payload.code;
    draft.append(turn.task.task_id, turn.attempt, { kind: "tool_result", call_id: output.call_id, outcome: "error", code });
    if (BLOCK_CODES.has(code)) draft.append(turn.task.task_id, turn.attempt, { kind: "blocked", code, message: (output.payload.message ?? code).slice(0, 2000), call_id: output.call_id });
  }
  commitTaskDraft(step, draft);
}

/** Folds a task draft into the step: the state, the rows, and each event for its app after the commit. */
export function commitTaskDraft(step: Step, draft: TaskDraft): void {
  const folded = withTaskChange({ state: step.state, writes: [], deliveries: [] as Delivery[] }, draft.done());
  step.state = folded.state;
  step.writes.push(...folded.writes);
  step.deliveries.push(...folded.deliveries);
}

/** The calls state without terminal calls (their records are in the store). */
export function withoutFinished(tools: ToolCallsState): ToolCallsState {
  let finished = false;
  for (const call of Object.values(tools.calls)) if (call.phase === "terminal") finished = true;
  if (!finished) return tools;
  const calls: Record<string, CallRecord> = {};
  for (const [id, call] of Object.entries(tools.calls)) if (call.phase !== "terminal") calls[id] = call;
  return { calls, activations: tools.activations };
}

/** Writes the call records and activations that changed between `before` and `after`. */
function persistCalls(step: Step, before: ToolCallsState, after: ToolCallsState): void {
  for (const [id, call] of Object.entries(after.calls)) {
    if (before.calls[id] !== call) step.writes.push({ op: "put", collection: C.toolCalls, key: id, value: call as unknown as JsonValue });
  }
  if (before.activations !== after.activations) step.writes.push({ op: "put", collection: C.meta, key: "tool-activations", value: after.activations as unknown as JsonValue });
}

/**
 * Folds a tool decision into the step: state, writes, outputs to the agent, audit, and its actions
 * (which may change instances and settle more activations, folded in turn).
 */
export function applyCallDecision(step: Step, env: TransitionEnv, decision: CallDecision): void {
  const queue: CallDecision[] = [decision];
  let ended = false;
  for (let rounds = 0; queue.length > 0 && rounds < 64; rounds++) {
    const current = queue.shift()!;
    const before = step.state.tools;
    // Each output is recorded with the envelope and key it went in, in the commit that queues it.
    const sent = sendOutputs(step, env, current.state.calls, current.outputs);
    const tools = sent.size === 0 ? current.state : { ...current.state, calls: withSentOutputs(current.state.calls, sent) };
    persistCalls(step, before, tools);
    // Finished calls live on in the store (the replay log); the state keeps only the ones still running.
    step.state = { ...step.state, tools: withoutFinished(tools) };
    if (current.replayed !== true) recordTaskToolOutputs(step, env, current.state.calls, current.outputs);
    step.audit.push(...current.audit);
    if (current.refusal !== undefined) step.audit.push({ type: "tool.report.refused", code: current.refusal.code, detail: current.refusal.message });
    for (const action of current.actions) {
      const next = runCallAction(step, env, action);
      if (next !== undefined) queue.push(next);
    }
    for (const output of current.outputs) {
      if (current.replayed === true || !isTerminalOutput(output)) continue;
      ended = true;
      const next = returnFocusAfter(step, env, current.state.calls[output.call_id]);
      if (next !== undefined) queue.push(next);
    }
  }
  // A call's end leaves its instance idle: one past the bound of live surfaces may be suspended now.
  if (ended) enforceSurfaceBound(step, env);
}

/** A call with `restore_focus` that brought its instance forward has ended: the front goes back (spec 4.5). */
function returnFocusAfter(step: Step, env: TransitionEnv, call: CallRecord | undefined): CallDecision | undefined {
  if (call?.focus_return === undefined || call.instance_id === undefined) return undefined;
  const returned = returnFocus(step.state.instances, call.instance_id, call.focus_return.displaced_instance_id, env.now());
  if (!returned.ok || returned.value.changes.length === 0) return undefined;
  step.audit.push({ type: "instance.focus_returned", subject: call.instance_id, detail: `${call.app_scope}/${call.method} ended (call ${call.call_id})` });
  return applyInstanceResult(step, env, returned);
}

function runCallAction(step: Step, env: TransitionEnv, action: CallAction): CallDecision | undefined {
  const now = env.now();
  switch (action.kind) {
    case "deliver_to_app":
      step.deliveries.push({ kind: "tool.call", call_id: action.call_id, app_scope: action.app_scope, conversation_id: action.conversation_id, method: action.method, arguments: action.arguments, mode: "run", ...(action.instance_id === undefined ? {} : { instance_id: action.instance_id }) });
      return surfaceFor(step, env, action.instance_id);
    case "start_operation": {
      const call = step.state.tools.calls[action.call_id];
      if (call === undefined) return undefined;
      step.deliveries.push({ kind: "tool.call", call_id: call.call_id, app_scope: call.app_scope, conversation_id: call.conversation_id, method: call.method, arguments: call.arguments, mode: "operation", ...(action.instance_id === undefined ? {} : { instance_id: action.instance_id }) });
      return surfaceFor(step, env, action.instance_id);
    }
    case "cancel_in_app":
      step.deliveries.push({ kind: "tool.cancel", call_id: action.call_id, ...(action.instance_id === undefined ? {} : { instance_id: action.instance_id }) });
      return undefined;
    case "launch_instance": {
      const launched = launchInstance(step.state.instances, {
        instance_id: action.instance_id,
        app_scope: action.app_scope,
        policy: instancePolicyFor(action.app_scope),
        conversation_id: action.conversation_id,
        foreground: action.foreground,
        new_instance: action.new_instance,
        now,
      });
      if (!launched.ok) return settled(step, action.instance_id, "failed", launched.error.message);
      return applyInstanceResult(step, env, launched);
    }
    case "focus_instance": {
      const focused = focusInstance(step.state.instances, action.instance_id, now);
      if (!focused.ok) return settled(step, action.instance_id, "failed", focused.error.message);
      return applyInstanceResult(step, env, focused);
    }
    case "restore_instance": {
      const restored = restoreInstanceInBackground(step.state.instances, action.instance_id, now);
      if (!restored.ok) return settled(step, action.instance_id, "failed", restored.error.message);
      return applyInstanceResult(step, env, restored);
    }
  }
}

/** A call delivered to a suspended instance (after a restart, or one that needs no activation): its surface comes back, behind. */
function surfaceFor(step: Step, env: TransitionEnv, instanceId: string | undefined): CallDecision | undefined {
  if (instanceId === undefined || step.state.instances.instances[instanceId]?.status !== "suspended") return undefined;
  const restored = restoreInstanceInBackground(step.state.instances, instanceId, env.now());
  return restored.ok ? applyInstanceResult(step, env, restored) : undefined;
}

function settled(step: Step, instanceId: string, outcome: "ready" | "failed" | "cancelled", message?: string, foreground = false): CallDecision | undefined {
  if (step.state.tools.activations[instanceId] === undefined) return undefined;
  const draft = new CallDraft(step.state.tools);
  settleActivation(draft, { instance_id: instanceId, outcome, foreground, ...(message === undefined ? {} : { message }) });
  return draft.done();
}

// --- instances ---------------------------------------------------------------------------------

/**
 * Folds an instance transition into the step: the new state (finished instances pruned), its
 * snapshot, the apps' instance counts, and the activations it settles. Returns the tool decision
 * those settlements produced (the caller folds it with `applyCallDecision`).
 */
export function applyInstanceResult(step: Step, env: TransitionEnv, result: Extract<InstanceResult, { ok: true }>): CallDecision | undefined {
  return applyInstances(step, env, result.value.state, result.value.changes);
}

/** Suspends what is past the bound of live surfaces now, if anything (spec 4.4). */
function enforceSurfaceBound(step: Step, env: TransitionEnv): void {
  const bounded = suspendPastBound(step.state.instances, surfaceBound(step, env));
  if (bounded.changes.length > 0) applyInstances(step, env, bounded.state, bounded.changes);
}

function surfaceBound(step: Step, env: TransitionEnv): SurfaceBound {
  return { max_live_surfaces: env.maxLiveSurfaces ?? DEFAULT_MAX_LIVE_SURFACES, busy: busyInstances(step.state.tools), now: env.now() };
}

export function applyInstances(step: Step, env: TransitionEnv, given: InstancesState, made: readonly InstanceChange[]): CallDecision | undefined {
  // Past the bound of live surfaces, the least recently used idle background instances are suspended in the same commit.
  const bounded = made.length === 0 ? { state: given, changes: [] } : suspendPastBound(given, surfaceBound(step, env));
  const instances = bounded.state;
  const changes = bounded.changes.length === 0 ? made : [...made, ...bounded.changes];
  const pruned = pruneFinishedInstances(instances);
  if (changes.length > 0) step.deliveries.push({ kind: "instances.changed", changes });
  let apps = step.state.apps;
  const touched = new Set(changes.map((c) => instances.instances[c.instance_id]?.app_scope).filter((s): s is string => s !== undefined));
  for (const scope of touched) apps = withActiveInstanceCount(apps, scope, liveInstanceCount(pruned, scope));
  if (apps !== step.state.apps) for (const scope of touched) writeApp(step, apps, scope);
  step.state = { ...step.state, instances: pruned, apps };
  step.writes.push({ op: "put", collection: C.instances, key: "snapshot", value: snapshotInstances(pruned) as unknown as JsonValue });

  // Activations: an instance that finished starting (or came back) is ready; one that failed or closed is not,
  // and the calls a failed one was handling fail with it (runtime-owned operations keep their deadline).
  const draft = new CallDraft(step.state.tools);
  let touchedCalls = false;
  for (const change of changes) {
    const waited = draft.activations[change.instance_id] !== undefined;
    const instance = instances.instances[change.instance_id];
    if (change.from === "active" && change.to === "backgrounded" && endForegroundCalls(draft, change.instance_id)) touchedCalls = true;
    switch (change.to) {
      case "active":
      case "backgrounded": {
        if (!waited) break;
        const top = instances.focus_stack[instances.focus_stack.length - 1];
        settleActivation(draft, { instance_id: change.instance_id, outcome: "ready", foreground: change.to === "active" && top === change.instance_id });
        touchedCalls = true;
        break;
      }
      case "failed":
        failInstanceCalls(draft, change.instance_id, instance?.status === "failed" ? `the app failed to start: ${instance.reason}` : "the app failed to start");
        touchedCalls = true;
        break;
      case "closing":
      case "closed":
        if (!waited) break;
        settleActivation(draft, { instance_id: change.instance_id, outcome: "cancelled", foreground: false, message: "the app was closed before it was ready" });
        touchedCalls = true;
        break;
    }
  }
  return touchedCalls ? draft.done() : undefined;
}

/** Instances a tool call or an activation is on: they keep their surface. */
export function busyInstances(tools: ToolCallsState): ReadonlySet<string> {
  const busy = new Set(Object.keys(tools.activations));
  for (const call of Object.values(tools.calls)) if (call.phase !== "terminal" && call.instance_id !== undefined) busy.add(call.instance_id);
  return busy;
}

/** The instance left the front: the calls on it that need the front for their whole run end `foreground_required`. */
function endForegroundCalls(draft: CallDraft, instanceId: string): boolean {
  let ended = false;
  for (const call of Object.values(draft.calls)) {
    if (call.instance_id !== instanceId || call.requires_foreground !== true) continue;
    if (call.phase !== "running" && call.phase !== "awaiting_operation" && call.phase !== "operation_running") continue;
    draft.error(call.call_id, "foreground_required", `${call.method} needs its app in the foreground, and the app left it`);
    draft.actions.push({ kind: "cancel_in_app", call_id: call.call_id, instance_id: instanceId });
    ended = true;
  }
  return ended;
}

/** Closes every live instance of an app (disable, remove). */
export function closeInstancesOf(step: Step, env: TransitionEnv, appScope: string): void {
  const closed = closeAppInstances(step.state.instances, appScope, env.now());
  if (closed.changes.length === 0) return;
  const decision = applyInstances(step, env, closed.state, closed.changes);
  if (decision !== undefined) applyCallDecision(step, env, decision);
}

// --- apps and inventory ------------------------------------------------------------------------

export function writeApp(step: Step, apps: RuntimeState["apps"], appScope: string): void {
  const app = Object.prototype.hasOwnProperty.call(apps.apps, appScope) ? apps.apps[appScope] : undefined;
  step.writes.push(app === undefined ? { op: "delete", collection: C.apps, key: appScope } : { op: "put", collection: C.apps, key: appScope, value: app as unknown as JsonValue });
}

/** The public summary the App Server keeps of a tool (app-server.inventory-tool): no launch or focus internals. */
function wireTool(tool: InventoryTool, apps: RuntimeState["apps"]): WireInventoryTool {
  const provenance = appProvenance(apps, tool.app_scope);
  return {
    app_scope: tool.app_scope,
    method: tool.method,
    contract_version: tool.contract_version,
    title: tool.title,
    description: tool.description,
    input_schema: tool.input_schema,
    output_schema: tool.output_schema,
    call_model: tool.call_model,
    timeout_ms: tool.timeout_ms,
    requires_foreground: tool.requires_foreground,
    risk_level: tool.risk_level,
    activation_requirement: tool.activation_requirement,
    // Evidence names the app, version and bundle behind each tool result (docs/app-server-protocol.md section 10).
    ...(provenance === undefined ? {} : { provenance }),
  };
}

/**
 * Recomputes the inventory of every conversation the server knows and publishes the ones whose
 * visible content changed (spec 7.2: enable, disable, update, remove, host capability, policy).
 */
export function republishInventories(step: Step, env: TransitionEnv, only?: ReadonlySet<string>): void {
  for (const conversation of step.state.conversations.values()) {
    if (only !== undefined && !only.has(conversation.conversation_id)) continue;
    const inventory = inventoryFor(step.state, env, conversation.agent_id, conversation.conversation_id);
    // Nothing published and nothing to publish: revision 0 already means "no tools".
    if (inventory.tools.length === 0 && currentInventoryRevision(step.state.inventory, conversation.agent_id, conversation.conversation_id) === 0) continue;
    const published = publishInventory(step.state.inventory, conversation.agent_id, conversation.conversation_id, inventory);
    if (!published.changed) continue;
    step.state = { ...step.state, inventory: published.revisions };
    step.writes.push({
      op: "put",
      collection: C.inventory,
      key: conversation.conversation_id,
      value: { agent_id: conversation.agent_id, revision: published.revision, fingerprint: inventory.fingerprint },
    });
    step.enqueue(env, {
      conversation_id: conversation.conversation_id,
      app_scope: "runtime",
      action_type: "inventory.publish",
      method: "inventory/publish",
      params: { session_id: conversation.conversation_id, revision: published.revision, tools: inventory.tools.map((tool) => wireTool(tool, step.state.apps)) as unknown as JsonValue },
    });
    step.audit.push({ type: "inventory.published", conversation_id: conversation.conversation_id, detail: `revision ${published.revision}, ${inventory.tools.length} tools` });
  }
}
