/**
 * What each kind of workflow step does (docs/manifest.md §8c), as the run's app: the executor the workflow
 * shell runs a step's effect with, and a run's evidence pack.
 */
import { canonicalJson, LineUpError, type AgentTask, type ArtifactRef, type ErrorCode, type JsonValue, type WorkflowStep } from "@lineup/protocol";
import { sha256Hex } from "../app-lifecycle/bundle/digest.js";
import type { BackendService } from "../backends/service.js";
import type { Delivery, RuntimeInput } from "../coordination/inputs.js";
import type { Emitter } from "../core/emitter.js";
import type { RuntimeStore } from "../persistence/store.js";
import type { AppPort } from "../runtime.js";
import type { ToolOutput } from "../tools/call-state.js";
import { jsonHash, type TraceEntry, type WorkflowRun } from "./run.js";
import type { WorkflowStepExecutor } from "./shell.js";
import { RUNTIME_COLLECTIONS } from "../persistence/runtime-schema.js";

export interface WorkflowStepDeps {
  readonly store: Pick<RuntimeStore, "range">;
  /** Posts to the Runtime's loop; resolves after the commit with the reply. */
  readonly post: (input: RuntimeInput) => Promise<JsonValue | undefined>;
  readonly appPort: (appScope: string) => AppPort;
  readonly backends: Pick<BackendService, "call">;
  /** The AppServer's evidence export of a conversation; refused while not connected. */
  readonly serverEvidence: (conversationId: string, idempotencyKey: string) => Promise<JsonValue>;
  /** The terminal outputs of workflows' tool calls (`tool.settled` deliveries). */
  readonly toolSettlements: Pick<Emitter<Extract<Delivery, { kind: "tool.settled" }>>, "on">;
  readonly taskEvents: Pick<Emitter<Extract<Delivery, { kind: "task.event" }>>, "on">;
  /** An app's task as it is now (public form), if any. */
  readonly task: (taskId: string) => AgentTask | undefined;
}

/**
 * A run's evidence pack: who ran what (app, version, workflow, the input's hash) and its trace — whole, or (`beforeStep`)
 * up to that step's first start — with the SHA-256 of its canonical JSON.
 */
export async function workflowEvidence(store: Pick<RuntimeStore, "range">, run: WorkflowRun, beforeStep?: string): Promise<{ pack: JsonValue; digest: string }> {
  const rows = (await store.range(RUNTIME_COLLECTIONS.workflowTrace, { prefix: `${run.run_id}/` })).map((row) => row.value as unknown as TraceEntry);
  const cut = beforeStep === undefined ? -1 : rows.findIndex((t) => t.kind === "step.started" && t.step_id === beforeStep);
  const trace = cut < 0 ? rows : rows.slice(0, cut);
  const body = {
    format: "lineup.workflow-evidence.v1",
    run: { run_id: run.run_id, app_scope: run.app_scope, app_version: run.app_version, workflow_id: run.workflow_id, input_hash: jsonHash(run.input), ...(beforeStep === undefined ? { status: run.status } : {}) },
    trace,
  } as unknown as JsonValue;
  const digest = await sha256Hex(new TextEncoder().encode(canonicalJson(body)));
  return { pack: { ...(body as object), digest } as JsonValue, digest };
}

