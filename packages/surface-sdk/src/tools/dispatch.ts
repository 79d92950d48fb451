/**
 * Answers `tool.invoke` requests by dispatching to the handlers of `defineAgentTools`.
 *
 * A call is answered in one of two ways, both allowed by the bridge:
 * - in the response (`completed` / `failed`) when the handler finishes without reporting progress;
 * - `pending` as soon as the handler first reports progress — or at once for tools the Runtime runs
 *   as operations (`handling: operation`) — then `tool.progress` reports and exactly one
 *   `tool.complete` or `tool.fail`.
 * The handler gets the arguments as the Runtime checked them against the tool's `input_schema`
 * (the bridge's frame check has made sure they are a JSON object within the limits). After
 * `tool.cancelled`, nothing more is sent for the call.
 */
import { checkJsonValue, LineUpError, toolHandling, type BridgeAppToolOutcome, type BridgeParams, type JsonObject, type JsonValue } from "@lineup/protocol";
import type { BridgeChannel, ResponseHandle } from "../channel.js";
import { requestFailed, threw, type DiagnosticsSink, type Unsubscribe } from "../emitter.js";
import { isTimedOperation, type AgentTool, type AgentTools, type ToolContext, type ToolProgress } from "./define.js";
import { ToolFailure, type AppToolErrorCode } from "./failure.js";

type InvokeParams = BridgeParams<"tool.invoke">;

const MAX_MESSAGE = 2_000;
const clip = (text: string): string => (text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text);

interface Settled {
  readonly ok: boolean;
  readonly result?: JsonValue;
  readonly code?: AppToolErrorCode;
  readonly message?: string;
}

export class ToolDispatcher {
  readonly #channel: BridgeChannel;
  readonly #diagnostics: DiagnosticsSink;
  readonly #tools = new Map<string, AgentTool>();
  /** Calls still running: aborting one stops its handler and silences its answers. */
  readonly #running = new Map<string, AbortController>();
  readonly #offs: Unsubscribe[] = [];

