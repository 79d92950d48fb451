/**
 * The Surface Bridge methods an installed app's surface may call, one table entry each (as the Runtime's
 * capabilities are): each entry answers through the app's port, on behalf of the one instance whose surface
 * asked. The surface host answers `lifecycle.ready`, `lifecycle.closing_done` and `surface.resize` itself; a
 * method with no entry here is `unsupported_on_host`.
 *
 * An entry resolves with the method's result or throws `{ code, message }` (the bridge's error frame); a
 * Runtime refusal keeps its code.
 */
import { AGENT_TASK_FEATURE, base64ToBytes, bytesToBase64, type LineUpError, type AgentTaskControl, type AgentTaskRequest, type BridgeEventData, type BridgeEventName, type BridgeMethodName, type JsonObject, type JsonValue } from "@lineup/protocol";
import type { AppInstance, AppPort, AppStorageWrite, SessionDataSnapshot, Unsubscribe } from "@lineup/runtime";
import { surfaceFrameOf } from "./inbox-bridge.js";

/** What a method's entry works with: one instance's surface, its app's port and what the surface subscribed to. */
export interface BridgeSession {
  readonly instance: AppInstance;
  readonly port: AppPort;
  readonly sessionData: ReturnType<AppPort["sessionData"]>;
  /** Pushes an event to the surface (nothing before it is mounted). */
  push<N extends BridgeEventName>(name: N, data: BridgeEventData<N>): void;
  /** The surface's own subscriptions: a new one replaces the last, and the bridge's teardown ends both. */
  readonly subscriptions: { sessionData?: Unsubscribe | undefined; inbox?: Unsubscribe | undefined };
  /**
   * Messages delivered to this surface that wait for its acknowledgement (`explicit_ack`, state patches
   * included): the only ones it may acknowledge (another instance's stay its own). Each leaves when acknowledged.
   */
  readonly delivered: Set<string>;
  /**
   * Display messages delivered here lately (the Runtime marks them seen itself): a replacing subscription's
   * backlog may hold one again before that mark is committed, and an app may acknowledge one, a no-op.
   */
  readonly shown: RecentIds;
  /** The host's answer to `launcher.open`: opens the launcher when the person pressed its shortcut inside this surface. */
  openLauncher(): void;
}

type MethodEntry = (params: never, session: BridgeSession) => unknown;

/** The most tasks `agent.tasks` answers with (the result's schema bound): the newest. */
const LISTED_TASKS = 500;

const AGENT_TASK_METHODS: ReadonlySet<BridgeMethodName> = new Set(["agent.start_task", "agent.tasks", "agent.task_events", "agent.task_control", "evidence.export"]);

/** A refusal the bridge sends back as `{ code, message }`. */
function refusal(code: ConstructorParameters<typeof LineUpError>[0], message: string): { code: string; message: string } {
  return { code, message };
}

/** `{ conversation_id }` of the instance's conversation, or nothing for an instance that serves none. */
const conversationOf = (instance: AppInstance): { conversation_id?: string } => (instance.conversation_id === undefined ? {} : { conversation_id: instance.conversation_id });