/** The executor of every step kind, over the Runtime's parts. */
export function createWorkflowSteps(deps: WorkflowStepDeps): WorkflowStepExecutor {
  /** Makes (once per key) an artifact of the run's app: its id comes from the step's effect key. */
  const stepArtifact = async (run: WorkflowRun, effectKey: string, name: string, mimeType: string, bytes: Uint8Array) => {
    const sha256 = await sha256Hex(bytes);
    const artifactId = `art-wf-${(await sha256Hex(new TextEncoder().encode(effectKey))).slice(0, 32)}`;
    return (await deps.post({ kind: "artifact.create", app_scope: run.app_scope, name, mime_type: mimeType, bytes, sha256, artifact_id: artifactId, ...(run.conversation_id === undefined ? {} : { conversation_id: run.conversation_id }) })) as unknown as ArtifactRef;
  };
  const field = (input: JsonValue, name: string): JsonValue | undefined => (typeof input === "object" && input !== null && !Array.isArray(input) ? input[name] : undefined);
  const text = (input: JsonValue, name: string): string => {
    const value = field(input, name);
    if (typeof value !== "string") throw new LineUpError("invalid_params", `the step's input needs ${name} (a string)`, { path: `/input/${name}` });
    return value;
  };
  /** What each kind of step does (docs/manifest.md §8c), as the run's app. */
  const executeStep = async (run: WorkflowRun, step: WorkflowStep, input: JsonValue, effectKey: string): Promise<JsonValue> => {
    const port = deps.appPort(run.app_scope);
    switch (step.kind) {
      case "storage.get": {
        const record = await port.storage().get(step.collection!, text(input, "key"));
        return record === undefined ? null : ({ key: record.key, value: record.value, provenance: record.provenance } as unknown as JsonValue);
      }
      case "storage.put":
        return (await port.storage().put(step.collection!, text(input, "key"), field(input, "value") ?? null)) as unknown as JsonValue;
      case "storage.delete":
        return (await port.storage().delete(step.collection!, text(input, "key"))) as unknown as JsonValue;
      case "storage.list": {
        const query = (typeof input === "object" && input !== null && !Array.isArray(input) ? input : {}) as Record<string, never>;
        return (await port.storage().list(step.collection!, query)).map((r) => ({ key: r.key, value: r.value })) as unknown as JsonValue;
      }
      case "backend.call":
        // The effect key goes with the call: a re-run of this attempt after a crash is recognisable by the back-end.
        return deps.backends.call(run.app_scope, step.backend!, step.method!, input, { idempotency_key: effectKey });
      case "artifact.create": {
        const content = field(input, "text") ?? field(input, "json");
        if (content === undefined) throw new LineUpError("invalid_params", "an artifact.create step's input has text or json", { path: "/input" });
        const bytes = new TextEncoder().encode(typeof content === "string" ? content : JSON.stringify(content, null, 2));
        const name = typeof field(input, "name") === "string" ? (field(input, "name") as string) : `${run.workflow_id}-${step.id}.${typeof content === "string" ? "txt" : "json"}`;
        const mime = typeof field(input, "mime_type") === "string" ? (field(input, "mime_type") as string) : typeof content === "string" ? "text/plain" : "application/json";
        return (await stepArtifact(run, effectKey, name, mime, bytes)) as unknown as JsonValue;
      }
      case "evidence.record": {
        // What the run did before this step, as its trace says: the same pack however often the step runs again.
        const { pack, digest } = await workflowEvidence(deps.store, run, step.id);
        const artifact = await stepArtifact(run, effectKey, `${run.workflow_id}-${run.run_id}.evidence.json`, "application/json", new TextEncoder().encode(JSON.stringify(pack, null, 2)));
        // With a conversation, the AppServer's pack of it too (online; offline the step fails and is retried).
        if (run.conversation_id === undefined) return { artifact, pack_digest: digest } as unknown as JsonValue;
        const server = await deps.serverEvidence(run.conversation_id, effectKey);
        return { artifact, pack_digest: digest, conversation_export: server } as unknown as JsonValue;
      }
      case "agent.task": {
        if (run.conversation_id === undefined) throw new LineUpError("invalid_state", "an agent.task step needs the run to have a conversation");
        const context = field(input, "context");
        const started = await port.startTask(
          {
            entry: step.entry!,
            idempotency_key: effectKey,
            input: { text: typeof field(input, "text") === "string" ? (field(input, "text") as string) : `${run.workflow_id}: ${step.title ?? step.id}` },
            ...(typeof context === "object" && context !== null && !Array.isArray(context) ? { context } : {}),
            ...(step.output_schema === undefined ? {} : { output_schema: step.output_schema }),
          },
          { conversation_id: run.conversation_id },
        );
        return awaitTask(run.app_scope, started.task_id);
      }
      case "tool": {
        // The call's id is the effect key's: the step run again after a restart is the same call, answered from its record.
        const callId = `wf-${(await sha256Hex(new TextEncoder().encode(effectKey))).slice(0, 32)}`;
        const output = await awaitToolCall(step.tool!.app_scope ?? run.app_scope, callId, {
          kind: "workflow.tool_call",
          app_scope: run.app_scope,
          run_id: run.run_id,
          step_id: step.id,
          call_id: callId,
          ...(step.tool!.app_scope === undefined ? {} : { tool_app_scope: step.tool!.app_scope }),
          method: step.tool!.method,
          arguments: input,
          ...(step.timeout_ms === undefined ? {} : { timeout_ms: step.timeout_ms }),
        });
        if (output.type === "lineup.tool.result") return (output.payload.result ?? null) as JsonValue;
        throw new LineUpError(output.payload.code as ErrorCode, output.payload.message ?? `${step.tool!.method} failed`);
      }
      case "confirm":
        throw new LineUpError("invalid_state", "a confirm step is answered by the person, not run");
    }
  };
  /** A workflow's tool call (`invoke`) to a tool of `appScope`, and its terminal output: at once when it has one, else when it settles. */
  const awaitToolCall = (appScope: string, callId: string, invoke: Extract<RuntimeInput, { kind: "workflow.tool_call" }>): Promise<Extract<ToolOutput, { type: "lineup.tool.result" | "lineup.tool.error" }>> =>
    new Promise((resolve, reject) => {
      type Terminal = Extract<ToolOutput, { type: "lineup.tool.result" | "lineup.tool.error" }>;
      const off = deps.toolSettlements.on((delivery) => {
        if (delivery.app_scope !== appScope || delivery.call_id !== callId) return;
        off();
        resolve(delivery.output as Terminal);
      });
      deps
        .post(invoke)
        .then((reply) => {
          const output = (reply as { output?: Terminal | null } | undefined)?.output;
          if (output === undefined || output === null) return;
          off();
          resolve(output);
        })
        .catch((error: unknown) => {
          off();
          reject(error);
        });
    });
  /** The result of one of an app's tasks once it ends: its output, or its failure. */
  const awaitTask = (appScope: string, taskId: string): Promise<JsonValue> =>
    new Promise((resolve, reject) => {
      const settle = (task: AgentTask): boolean => {
        if (task.status === "completed") resolve((task.result?.output ?? null) as JsonValue);
        else if (task.status === "failed" || task.status === "cancelled") reject(new LineUpError(task.status === "cancelled" ? "cancelled_by_user" : "failed", task.error?.message ?? `the agent task ${task.status === "cancelled" ? "was cancelled" : "failed"}`));
        else return false;
        return true;
      };
      const off = deps.taskEvents.on((delivery) => {
        if (delivery.app_scope === appScope && delivery.task.task_id === taskId && settle(delivery.task)) off();
      });
      const now = deps.task(taskId);
      if (now !== undefined && settle(now)) off();
    });
  return executeStep;
}