  constructor(channel: BridgeChannel, diagnostics: DiagnosticsSink) {
    this.#channel = channel;
    this.#diagnostics = diagnostics;
    this.#offs.push(
      channel.handle("tool.invoke", (params, response) => this.#invoke(params, response)),
      channel.on("tool.cancelled", ({ call_id, reason }) => this.#running.get(call_id)?.abort(new LineUpError("cancelled_by_user", reason ?? "the agent cancelled the call"))),
      channel.onClosed((reason) => {
        for (const controller of this.#running.values()) controller.abort(reason);
      }),
    );
  }

  /** Adds tools; returns a function that removes them again. A method served twice is a mistake and throws. */
  serve(tools: AgentTools): Unsubscribe {
    for (const method of tools.tools.keys()) if (this.#tools.has(method)) throw new Error(`tool ${method} is already served`);
    for (const [method, tool] of tools.tools) this.#tools.set(method, tool);
    return () => {
      for (const [method, tool] of tools.tools) if (this.#tools.get(method) === tool) this.#tools.delete(method);
    };
  }

  dispose(): void {
    for (const off of this.#offs) off();
  }

  async #invoke(params: InvokeParams, response: ResponseHandle): Promise<BridgeAppToolOutcome> {
    const tool = this.#tools.get(params.method);
    if (tool === undefined) return { outcome: "failed", code: "handler_failed", message: `this app has no handler for ${params.method}` };
    if (params.contract_version !== undefined && params.contract_version !== tool.descriptor.contract_version) {
      return { outcome: "failed", code: "invalid_arguments", message: `${params.method} implements contract ${tool.descriptor.contract_version}, not ${params.contract_version}` };
    }
    if (this.#running.has(params.call_id)) return { outcome: "failed", code: "handler_failed", message: `call ${params.call_id} is already running` };

    const controller = new AbortController();
    this.#running.set(params.call_id, controller);
    const deadline = params.deadline_ms === undefined ? undefined : setTimeout(() => controller.abort(new LineUpError("operation_expired", "the call passed its deadline")), params.deadline_ms);

    // The response is due once: `pending` at the first progress report (or at once for operations), else the outcome.
    let answer: (outcome: BridgeAppToolOutcome) => void = () => {};
    const outcome = new Promise<BridgeAppToolOutcome>((resolve) => (answer = resolve));
    let pending = false;
    const goPending = (): void => {
      if (pending) return;
      pending = true;
      answer({ outcome: "pending" });
    };
    const operation = toolHandling(tool.descriptor) === "operation";

    const ctx: ToolContext = {
      call_id: params.call_id,
      method: params.method,
      signal: controller.signal,
      ...(params.deadline_ms === undefined ? {} : { deadline_ms: params.deadline_ms }),
      progress: async (progress: ToolProgress) => {
        if (controller.signal.aborted) return;
        goPending();
        // The host must have the `pending` answer before the first report for the call.
        await response.sent;
        await this.#channel.request("tool.progress", { call_id: params.call_id, progress: progressBody(progress) });
      },
    };

    // The handler starts now; an operation tool's handler may hand the call to a Runtime-owned timed
    // operation by returning `timedOperation(ms)` at once. Any other operation answers `pending` at once.
    let returned: ReturnType<AgentTool["handler"]> | undefined;
    let threw: { error: unknown } | undefined;
    try {
      returned = tool.handler(params.arguments as JsonObject, ctx);
    } catch (error) {
      threw = { error };
    }
    if (operation && threw === undefined && isTimedOperation(returned)) {
      if (deadline !== undefined) clearTimeout(deadline);
      this.#running.delete(params.call_id);
      return { outcome: "completed", result: { duration_ms: returned.duration_ms } };
    }
    if (operation) goPending();

    void this.#run(tool, () => {
      if (threw !== undefined) throw threw.error;
      return returned;
    }).then(async (settled) => {
      if (deadline !== undefined) clearTimeout(deadline);
      this.#running.delete(params.call_id);
      // A cancelled call answers nothing more; an expired one still says so.
      const reason: unknown = controller.signal.reason;
      if (controller.signal.aborted && !(reason instanceof LineUpError && reason.code === "operation_expired")) {
        if (!pending) answer({ outcome: "failed", code: "cancelled_by_user", message: "the call was cancelled" });
        return;
      }
      const final: Settled = controller.signal.aborted ? { ok: false, code: "operation_expired", message: "the call passed its deadline" } : settled;
      if (!pending) {
        answer(final.ok ? { outcome: "completed", result: final.result ?? null } : failedOutcome(final));
        return;
      }
      try {
        await response.sent;
        if (final.ok) await this.#channel.request("tool.complete", { call_id: params.call_id, result: final.result ?? null });
        else await this.#channel.request("tool.fail", { call_id: params.call_id, code: final.code ?? "handler_failed", ...(final.message === undefined ? {} : { message: final.message }) });
      } catch (error) {
        this.#diagnostics(requestFailed(`terminal report of ${params.call_id}`, error));
      }
    });
    return outcome;
  }

  async #run(tool: AgentTool, started: () => ReturnType<AgentTool["handler"]> | undefined): Promise<Settled> {
    try {
      const result = await started();
      if (isTimedOperation(result)) {
        return { ok: false, code: "handler_failed", message: clip(`${tool.descriptor.method} returned a timed operation, which only an operation tool's handler may, and only at once (not through a promise)`) };
      }
      const plain = checkJsonValue(result ?? null);
      if (!plain.ok) return { ok: false, code: "handler_failed", message: clip(`${tool.descriptor.method} returned a result that is not JSON: ${plain.error.message}`) };
      return { ok: true, result: plain.value };
    } catch (error) {
      if (error instanceof ToolFailure) return { ok: false, code: error.code, message: clip(error.message) };
      this.#diagnostics(threw(`tool ${tool.descriptor.method}`, error));
      const detail = error instanceof Error ? error.message : String(error);
      return { ok: false, code: "handler_failed", message: clip(`${tool.descriptor.method} failed: ${detail}`) };
    }
  }
}

function failedOutcome(settled: Settled): BridgeAppToolOutcome {
  const code = settled.code ?? "handler_failed";
  return settled.message === undefined ? { outcome: "failed", code } : { outcome: "failed", code, message: settled.message };
}

function progressBody(progress: ToolProgress): BridgeParams<"tool.progress">["progress"] {
  const body: { stage?: string; progress?: number; message?: string; data?: JsonValue } = {};
  if (progress.stage !== undefined) body.stage = progress.stage;
  if (progress.progress !== undefined) body.progress = Math.min(1, Math.max(0, progress.progress));
  if (progress.message !== undefined) body.message = clip(progress.message);
  if (progress.data !== undefined) body.data = progress.data;
  return body;
}
