/**
 * The remote agent of a test runtime, driven directly on the `FakeAppServer`: it invokes an app's
 * tools with `lineup.tool.invoke` envelopes in its session (at the inventory revision the device
 * last published, as a real agent would), cancels them with `lineup.tool.cancel`, and reads back
 * what the device sent for each call — receipts, progress, and the one result or error.
 */
import { LineUpError, type ErrorCode, type JsonObject, type JsonValue } from "@lineup/protocol";
import type { FakeAppServer } from "@lineup/runtime/testing";
import { waitFor } from "./wait.js";

/** One `lineup.tool.*` envelope the device sent for a call: `[type, payload]`. */
export type ToolOutput = readonly [type: string, payload: JsonObject];

/** A call's end, as the agent saw it. */
export interface AgentCallOutcome {
  readonly call_id: string;
  /** Every output for the call in order, the terminal one last. */
  readonly outputs: readonly ToolOutput[];
  /** The result, when the call ended with `lineup.tool.result`. */
  readonly result?: JsonValue;
  /** The error, when it ended with `lineup.tool.error`. */
  readonly error?: { readonly code: ErrorCode; readonly message: string };
}

export interface InvokeOptions {
  /** Default: `call-<n>`. */
  readonly call_id?: string;
  /** Default `s-1`, the session the testkit created. */
  readonly session_id?: string;
  /** Default: the revision the device last published for the session (0 when none). */
  readonly inventory_revision?: number;
  /** Real milliseconds to wait for the terminal output. Default 5,000. */
  readonly timeout_ms?: number;
}

/** A call in flight. */
export interface AgentCall {
  readonly call_id: string;
  /** What the device sent for this call so far. */
  outputs(): readonly ToolOutput[];
  /** Resolves with the payload of the first output of `type` (e.g. `lineup.tool.progress`). */
  waitFor(type: string, timeoutMs?: number): Promise<JsonObject>;
  /** Resolves once the call has its terminal output. */
  readonly done: Promise<AgentCallOutcome>;
}

/** The inventory the device published for a session. */
export interface PublishedInventory {
  readonly revision: number;
  readonly tools: readonly JsonObject[];
}

export interface TestAgent {
  /** Invokes `app_scope/method` and waits for its terminal output. */
  call(appScope: string, method: string, args: JsonObject, options?: InvokeOptions): Promise<AgentCallOutcome>;
  /** Invokes without waiting: for progress, cancel and runtime-owned operations. */
  invoke(appScope: string, method: string, args: JsonObject, options?: InvokeOptions): Promise<AgentCall>;
  /** Sends `lineup.tool.cancel` for a call this agent made. */
  cancel(callId: string, reason?: string, sessionId?: string): void;
  /** What the device sent for `callId`, in order. */
  outputs(callId: string): readonly ToolOutput[];
  /** The latest inventory the device published for the session (revision 0 and no tools before the first). */
  inventory(sessionId?: string): PublishedInventory;
  /** The declared events apps raised in the session (`lineup.app.event` the device sent), oldest first. */
  appEvents(sessionId?: string): readonly ReceivedAppEvent[];
  /** Sends a state patch (`lineup.app.state.patch`) to `appScope`, or to one of its instances. */
  sendStatePatch(appScope: string, patch: JsonObject, options?: { readonly session_id?: string; readonly instance_id?: string; readonly base_revision?: number }): void;
}

/** An app event as the agent receives it. */
export interface ReceivedAppEvent {
  readonly app_scope: string;
  readonly instance_id?: string;
  readonly name: string;
  readonly data: JsonValue;
}

const TERMINAL = new Set(["lineup.tool.result", "lineup.tool.error"]);
const DEFAULT_TIMEOUT_MS = 5_000;

interface SentEnvelope {
  readonly type: string;
  readonly correlation?: { readonly call_id?: string };
  readonly payload: JsonObject;
}