const BRIDGE_METHOD_ENTRIES: Partial<Record<BridgeMethodName, MethodEntry>> = {
  // Session data
  "session_data.get": async (_: unknown, { sessionData }: BridgeSession) => unwrap(await sessionData.get()),
  "session_data.replace": async (p: { data: JsonObject; expected_revision: number }, { sessionData }: BridgeSession) => unwrap(await sessionData.replace({ data: p.data, expected_revision: p.expected_revision })),
  "session_data.subscribe": (_: unknown, session: BridgeSession) => {
    session.subscriptions.sessionData?.();
    let first: SessionDataSnapshot | undefined;
    return new Promise<SessionDataSnapshot>((resolve) => {
      const subscribed = session.sessionData.subscribe((snapshot) => {
        if (first === undefined) {
          first = snapshot;
          resolve(snapshot);
        } else session.push("session_data.changed", snapshot as never);
      });
      if (!subscribed.ok) throw refusal(subscribed.error.code, subscribed.error.message);
      session.subscriptions.sessionData = subscribed.value;
    });
  },
  "session_data.unsubscribe": (_: unknown, { subscriptions }: BridgeSession) => {
    subscriptions.sessionData?.();
    subscriptions.sessionData = undefined;
    return {};
  },

  // The app's answers to the tool calls it was given
  "tool.progress": async (p: { call_id: string; progress: JsonObject }, { port, instance }: BridgeSession) => {
    await port.reportTool(p.call_id, { kind: "progress", progress: p.progress as never }, instance.instance_id).catch(rethrow);
    return {};
  },
  "tool.complete": async (p: { call_id: string; result: JsonValue }, { port, instance }: BridgeSession) => {
    await port.reportTool(p.call_id, { kind: "result", result: p.result }, instance.instance_id).catch(rethrow);
    return {};
  },
  "tool.fail": async (p: { call_id: string; code: string; message?: string }, { port, instance }: BridgeSession) => {
    await port.reportTool(p.call_id, { kind: "error", code: p.code, ...(p.message === undefined ? {} : { message: p.message }) }, instance.instance_id).catch(rethrow);
    return {};
  },

  // Navigation
  "app.close": async (p: { instance_id?: string }, { port, instance }: BridgeSession) => {
    // Through the app's port: this instance, or one this app opened; any other is not_owner.
    await port.closeInstance(p.instance_id ?? instance.instance_id).catch(rethrow);
    return {};
  },
  "app.focus": async (p: { instance_id: string }, { port }: BridgeSession) => {
    await port.focusInstance(p.instance_id).catch(rethrow);
    return {};
  },
  "app.list": (_: unknown, { port }: BridgeSession) => ({ apps: port.listAvailableApps() }),
  "app.open_default": (_: unknown, { port }: BridgeSession) => port.openDefaultApp().catch(rethrow),
  "app.launch": async (p: { app_scope: string; entrypoint?: string }, { port, instance }: BridgeSession) => {
    const launched = await port
      .launchApp({ app_scope: p.app_scope, from_instance_id: instance.instance_id, ...conversationOf(instance), ...(p.entrypoint === undefined ? {} : { entrypoint: p.entrypoint }) })
      .catch(rethrow);
    return { app_scope: p.app_scope, instance_id: launched.instance_id };
  },
  "launcher.open": (_: unknown, { openLauncher }: BridgeSession) => {
    openLauncher();
    return {};
  },

  // The person stopping what runs in this instance's conversation
  "operation.interrupt": async (p: { reason?: string }, { port, instance }: BridgeSession) => {
    if (instance.conversation_id === undefined) throw refusal("invalid_state", "this instance serves no conversation, so it runs no operations");
    await port.interruptOperations(instance.conversation_id, p.reason ?? "stopped in the app").catch(rethrow);
    return {};
  },
  "agent.cancel_turn": async (_: unknown, { port, instance }: BridgeSession) => {
    // Always this instance's conversation, never one the app names; the Runtime checks the instance is in front.
    if (instance.conversation_id === undefined) throw refusal("invalid_state", "this instance serves no conversation, so it has no agent turn to stop");
    const receipt = await port.cancelTurn(instance.conversation_id, instance.instance_id).catch(rethrow);
    // The receipt without the key of the device's own write to the AppServer: that is not the app's.
    return { receipt_id: receipt.receipt_id, conversation_id: receipt.conversation_id, accepted_at: receipt.accepted_at, status: receipt.status };
  },

  // The app's agent tasks (feature app.agent-task.v1, checked before the entry runs)
  "agent.start_task": async (p: { request: AgentTaskRequest }, { port, instance }: BridgeSession) => {
    // Always in this instance's conversation; the Runtime checks the entry, the tools and the limits.
    return { task: await port.startTask(p.request, { instance_id: instance.instance_id }).catch(rethrow) };
  },
  "agent.tasks": async (_: unknown, { port }: BridgeSession) => ({ tasks: (await settle(() => port.listTasks())).slice(0, LISTED_TASKS) }),
  "agent.task_events": async (p: { task_id: string; after: number; limit?: number }, { port }: BridgeSession) => {
    // The task is read before its events: every event it counts is then in the page (the SDK relies on it).
    const task = await settle(() => port.getTask(p.task_id));
    return { task, events: await settle(() => port.taskEvents(p.task_id, p.after, p.limit)) };
  },
  "agent.task_control": async (p: { task_id: string; control: AgentTaskControl }, { port }: BridgeSession) => ({ task: await port.controlTask(p.task_id, p.control).catch(rethrow) }),
  "evidence.export": async (p: { task_id?: string }, { port, instance }: BridgeSession) => {
    // One of the app's tasks, or this instance's conversation (never one the app names).
    if (p.task_id === undefined && instance.conversation_id === undefined) throw refusal("invalid_state", "this instance serves no conversation, so it has no evidence to export");
    const exported = await port.exportEvidence(p.task_id !== undefined ? { task_id: p.task_id } : { conversation_id: instance.conversation_id! }).catch(rethrow);
    return { export_id: exported.export_id, conversation_id: exported.conversation_id, through_seq: exported.through_seq, artifact: exported.artifact, pack_digest: exported.pack_digest };
  },

  // Events to the agent, and the app inbox
  "event.emit": async (p: { name: string; data: JsonValue }, { port, instance }: BridgeSession) => {
    await port.emitEvent({ instance_id: instance.instance_id, name: p.name, data: p.data }).catch(rethrow);
    return {};
  },
  "agent_message.subscribe": (p: { types?: string[]; include_pending?: boolean }, session: BridgeSession) => {
    // One subscription per surface: a new one replaces the last (the app's SDK asks again with the union it needs).
    const { instance, port, delivered, shown } = session;
    if (instance.conversation_id === undefined) throw refusal("invalid_state", "this instance serves no conversation, so no agent writes to it");
    session.subscriptions.inbox?.();
    session.subscriptions.inbox = port.subscribeMessages(
      { conversation_id: instance.conversation_id, instance_id: instance.instance_id, ...(p.types === undefined ? {} : { types: p.types }), ...(p.include_pending === undefined ? {} : { include_pending: p.include_pending }) },
      (message) => {
        const frame = surfaceFrameOf(message);
        // Already given to this surface and not yet acknowledged: a subscription that replaced the last one
        // flushes the backlog again, and the app would see the same patch twice.
        if (frame === undefined || delivered.has(message.message_id) || shown.has(message.message_id)) return;
        if (message.delivery === "explicit_ack") delivered.add(message.message_id);
        else shown.add(message.message_id);
        session.push(frame.event, frame.data as never);
      },
    );
    return {};
  },
  "agent_message.unsubscribe": (_: unknown, { subscriptions }: BridgeSession) => {
    subscriptions.inbox?.();
    subscriptions.inbox = undefined;
    return {};
  },
  "agent_message.ack": async (p: { message_id: string }, { port, delivered, shown }: BridgeSession) => {
    if (shown.has(p.message_id)) return {};
    if (!delivered.has(p.message_id)) throw refusal("not_found", `message ${p.message_id} was not delivered to this instance`);
    await port.acknowledge(p.message_id).catch(rethrow);
    delivered.delete(p.message_id);
    return {};
  },

  // Capabilities and artifacts
  "capability.request": (p: { capability: string; purpose: string; input: JsonValue }, { port, instance }: BridgeSession) =>
    // The Runtime's Capability Gateway decides (declared, enabled, host, foreground, user, policy, rate);
    // the result is always one of the closed set, never an exception.
    port.requestCapability({ capability: p.capability, purpose: p.purpose, input: p.input, instance_id: instance.instance_id }),
  "artifact.create": async (p: { name: string; mime_type: string; content: { encoding: "utf8" | "base64"; data: string } }, { port, instance }: BridgeSession) => {
    const bytes = p.content.encoding === "utf8" ? new TextEncoder().encode(p.content.data) : base64ToBytes(p.content.data);
    if (bytes === undefined) throw refusal("invalid_params", "the artifact's content is not valid base64");
    return { artifact: await port.createArtifact({ name: p.name, mime_type: p.mime_type, bytes, ...conversationOf(instance) }).catch(rethrow) };
  },
  "artifact.read": async (p: { artifact_id: string; max_bytes?: number }, { port, instance }: BridgeSession) => {
    const read = await port.readArtifact(p.artifact_id, { ...conversationOf(instance), ...(p.max_bytes === undefined ? {} : { maxBytes: p.max_bytes }) }).catch(rethrow);
    return { artifact: read.artifact, content: { encoding: "base64", data: bytesToBase64(read.bytes) }, truncated: read.truncated };
  },
  "artifact.get": (p: { artifact_id: string }, { port, instance }: BridgeSession) => port.getArtifact(p.artifact_id, conversationOf(instance)).catch(rethrow),
  "artifact.list": async (p: { limit?: number }, { port, instance }: BridgeSession) => ({
    artifacts: await port.listArtifacts({ ...conversationOf(instance), ...(p.limit === undefined ? {} : { limit: p.limit }) }).catch(rethrow),
  }),
  "artifact.save": (p: { artifact_id: string }, { port, instance }: BridgeSession) =>
    // Through the Capability Gateway as this instance (`file.save`): a refusal is a result, not an error.
    port.saveArtifact({ artifact_id: p.artifact_id, instance_id: instance.instance_id, ...conversationOf(instance) }).catch(rethrow),

  // The app's own storage and back-ends
  "storage.get": async (p: { collection: string; key: string }, { port }: BridgeSession) => ({ record: (await port.storage().get(p.collection, p.key).catch(rethrow)) ?? null }),
  "storage.list": async ({ collection, ...query }: { collection: string } & Record<string, unknown>, { port }: BridgeSession) => ({ records: await port.storage().list(collection, query).catch(rethrow) }),
  "storage.put": (p: { collection: string; key: string; value: JsonValue }, { port }: BridgeSession) => port.storage().put(p.collection, p.key, p.value).catch(rethrow),
  "storage.delete": (p: { collection: string; key: string }, { port }: BridgeSession) => port.storage().delete(p.collection, p.key).catch(rethrow),
  "storage.batch": (p: { writes: AppStorageWrite[] }, { port }: BridgeSession) => port.storage().batch(p.writes).catch(rethrow),
  "storage.usage": (_: unknown, { port }: BridgeSession) => port.storage().usage().catch(rethrow),
  "backend.call": async (p: { backend: string; method: string; params?: JsonValue }, { port }: BridgeSession) => ({ result: await port.callBackend(p.backend, p.method, p.params ?? null).catch(rethrow) }),

  // The app's workflows
  "workflow.start": async (p: { workflow_id: string; input?: JsonValue; idempotency_key?: string }, { port, instance }: BridgeSession) => {
    const run = await port
      .startWorkflow(p.workflow_id, p.input ?? null, { instance_id: instance.instance_id, ...(p.idempotency_key === undefined ? {} : { idempotency_key: p.idempotency_key }) })
      .catch(rethrow);
    return { run };
  },
  "workflow.runs": (_: unknown, { port }: BridgeSession) => ({ runs: port.listWorkflowRuns().slice(0, 100) }),
  "workflow.trace": async (p: { run_id: string; after: number; limit?: number }, { port }: BridgeSession) => {
    try {
      const run = port.getWorkflowRun(p.run_id);
      return { run, trace: await port.workflowTrace(p.run_id, p.after, p.limit) };
    } catch (error) {
      return rethrow(error);
    }
  },
  "workflow.control": async (p: { run_id: string; control: { op: "cancel"; reason?: string } | { op: "confirm"; step_id: string; confirmed: boolean } }, { port }: BridgeSession) => ({
    run: await port.controlWorkflow(p.run_id, p.control).catch(rethrow),
  }),
  "workflow.evidence": (p: { run_id: string }, { port }: BridgeSession) => port.exportWorkflowEvidence(p.run_id).catch(rethrow),
};

/**
 * Answers one request of the surface: the method's entry, after the one gate that is the manifest's (the agent task
 * methods need the feature listed). Params were checked against the method's schema by the surface host.
 */
export async function answerBridgeMethod(method: BridgeMethodName, params: unknown, session: BridgeSession, agentTasks: boolean): Promise<unknown> {
  if (AGENT_TASK_METHODS.has(method) && !agentTasks) throw refusal("capability_not_declared", `${session.instance.app_scope} does not list ${AGENT_TASK_FEATURE} in its manifest's runtime_sdk features, so it may not ask the agent for tasks`);
  const entry = BRIDGE_METHOD_ENTRIES[method];
  if (entry === undefined) throw refusal("unsupported_on_host", `${method} is not available to apps on this host yet`);
  return entry(params as never, session);
}

function unwrap<T>(result: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T {
  if (result.ok) return result.value;
  throw { code: result.error.code, message: result.error.message };
}

/** Runs a port call (which may throw at once or reject), refusals in the bridge's shape. */
async function settle<T>(call: () => T | Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    rethrow(error);
  }
}

function rethrow(error: unknown): never {
  const e = error as { code?: string; message?: string };
  throw { code: typeof e?.code === "string" ? e.code : "internal_error", message: typeof e?.message === "string" ? e.message : "the Runtime refused" };
}

/** How many display message ids a surface's bridge remembers (`RecentIds`). */
export const RECENT_DISPLAY_IDS = 256;

/** The last `limit` ids added, oldest forgotten first. */
export class RecentIds {
  readonly #ids = new Set<string>();
  constructor(private readonly limit: number) {}
  has(id: string): boolean {
    return this.#ids.has(id);
  }
  add(id: string): void {
    this.#ids.add(id);
    if (this.#ids.size > this.limit) this.#ids.delete(this.#ids.values().next().value!);
  }
}