export function createTestAgent(server: FakeAppServer, options: { readonly agent_id: string; readonly settled: (timeoutMs: number) => Promise<void> }): TestAgent {
  let calls = 0;
  let envelopes = 0;
  /** call_id → the app it was made to (a cancel is addressed to the same app). */
  const madeTo = new Map<string, string>();

  const send = (sessionId: string, type: string, appScope: string | undefined, correlation: JsonObject | undefined, payload: JsonObject, instanceId?: string): void => {
    const scope = appScope ?? "chat";
    server.agentEnvelope(sessionId, {
      v: 1,
      id: `agent-env-${++envelopes}`,
      type,
      timestamp: new Date(Date.UTC(2026, 10, 30, 6, 0, 0) + envelopes).toISOString(),
      sender: { kind: "agent", id: options.agent_id },
      target: instanceId === undefined ? { kind: "app", app_scope: scope } : { kind: "app", app_scope: scope, instance_id: instanceId },
      scope: { app_scope: scope, conversation_id: sessionId },
      ...(correlation === undefined ? {} : { correlation }),
      payload,
    });
  };

  const outputs = (callId: string): ToolOutput[] =>
    server.applied
      .filter((write) => write.method === "agentSession/envelope/send")
      .map((write) => write.params["envelope"] as unknown as SentEnvelope)
      .filter((envelope) => envelope.correlation?.call_id === callId)
      .map((envelope) => [envelope.type, envelope.payload] as const);

  const inventory = (sessionId = "s-1"): PublishedInventory => {
    const published = server.applied.filter((write) => write.method === "inventory/publish" && write.session_id === sessionId).at(-1);
    if (published === undefined) return { revision: 0, tools: [] };
    return { revision: Number(published.params["revision"]), tools: (published.params["tools"] ?? []) as unknown as JsonObject[] };
  };

  const outcomeOf = (callId: string): AgentCallOutcome | undefined => {
    const all = outputs(callId);
    const last = all.find(([type]) => TERMINAL.has(type));
    if (last === undefined) return undefined;
    const upTo = all.slice(0, all.indexOf(last) + 1);
    const [type, payload] = last;
    if (type === "lineup.tool.result") return { call_id: callId, outputs: upTo, result: payload["result"] ?? null };
    return { call_id: callId, outputs: upTo, error: { code: payload["code"] as ErrorCode, message: String(payload["message"] ?? "") } };
  };

  const appEvents = (sessionId = "s-1"): ReceivedAppEvent[] =>
    server.applied
      .filter((write) => write.method === "agentSession/envelope/send" && write.session_id === sessionId)
      .map((write) => write.params["envelope"] as unknown as { type: string; sender: { kind: string; id: string }; scope: { app_scope: string; instance_id?: string }; payload: { name: string; data: JsonValue } })
      .filter((envelope) => envelope.type === "lineup.app.event" && envelope.sender.kind === "app")
      .map((envelope) => ({
        app_scope: envelope.scope.app_scope,
        ...(envelope.scope.instance_id === undefined ? {} : { instance_id: envelope.scope.instance_id }),
        name: envelope.payload.name,
        data: envelope.payload.data,
      }));

  const agent: TestAgent = {
    appEvents,
    sendStatePatch(appScope, patch, patchOptions = {}) {
      send(patchOptions.session_id ?? "s-1", "lineup.app.state.patch", appScope, undefined, { patch, ...(patchOptions.base_revision === undefined ? {} : { base_revision: patchOptions.base_revision }) }, patchOptions.instance_id);
    },
    async invoke(appScope, method, args, invokeOptions = {}) {
      const timeoutMs = invokeOptions.timeout_ms ?? DEFAULT_TIMEOUT_MS;
      const sessionId = invokeOptions.session_id ?? "s-1";
      const callId = invokeOptions.call_id ?? `call-${++calls}`;
      if (outputs(callId).length > 0) throw new LineUpError("duplicate_call", `call ${callId} was already made`);
      // The agent calls at the revision it was last told about: wait until what the device publishes is out.
      await options.settled(timeoutMs);
      const revision = invokeOptions.inventory_revision ?? inventory(sessionId).revision;
      madeTo.set(callId, appScope);
      send(sessionId, "lineup.tool.invoke", appScope, { call_id: callId, inventory_revision: String(revision) }, { method, arguments: args });
      const done = waitFor(() => outcomeOf(callId), timeoutMs, `the terminal output of ${callId} (${appScope}/${method})`);
      // A caller that only uses `waitFor` or `outputs` must not see an unhandled rejection.
      done.catch(() => undefined);
      return {
        call_id: callId,
        outputs: () => outputs(callId),
        waitFor: (type, ms = timeoutMs) => waitFor(() => outputs(callId).find(([t]) => t === type)?.[1], ms, `${type} for ${callId}`),
        done,
      };
    },

    async call(appScope, method, args, invokeOptions) {
      return (await agent.invoke(appScope, method, args, invokeOptions)).done;
    },

    cancel(callId, reason, sessionId = "s-1") {
      send(sessionId, "lineup.tool.cancel", madeTo.get(callId), { call_id: callId }, reason === undefined ? {} : { reason });
    },

    outputs,
    inventory,
  };
  return agent;
}
