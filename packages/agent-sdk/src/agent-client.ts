/**
 * `connectAgent`: a remote agent's connection to an App Server (the protocol's agent face).
 *
 * What it keeps for the agent:
 * - the sessions bound to it — listed (`agentSession/list`) at every (re)connect, because the list
 *   is the truth, and learned the moment they are bound from the `agentSession/bound` hint — each
 *   followed with `agentSession/subscribe` after the last applied seq, so every event is applied
 *   once and in order. A server that announces the `sessions.bound` feature (`capability/list`) is
 *   only polled as a slow safety net (`boundSessionPollMs`, default 60 s); any other server every
 *   `sessionPollMs` (default 2 s);
 * - the turns the agent must work on: a turn is handed over once, when it is running, and only
 *   after the catch-up seam (`agentSession/caughtUp`), so a turn that ended while the agent was
 *   away is never answered;
 * - the latest inventory per session (the log's `inventory.published`, or `inventory/read`);
 * - tool calls (`invokeTool`) and interaction answers (`awaitInteraction`);
 * - in-app agent tasks (`task-turns.ts`): a turn an app asked for says so (`IncomingTurn.task`), its output
 *   is checked against its schema before it is sent (`completeTurn`), and the app's decision on the result
 *   is handed over once (`onTaskDecision`).
 *
 * Reliability: every write carries an idempotency key and is retried with the same key when the
 * connection drops or the server is overloaded; requests time out; the connection is re-opened
 * with backoff and jitter, `initialize` runs again and every session is re-subscribed after its
 * cursor (no gap, no duplicate at the seam). `close()` rejects everything still pending.
 *
 * Order: on a server with `ordered-writes`, the writes of a session reach its log in the order the
 * agent issued them, retries and reconnects included, without waiting for each other: every attempt
 * names the nearest earlier unsettled write of the session (`after_key`, see `write-order.ts`).
 */
import {
  APP_SERVER_PROTOCOL_VERSION,
  DEFAULT_SERVER_LIMITS,
  LineUpError,
  base64ToBytes,
  bytesToBase64,
  canonicalJson,
  decodeServerNotification,
  encodeJsonRpc,
  validateSessionEvent,
  type Action,
  type ArtifactRef,
  type AgentSessionBoundParams,
  type AgentSessionCaughtUpParams,
  type AppServerInitializeResult,
  type InventoryTool,
  type JsonObject,
  type JsonRpcNotification,
  type JsonValue,
  type MethodParams,
  type MethodResult,
  type Session,
  type SessionEvent,
  type Turn,
  type TurnInput,
  type AppServerMethod,
} from "@lineup/protocol";
import { backoffDelay, type BackoffOptions } from "./backoff.js";
import { Emitter, silentDiagnostics, type DiagnosticsSink, type Disposable } from "./lifecycle.js";
import { interactionIdOf, messageEnvelope, statePatchEnvelope, toolCancelEnvelope, toolInvokeEnvelope, type InteractionAnswer, type OutgoingMessage } from "./messages.js";
import { randomIds, systemClock, isoTimestamp, type Clock, type IdSource, type Random, type TimerHandle } from "./platform.js";
import { RpcClient, isRetryable } from "./rpc-client.js";
import { SessionState, sessionInventoryOf, type LoggedToolCall, type SessionInventory, type TranscriptEntry } from "./session-state.js";
import { checkTurnOutput, taskOfTurn, type TaskDecision, type TaskTurn } from "./task-turns.js";
import { ToolCallTracker, type ToolCallHandle } from "./tool-calls.js";
import { webSocketTransport, type Transport } from "./transport.js";
import { WriteOrder, type PendingWrite } from "./write-order.js";

export interface ConnectAgentOptions {
  /** `ws://host:port/rpc` of the App Server. */
  readonly url: string;
  /** The agent's bearer token. */
  readonly token: string;
  /** Default: the global WHATWG WebSocket. In Node use `nodeWebSocketTransport()` from `@lineup/agent-sdk/node`. */
  readonly transport?: Transport;
  readonly clientInfo?: { readonly name: string; readonly version?: string };
  readonly clock?: Clock;
  readonly ids?: IdSource;
  readonly random?: Random;
  readonly diagnostics?: DiagnosticsSink;
  /** Per request. Default 15 000 ms. */
  readonly requestTimeoutMs?: number;
  /** Attempts per request across reconnects and `overloaded`. Default 6. */
  readonly requestAttempts?: number;
  readonly reconnect?: BackoffOptions & { readonly enabled?: boolean };
  /**
   * How often to list sessions (`agentSession/list`) on a server that does not announce the
   * `sessions.bound` feature; 0 disables polling. Default 2 000 ms.
   */
  readonly sessionPollMs?: number;
  /**
   * How often to list sessions on a server that announces `sessions.bound`: new sessions arrive
   * with `agentSession/bound`, so this poll is only a safety net (a lost hint, a subscription that
   * stopped short of the head); 0 disables it. Default 60 000 ms.
   */
  readonly boundSessionPollMs?: number;
  /** `connectAgent` rejects when no connection succeeded within this time. Default 30 000 ms. */
  readonly connectTimeoutMs?: number;
  /** Tool call deadline when neither the call nor the tool names one. Default 120 000 ms. */
  readonly defaultToolTimeoutMs?: number;
}

export type ConnectionState = "connecting" | "online" | "reconnecting" | "closed";

/** A turn the agent should work on now: running, handed over once. */
export interface IncomingTurn {
  readonly sessionId: string;
  readonly turnId: string;
  readonly turn: Turn;
  readonly input: TurnInput;
  /** `input.text`, or "" when the turn has only structured content. */
  readonly text: string;
  readonly session: Session;
  /** Aborted when the turn ends without the agent (cancelled or interrupted by the device). */
  readonly signal: AbortSignal;
  /**
   * Set when an app asked for this turn (an in-app agent task): which app, its context, the tools the agent may
   * use (`toolsForTurn`) and the output schema the result must match. Absent for an ordinary chat turn.
   */
  readonly task?: TaskTurn;
}

export interface EventInfo {
  /** True after the session's catch-up seam: the event happened while the agent was following. */
  readonly live: boolean;
}

export interface InvokeToolOptions {
  /**
   * Aborting gives the call up: `result` rejects and the Runtime is told (`lineup.tool.cancel`) — unless the
   * reason is a `cancelled_by_user` LineUpError, as a turn's `signal` has when the device cancelled the turn:
   * then the Runtime ends the turn's calls itself, nothing is sent, and `result` rejects with that code; a
   * Runtime-owned timer that has already started is kept by the Runtime, and the handle follows it on.
   */
  readonly signal?: AbortSignal;
  /** Local deadline; default the tool's `timeout_ms` plus a margin, else `defaultToolTimeoutMs`. */
  readonly timeoutMs?: number;
  /** Disambiguates when two apps offer the same method. */
  readonly appScope?: string;
  /**
   * Chosen by the caller (`turnScoped` does, per turn; tests); default a fresh id. A call whose invoke the
   * session's log already holds from this agent (same method, app and arguments) is not sent again: the
   * handle follows that call, from the receipts, progress and outcome the log holds on. Another call under
   * that id is refused `duplicate_call`, as the Runtime would.
   */
  readonly callId?: string;
}

export interface SendOptions {
  /** App scope of the message; default the session's. */
  readonly appScope?: string;
  readonly signal?: AbortSignal;
  /**
   * Chosen by the caller (`turnScoped` does, per turn); default a fresh id. A message whose id the session's
   * log already holds from this agent is not sent again: its receipt is returned (an agent restarted in the
   * middle of a turn says nothing twice). An interaction card's id is then derived from it, so it is the same too.
   */
  readonly envelopeId?: string;
}

/** An event an app raised on the user's device (spec 8.2: what the person did in its surface), as the agent hears it. */
export interface AppEvent {
  readonly sessionId: string;
  readonly seq: number;
  readonly envelopeId: string;
  /** The app that raised it, and its instance (when the device said which). */
  readonly appScope: string;
  readonly instanceId?: string;
  /** A name the app's manifest declares (`drawing.done`), and data its `data_schema` allows. */
  readonly name: string;
  readonly data: JsonValue;
  readonly timestamp: string;
}

/** A state patch for an app (spec 5.4 `lineup.app.state.patch`): delivered to the app's inbox on the device, which acknowledges it once applied. */
export interface StatePatch {
  readonly appScope: string;
  /** One instance of the app; without it, the app's instances in the session. */
  readonly instanceId?: string;
  readonly patch: JsonObject;
  /** The app state revision the patch was made against, when the app's state has one. */
  readonly baseRevision?: number;
}

export interface SendReceipt {
  readonly envelopeId: string;
  readonly seq: number;
  /** For choice / confirm / input: the id to pass to `awaitInteraction`. */
  readonly interactionId?: string;
}

export interface TurnUpdate {
  readonly status?: "thinking" | "working" | "waiting_for_user";
  readonly label?: string;
  readonly textDelta?: string;
  readonly progress?: number;
  readonly data?: JsonValue;
}

export interface ActionRequest {
  readonly kind: "approval" | "choice" | "input";
  readonly prompt: string;
  readonly detail?: string;
  readonly options?: readonly { readonly id: string; readonly label: string; readonly description?: string }[];
  readonly multiple?: boolean;
  readonly inputSchema?: JsonObject;
  readonly turnId?: string;
  readonly expiresAt?: string;
  readonly actionId?: string;
}

export interface ClientStats {
  readonly connects: number;
  readonly duplicateEvents: number;
  readonly seqGaps: number;
  readonly invalidEvents: number;
  readonly requestRetries: number;
  /** Resubscriptions after a poll found the cursor stuck behind the head (events the server did not send). */
  readonly resyncs: number;
  /** Sessions first learned from an `agentSession/bound` notification (not from a list). */
  readonly sessionsBound: number;
  /** Server notifications other than events that failed validation and were ignored (e.g. a malformed `agentSession/bound`). */
  readonly invalidNotifications: number;
  readonly duplicateTerminals: number;
  readonly lateTerminals: number;
}

export interface AgentClient {
  /** The agent id the server knows this token by. */
  readonly agentId: string;
  readonly state: ConnectionState;
  sessions(): Session[];
  session(sessionId: string): Session | undefined;
  /** The session's latest inventory, or undefined before the device published one. */
  inventory(sessionId: string): SessionInventory | undefined;
  /** User and agent messages of the session (turn inputs and `lineup.message` envelopes), oldest first. */
  transcript(sessionId: string): readonly TranscriptEntry[];
  /**
   * This agent's tool calls in the session's log (its most recent ones), oldest first, with what the Runtime
   * sent back for each so far: an agent restarted in the middle of a turn finds the calls it already made.
   */
  toolCalls(sessionId: string): readonly LoggedToolCall[];
  /** The session's last applied seq: the resume cursor. */
  cursor(sessionId: string): number;
  /** Feature names the server announced on the current connection (`initialize`'s `features`, then `capability/list`); empty when it announced none. */
  serverFeatures(): readonly string[];

  onSession(listener: (session: Session) => void): Disposable;
  onTurn(listener: (turn: IncomingTurn) => void): Disposable;
  onEvent(listener: (event: SessionEvent, info: EventInfo) => void): Disposable;
  /** Events apps raised on the user's device (`lineup.app.event` envelopes the device sent), in session order; `info.live` is false for history. */
  onAppEvent(listener: (event: AppEvent, info: EventInfo) => void): Disposable;
  /**
   * Apps' decisions on the results of tasks they asked for (`lineup.task.decision`), each once, in session order:
   * those that happen while the client follows the session (after its first catch-up seam, reconnects included).
   * A restarted agent is not told again of the decisions in the history it replays.
   */
  onTaskDecision(listener: (decision: TaskDecision, info: EventInfo) => void): Disposable;
  onCaughtUp(listener: (sessionId: string, seq: number) => void): Disposable;
  onInventory(listener: (sessionId: string, inventory: SessionInventory) => void): Disposable;
  onStateChange(listener: (state: ConnectionState) => void): Disposable;

  /** Lists the agent's sessions now and follows the new ones. */
  refreshSessions(): Promise<Session[]>;
  /** Reads the latest inventory from the server (after `stale_inventory_revision`). */
  refreshInventory(sessionId: string): Promise<SessionInventory | undefined>;

  send(sessionId: string, message: OutgoingMessage, options?: SendOptions): Promise<SendReceipt>;
  /** Sends a state patch to an app in the session; the device's Runtime delivers it if the app subscribes to `lineup.app.state.patch`. */
  sendStatePatch(sessionId: string, patch: StatePatch, options?: { readonly signal?: AbortSignal; readonly envelopeId?: string }): Promise<SendReceipt>;
  /**
   * Shares a file in the session (`artifact/put`, in order, chunk by chunk, the last checked by the server
   * against its SHA-256): the person's chat shows it with a preview, and apps serving the conversation may
   * read it. Resolves with its reference once complete.
   */
  shareArtifact(sessionId: string, file: { readonly name: string; readonly mime_type: string; readonly bytes: Uint8Array }, options?: { readonly signal?: AbortSignal }): Promise<ArtifactRef>;
  /**
   * Reads a complete artifact of the session (`artifact/read`, chunk by chunk): a turn's attachments, a file the
   * person shared. Rejects `not_found` for an artifact the session does not hold, `message_too_large` past `maxBytes`.
   */
  readArtifact(sessionId: string, artifactId: string, options?: { readonly signal?: AbortSignal; readonly maxBytes?: number }): Promise<{ readonly artifact: ArtifactRef; readonly bytes: Uint8Array }>;
  /** Resolves with the user's answer to a card sent with `send` (or an action from `requestAction`). Rejects with `expired` after `timeoutMs`. */
  awaitInteraction(sessionId: string, interactionId: string, options?: { readonly signal?: AbortSignal; readonly timeoutMs?: number }): Promise<InteractionAnswer>;
  /** Raises `action.required` (the bridge profile's approval / choice / input). Answer with `awaitInteraction(sessionId, action.action_id)`. */
  requestAction(sessionId: string, request: ActionRequest): Promise<Action>;

  updateTurn(sessionId: string, turnId: string, update: TurnUpdate): Promise<number>;
  /**
   * Completes a turn. When the turn has an `output_schema` (an app's task may), `output` is checked against it
   * first: a missing or non-matching output rejects with `invalid_result` (its `path` the JSON Pointer inside
   * the output) and nothing is sent.
   */
  completeTurn(sessionId: string, turnId: string, result?: { readonly text?: string; readonly output?: JsonValue }): Promise<Turn>;
  failTurn(sessionId: string, turnId: string, error: { readonly code: LineUpError["code"]; readonly message: string }): Promise<Turn>;

  invokeTool(sessionId: string, method: string, args?: JsonObject, options?: InvokeToolOptions): ToolCallHandle;

  /** Any method of the agent face, with retries for writes (pass `idempotency_key`); a write with a `session_id` keeps its place in the session's order. */
  request<M extends AppServerMethod>(method: M, params: MethodParams<M>, options?: { readonly signal?: AbortSignal; readonly timeoutMs?: number }): Promise<MethodResult<M>>;
  stats(): ClientStats;
  /** Closes the connection, stops reconnecting and rejects everything pending. */
  close(): Promise<void>;
}

const TOOL_TIMEOUT_MARGIN_MS = 5_000;

/** The app event a session event carries: a `lineup.app.event` a device sent for one of its apps; else undefined. */
export function appEventOf(event: SessionEvent): AppEvent | undefined {
  if (event.kind !== "envelope" || event.actor.role !== "device") return undefined;
  const envelope = (event.data as { envelope?: { id?: unknown; type?: unknown; timestamp?: unknown; sender?: { kind?: unknown; id?: unknown }; scope?: { app_scope?: unknown; instance_id?: unknown }; payload?: unknown } }).envelope;
  if (envelope?.type !== "lineup.app.event" || envelope.sender?.kind !== "app") return undefined;
  const payload = envelope.payload as { name?: unknown; data?: unknown } | null | undefined;
  const appScope = envelope.scope?.app_scope;
  if (typeof payload?.name !== "string" || typeof appScope !== "string" || envelope.sender.id !== appScope) return undefined;
  const instanceId = envelope.scope?.instance_id;
  return {
    sessionId: event.session_id,
    seq: event.seq,
    envelopeId: String(envelope.id),
    appScope,
    ...(typeof instanceId === "string" ? { instanceId } : {}),
    name: payload.name,
    data: (payload.data ?? null) as JsonValue,
    timestamp: String(envelope.timestamp),
  };
}

class Waiters<T> {
  private list: { resolve(value: T): void; reject(error: unknown): void }[] = [];
  wait(): Promise<T> {
    return new Promise((resolve, reject) => this.list.push({ resolve, reject }));
  }
  resolve(value: T): void {
    const list = this.list;
    this.list = [];
    for (const w of list) w.resolve(value);
  }
  reject(error: unknown): void {
    const list = this.list;
    this.list = [];
    for (const w of list) w.reject(error);
  }
}

class Client implements AgentClient {
  agentId = "";
  state: ConnectionState = "connecting";
  private rpc: RpcClient | undefined;
  private readonly states = new Map<string, SessionState>();
  private readonly turnAborts = new Map<string, AbortController>();
  private readonly interactionWaiters = new Map<string, Set<{ answer(answer: InteractionAnswer): void; fail(error: LineUpError): void }>>();
  private readonly resyncing = new Set<string>();
  private readonly unclaimedTurns: IncomingTurn[] = [];
  /** Sessions whose listed head was ahead of the cursor at the last poll, with the cursor then. */
  private readonly behind = new Map<string, number>();
  private readonly tools = new ToolCallTracker();
  private readonly online = new Waiters<RpcClient>();
  private readonly clock: Clock;
  private readonly ids: IdSource;
  private readonly random: Random;
  private readonly diagnostics: DiagnosticsSink;
  private readonly transport: Transport;
  private readonly counters = { connects: 0, duplicateEvents: 0, seqGaps: 0, invalidEvents: 0, requestRetries: 0, resyncs: 0, sessionsBound: 0, invalidNotifications: 0 };
  /** Features announced by the server on the current connection (`initialize`, then `capability/list`). */
  private features: ReadonlySet<string> = new Set();
  private readonly writeOrder = new WriteOrder();
  private readonly sessionEmitter: Emitter<Session>;
  private readonly turnEmitter: Emitter<IncomingTurn>;
  private readonly eventEmitter: Emitter<{ event: SessionEvent; info: EventInfo }>;
  private readonly caughtUpEmitter: Emitter<{ sessionId: string; seq: number }>;
  private readonly taskDecisionEmitter: Emitter<{ decision: TaskDecision; info: EventInfo }>;
  private readonly inventoryEmitter: Emitter<{ sessionId: string; inventory: SessionInventory }>;
  private readonly stateEmitter: Emitter<ConnectionState>;
  private pollTimer: TimerHandle | undefined;
  private sleepTimer: { handle: TimerHandle; wake(): void } | undefined;

  constructor(private readonly options: ConnectAgentOptions) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? randomIds;
    this.random = options.random ?? Math.random;
    this.diagnostics = options.diagnostics ?? silentDiagnostics;
    this.transport = options.transport ?? webSocketTransport();
    this.sessionEmitter = new Emitter(this.diagnostics);
    this.turnEmitter = new Emitter(this.diagnostics);
    this.eventEmitter = new Emitter(this.diagnostics);
    this.caughtUpEmitter = new Emitter(this.diagnostics);
    this.taskDecisionEmitter = new Emitter(this.diagnostics);
    this.inventoryEmitter = new Emitter(this.diagnostics);
    this.stateEmitter = new Emitter(this.diagnostics);
  }

  // --- connection lifecycle -----------------------------------------------------------------

  /** Starts the connection loop; resolves at the first successful handshake. */
  start(): Promise<void> {
    const first = this.online.wait();
    void this.run();
    const timeoutMs = this.options.connectTimeoutMs ?? 30_000;
    return new Promise<void>((resolve, reject) => {
      const timer = this.clock.setTimeout(() => {
        reject(new LineUpError("request_timeout", `could not connect to ${this.options.url} within ${timeoutMs} ms`));
        void this.close();
      }, timeoutMs);
      first.then(
        () => (this.clock.clearTimeout(timer), resolve()),
        (error: unknown) => (this.clock.clearTimeout(timer), reject(error)),
      );
    });
  }

  private setState(state: ConnectionState): void {
    if (this.state === state || this.state === "closed") return;
    this.state = state;
    this.stateEmitter.fire(state);
  }

  private async run(): Promise<void> {
    let attempt = 0;
    const reconnect = this.options.reconnect ?? {};
    while (this.state !== "closed") {
      let rpc: RpcClient | undefined;
      try {
        const connection = await this.transport.connect(this.options.url);
        if (this.isClosed()) {
          connection.close(1000, "client closed");
          return;
        }
        rpc = new RpcClient(connection, { clock: this.clock, diagnostics: this.diagnostics, defaultTimeoutMs: this.options.requestTimeoutMs ?? 15_000 });
        const live = rpc;
        rpc.onNotification((n) => this.onNotification(live, n));
        const init = (await rpc.request("initialize", {
          protocol_version: APP_SERVER_PROTOCOL_VERSION,
          client_info: { name: this.options.clientInfo?.name ?? "lineup-agent-sdk", version: this.options.clientInfo?.version ?? "0.1.0" },
          token: this.options.token,
        })) as unknown as AppServerInitializeResult;
        if (init.role !== "agent" || init.identity.agent_id === undefined) {
          throw new LineUpError("forbidden", `this token belongs to a ${init.role}, not an agent`);
        }
        // Where the server can, its bursts (a catch-up, a commit's fan-out) come in as few frames as this client takes.
        rpc.initialized(init.features);
        this.agentId = init.identity.agent_id;
        // Known before the first write goes out on this connection: whether it may carry `after_key`.
        this.features = new Set(init.features ?? []);
        this.rpc = rpc;
        this.counters.connects++;
        attempt = 0;
        this.setState("online");
        this.online.resolve(rpc);
        const [listed] = await Promise.all([this.readFeatures(rpc), this.resubscribeAll(rpc)]);
        if (rpc === this.rpc) this.features = new Set([...this.features, ...listed]);
        // The list is the truth at every (re)connect: an `agentSession/bound` sent while we were away is never replayed.
        void this.refreshSessions().catch((error: unknown) => this.diagnostics({ kind: "session_error", message: "listing sessions failed", error }));
        this.restartPoll();
        await rpc.closed;
      } catch (error) {
        rpc?.close(1000, "handshake failed");
        if (error instanceof LineUpError && (error.code === "unauthorized" || error.code === "forbidden")) {
          // A wrong token does not get better by retrying.
          this.online.reject(error);
          await this.close();
          return;
        }
        this.diagnostics({ kind: "reconnect", message: `connection attempt failed: ${error instanceof Error ? error.message : String(error)}`, error });
      }
      this.rpc = undefined;
      if (this.isClosed()) return;
      if (reconnect.enabled === false) {
        this.online.reject(new LineUpError("request_cancelled", "the connection closed and reconnect is disabled"));
        await this.close();
        return;
      }
      this.setState("reconnecting");
      for (const state of this.states.values()) state.markResubscribing();
      await this.sleep(backoffDelay(attempt++, this.random(), reconnect));
    }
  }

  /** Read through a method: `close()` changes the state while `run()` awaits. */
  private isClosed(): boolean {
    return this.state === "closed";
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        this.sleepTimer = undefined;
        resolve();
      };
      this.sleepTimer = { handle: this.clock.setTimeout(wake, ms), wake };
    });
  }

  /**
   * The server's features (`capability/list`). A server that cannot say (an older one:
   * `method_not_found`; a timeout) adds none to those of `initialize` (an older server announces
   * none there either), so the client polls as before.
   */
  private async readFeatures(rpc: RpcClient): Promise<ReadonlySet<string>> {
    try {
      const result = (await rpc.request("capability/list", {})) as unknown as MethodResult<"capability/list">;
      return new Set(result.features.map((f) => f.name));
    } catch (error) {
      if (!rpc.isClosed) this.diagnostics({ kind: "session_error", message: "capability/list failed", error });
      return new Set();
    }
  }

  /** The poll period for the current connection: a slow safety net when `agentSession/bound` is announced. */
  private pollEveryMs(): number {
    return this.features.has("sessions.bound") ? (this.options.boundSessionPollMs ?? 60_000) : (this.options.sessionPollMs ?? 2_000);
  }

  /** Re-arms the poll with the current connection's period (a reconnect may reach a different server). */
  private restartPoll(): void {
    if (this.pollTimer !== undefined) this.clock.clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    if (this.state !== "closed") this.schedulePoll();
  }

  private schedulePoll(): void {
    const every = this.pollEveryMs();
    if (every <= 0 || this.pollTimer !== undefined) return;
    this.pollTimer = this.clock.setTimeout(() => {
      this.pollTimer = undefined;
      if (this.state === "closed") return;
      if (this.state === "online") {
        void this.refreshSessions()
          .catch((error: unknown) => this.diagnostics({ kind: "session_error", message: "listing sessions failed", error }))
          .finally(() => this.schedulePoll());
      } else this.schedulePoll();
    }, every);
  }

  /** The live connection, waiting through reconnects. */
  private connected(signal?: AbortSignal): Promise<RpcClient> {
    if (this.state === "closed") return Promise.reject(closedClientError());
    if (this.rpc !== undefined && !this.rpc.isClosed) return Promise.resolve(this.rpc);
    const waiting = this.online.wait();
    if (signal === undefined) return waiting;
    return new Promise((resolve, reject) => {
      const abort = (): void => reject(new LineUpError("request_cancelled", "cancelled while waiting for the connection"));
      if (signal.aborted) return abort();
      signal.addEventListener("abort", abort, { once: true });
      waiting.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
    });
  }

  async close(): Promise<void> {
    if (this.state === "closed") return;
    this.state = "closed";
    this.stateEmitter.fire("closed");
    if (this.pollTimer !== undefined) this.clock.clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    if (this.sleepTimer !== undefined) {
      this.clock.clearTimeout(this.sleepTimer.handle);
      this.sleepTimer.wake();
    }
    this.online.reject(closedClientError());
    this.tools.failAll(closedClientError);
    for (const waiters of this.interactionWaiters.values()) for (const w of [...waiters]) w.fail(closedClientError());
    this.interactionWaiters.clear();
    for (const controller of this.turnAborts.values()) controller.abort(closedClientError());
    this.turnAborts.clear();
    const rpc = this.rpc;
    this.rpc = undefined;
    rpc?.close(1000, "agent closing");
    if (rpc !== undefined) await rpc.closed;
    // The connection loop ends by itself (it checks the state after every await); a connect in
    // flight is closed as soon as it completes.
  }

  // --- requests -------------------------------------------------------------------------------

  request<M extends AppServerMethod>(method: M, params: MethodParams<M>, options: { readonly signal?: AbortSignal; readonly timeoutMs?: number } = {}): Promise<MethodResult<M>> {
    // Taken in the order the agent issues its writes, before anything is awaited.
    const write = this.issueWrite(params);
    const attempts = this.attempt(method, params, options, write);
    if (write === undefined) return attempts;
    // Settled whatever the outcome, so a write that failed for good holds none behind it.
    return attempts.finally(() => write.settle());
  }

  /** A write of a session takes its place in the session's order; reads and writes without a session do not. */
  private issueWrite(params: object): PendingWrite | undefined {
    const { idempotency_key: key, session_id: sessionId } = params as { readonly idempotency_key?: unknown; readonly session_id?: unknown };
    return typeof key === "string" && typeof sessionId === "string" ? this.writeOrder.issue(sessionId, key) : undefined;
  }

  private async attempt<M extends AppServerMethod>(method: M, params: MethodParams<M>, options: { readonly signal?: AbortSignal; readonly timeoutMs?: number }, write: PendingWrite | undefined): Promise<MethodResult<M>> {
    const attempts = this.options.requestAttempts ?? 6;
    const requestOptions = { ...(options.signal === undefined ? {} : { signal: options.signal }), ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) };
    for (let failures = 0; ; ) {
      const rpc = await this.connected(options.signal);
      // Recomputed on every attempt, and only for a connection whose server announced ordered writes.
      const predecessor = write !== undefined && rpc === this.rpc && this.features.has("ordered-writes") ? write.predecessor() : undefined;
      try {
        const answer = rpc.request(method, (predecessor === undefined ? params : { ...params, after_key: predecessor.key }) as unknown as JsonObject, requestOptions);
        write?.sent();
        return (await answer) as unknown as MethodResult<M>;
      } catch (error) {
        if (this.state === "closed" || options.signal?.aborted === true) throw error;
        if (predecessor !== undefined && error instanceof LineUpError && error.code === "predecessor_pending") {
          // Not this write's failure, so not its retry budget: it goes again once the write it named
          // was sent again or settled; sooner would only be refused again.
          await predecessor.moved(options.signal);
          continue;
        }
        if (!isRetryable(error) || ++failures >= attempts) throw error;
        this.counters.requestRetries++;
        this.diagnostics({ kind: "request_retry", message: `${method}: retrying (${error instanceof Error ? error.message : String(error)})`, error });
        if (!(error instanceof LineUpError && error.data?.["connection_closed"] === true)) {
          await this.pause(backoffDelay(failures - 1, this.random(), { initialMs: 100, maxMs: 2_000 }));
        }
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => this.clock.setTimeout(resolve, ms));
  }

  private key(prefix: string): string {
    return this.ids.next(prefix);
  }

  // --- sessions and the log -----------------------------------------------------------------

  sessions(): Session[] {
    return [...this.states.values()].map((s) => s.session);
  }

  session(sessionId: string): Session | undefined {
    return this.states.get(sessionId)?.session;
  }

  inventory(sessionId: string): SessionInventory | undefined {
    return this.states.get(sessionId)?.inventory;
  }

  transcript(sessionId: string): readonly TranscriptEntry[] {
    return this.states.get(sessionId)?.transcript() ?? [];
  }

  toolCalls(sessionId: string): readonly LoggedToolCall[] {
    return this.states.get(sessionId)?.loggedCalls() ?? [];
  }

  cursor(sessionId: string): number {
    return this.states.get(sessionId)?.lastSeq ?? 0;
  }

  serverFeatures(): readonly string[] {
    return [...this.features];
  }

  async refreshSessions(): Promise<Session[]> {
    const found: Session[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request("agentSession/list", cursor === undefined ? { limit: 200 } : { limit: 200, cursor });
      found.push(...page.sessions);
      cursor = page.next_cursor;
    } while (cursor !== undefined);
    for (const session of found) {
      const known = this.states.get(session.session_id);
      if (known !== undefined) this.checkStalled(known, session.last_seq);
      else this.follow(session);
    }
    return found;
  }

  /**
   * Starts following a session the client does not know yet: from its cursor (0 for a new
   * state, so from seq 1). The same path for a listed session and an `agentSession/bound` one.
   */
  private follow(session: Session): void {
    const state = new SessionState(session);
    this.states.set(session.session_id, state);
    this.sessionEmitter.fire(session);
    const rpc = this.rpc;
    if (rpc !== undefined) void this.subscribe(rpc, state);
  }

  /**
   * A safety net under the server's no-gap promise: when two polls in a row see the session's head
   * ahead of our cursor and the cursor has not moved between them, the subscription lost an event
   * (or stalled), so follow again after the cursor.
   */
  private checkStalled(state: SessionState, head: number): void {
    if (head <= state.lastSeq) {
      this.behind.delete(state.sessionId);
      return;
    }
    const before = this.behind.get(state.sessionId);
    if (before === state.lastSeq) {
      this.behind.delete(state.sessionId);
      this.counters.resyncs++;
      this.diagnostics({ kind: "seq_gap", message: `session ${state.sessionId}: head ${head} but no event after ${state.lastSeq} arrived; resubscribing` });
      const rpc = this.rpc;
      if (rpc !== undefined && !this.resyncing.has(state.sessionId)) {
        this.resyncing.add(state.sessionId);
        void this.subscribe(rpc, state);
      }
    } else this.behind.set(state.sessionId, state.lastSeq);
  }

  async refreshInventory(sessionId: string): Promise<SessionInventory | undefined> {
    const result = await this.request("inventory/read", { session_id: sessionId });
    const state = this.states.get(sessionId);
    if (result.inventory === null) return state?.inventory;
    const inventory = sessionInventoryOf(result.inventory);
    if (state?.setInventory(inventory) === true) this.inventoryEmitter.fire({ sessionId, inventory });
    return state?.inventory ?? inventory;
  }

  private async resubscribeAll(rpc: RpcClient): Promise<void> {
    await Promise.all([...this.states.values()].map((state) => this.subscribe(rpc, state)));
  }

  /** Follows a session after its cursor on this connection; the server replaces any earlier subscription. */
  private async subscribe(rpc: RpcClient, state: SessionState): Promise<void> {
    state.markResubscribing();
    try {
      await rpc.request("agentSession/subscribe", { session_id: state.sessionId, after_seq: state.lastSeq });
    } catch (error) {
      if (error instanceof LineUpError && error.code === "cursor_invalid") {
        // The server holds less than we applied (a restored backup): start over; turns already handed over stay so.
        state.resetCursor();
        return this.subscribe(rpc, state);
      }
      if (!rpc.isClosed) this.diagnostics({ kind: "session_error", message: `subscribing to ${state.sessionId} failed`, error });
    } finally {
      this.resyncing.delete(state.sessionId);
    }
  }

  private onNotification(rpc: RpcClient, notification: JsonRpcNotification): void {
    if (rpc !== this.rpc && this.rpc !== undefined) return; // a frame from a connection we already left
    const { method, params } = notification;
    if (method === "agentSession/event") this.onSessionEvent(rpc, params);
    else if (method === "agentSession/caughtUp") this.onCaughtUpNotification(params as AgentSessionCaughtUpParams);
    else if (method === "agentSession/bound") this.onBoundNotification(notification);
  }

  /**
   * `agentSession/bound`: a hint that a session was just bound to this agent. Checked with the
   * protocol's server-notification decoder; a session already known is left alone (the list, the
   * subscription and the cursor already cover it), a new one is followed from seq 1.
   */
  private onBoundNotification(notification: JsonRpcNotification): void {
    if (this.state === "closed") return;
    const checked = decodeServerNotification(encodeJsonRpc(notification));
    if (!checked.ok) {
      this.counters.invalidNotifications++;
      this.diagnostics({ kind: "frame_invalid", message: `agentSession/bound ignored: ${checked.error.code}: ${checked.error.message} (at ${checked.error.path ?? ""})` });
      return;
    }
    const { session } = checked.value.params as unknown as AgentSessionBoundParams;
    if (this.agentId !== "" && session.agent_id !== this.agentId) {
      this.counters.invalidNotifications++;
      this.diagnostics({ kind: "frame_invalid", message: `agentSession/bound ignored: session ${session.session_id} is bound to ${session.agent_id}, not ${this.agentId}` });
      return;
    }
    if (this.states.has(session.session_id)) return;
    this.counters.sessionsBound++;
    this.follow(session as unknown as Session);
  }

  private onSessionEvent(rpc: RpcClient, params: unknown): void {
    const checked = validateSessionEvent(params);
    if (!checked.ok) {
      this.counters.invalidEvents++;
      this.diagnostics({ kind: "event_invalid", message: `${checked.error.code}: ${checked.error.message} (at ${checked.error.path ?? ""})` });
      // Step over it (a newer server's event kind, say) so the cursor, and everything after, still moves.
      const frame = params as { session_id?: unknown; seq?: unknown };
      const state = typeof frame.session_id === "string" ? this.states.get(frame.session_id) : undefined;
      if (state !== undefined && frame.seq === state.lastSeq + 1) state.skip(frame.seq);
      return;
    }
    const event = checked.value;
    const state = this.states.get(event.session_id);
    if (state === undefined) return;
    const applied = state.apply(event);
    if (applied.status === "duplicate") {
      this.counters.duplicateEvents++;
      return;
    }
    if (applied.status === "gap") {
      this.counters.seqGaps++;
      this.diagnostics({ kind: "seq_gap", message: `session ${event.session_id}: got seq ${event.seq}, expected ${applied.expected}; resubscribing` });
      if (!this.resyncing.has(state.sessionId)) {
        this.resyncing.add(state.sessionId);
        void this.subscribe(rpc, state);
      }
      return;
    }
    if (applied.inventoryChanged !== undefined) this.inventoryEmitter.fire({ sessionId: state.sessionId, inventory: applied.inventoryChanged });
    if (applied.envelope !== undefined) this.tools.deliver(applied.envelope);
    if (applied.answer !== undefined) {
      const waiters = this.interactionWaiters.get(`${state.sessionId}\u0000${applied.answer.interactionId}`);
      if (waiters !== undefined) for (const w of [...waiters]) w.answer(applied.answer);
    }
    if (applied.turnEnded !== undefined) {
      const key = `${state.sessionId}\u0000${applied.turnEnded.turnId}`;
      const controller = this.turnAborts.get(key);
      this.turnAborts.delete(key);
      if (controller !== undefined && applied.turnEnded.state === "cancelled") controller.abort(new LineUpError("cancelled_by_user", `turn ${applied.turnEnded.turnId} was cancelled`));
    }
    this.eventEmitter.fire({ event, info: { live: state.caughtUp } });
    if (applied.taskDecision !== undefined) this.taskDecisionEmitter.fire({ decision: applied.taskDecision, info: { live: state.caughtUp } });
    this.handOver(state, applied.turnsToStart);
  }

  private onCaughtUpNotification(params: AgentSessionCaughtUpParams): void {
    const state = this.states.get(params.session_id);
    if (state === undefined) return;
    // The seam is only meaningful once every event up to it has been applied.
    if (state.lastSeq < params.seq) return;
    const turns = state.markCaughtUp();
    this.caughtUpEmitter.fire({ sessionId: state.sessionId, seq: params.seq });
    this.handOver(state, turns);
  }

  private handOver(state: SessionState, turns: readonly Turn[]): void {
    for (const turn of turns) {
      const controller = new AbortController();
      this.turnAborts.set(`${state.sessionId}\u0000${turn.turn_id}`, controller);
      const task = taskOfTurn(turn);
      this.deliverTurn({
        sessionId: state.sessionId,
        turnId: turn.turn_id,
        turn,
        input: turn.input,
        text: turn.input.text ?? "",
        session: state.session,
        signal: controller.signal,
        ...(task === undefined ? {} : { task }),
      });
    }
  }

  // --- listeners ------------------------------------------------------------------------------

  onSession(listener: (session: Session) => void): Disposable {
    return this.sessionEmitter.on(listener);
  }
  onTurn(listener: (turn: IncomingTurn) => void): Disposable {
    const subscription = this.turnEmitter.on(listener);
    // Turns that arrived before anyone listened (right after connecting) go to the first listener.
    const waiting = this.unclaimedTurns.splice(0);
    for (const turn of waiting) this.turnEmitter.fire(turn);
    return subscription;
  }

  private deliverTurn(turn: IncomingTurn): void {
    if (this.turnEmitter.size === 0) this.unclaimedTurns.push(turn);
    else this.turnEmitter.fire(turn);
  }
  onEvent(listener: (event: SessionEvent, info: EventInfo) => void): Disposable {
    return this.eventEmitter.on(({ event, info }) => listener(event, info));
  }
  onAppEvent(listener: (event: AppEvent, info: EventInfo) => void): Disposable {
    return this.eventEmitter.on(({ event, info }) => {
      const appEvent = appEventOf(event);
      if (appEvent !== undefined) listener(appEvent, info);
    });
  }
  onTaskDecision(listener: (decision: TaskDecision, info: EventInfo) => void): Disposable {
    return this.taskDecisionEmitter.on(({ decision, info }) => listener(decision, info));
  }
  onCaughtUp(listener: (sessionId: string, seq: number) => void): Disposable {
    return this.caughtUpEmitter.on(({ sessionId, seq }) => listener(sessionId, seq));
  }
  onInventory(listener: (sessionId: string, inventory: SessionInventory) => void): Disposable {
    return this.inventoryEmitter.on(({ sessionId, inventory }) => listener(sessionId, inventory));
  }
  onStateChange(listener: (state: ConnectionState) => void): Disposable {
    return this.stateEmitter.on(listener);
  }

  // --- writes ---------------------------------------------------------------------------------

  private requireSession(sessionId: string): SessionState {
    const state = this.states.get(sessionId);
    if (state === undefined) throw new LineUpError("session_not_found", `the agent follows no session ${sessionId}`);
    return state;
  }

  async send(sessionId: string, message: OutgoingMessage, options: SendOptions = {}): Promise<SendReceipt> {
    const state = this.requireSession(sessionId);
    const interactive = message.kind === "choice" || message.kind === "confirm" || message.kind === "input";
    const chosen = options.envelopeId;
    const interactionId = interactive ? (interactionIdOf(message) ?? (chosen === undefined ? this.key("ask") : `${chosen}.ask`)) : "";
    const sent = chosen === undefined ? undefined : state.ownEnvelope(chosen);
    if (sent !== undefined) return interactive ? { envelopeId: chosen!, seq: sent, interactionId } : { envelopeId: chosen!, seq: sent };
    const envelope = messageEnvelope(
      { envelopeId: chosen ?? this.key("msg"), timestamp: isoTimestamp(this.clock), agentId: this.agentId, sessionId, appScope: options.appScope ?? state.session.app_scope },
      message,
      interactionId,
    );
    const result = await this.request(
      "agentSession/envelope/send",
      { session_id: sessionId, idempotency_key: envelope.id, envelope: envelope as unknown as JsonObject },
      options.signal === undefined ? {} : { signal: options.signal },
    );
    return interactive ? { envelopeId: result.envelope_id, seq: result.seq, interactionId } : { envelopeId: result.envelope_id, seq: result.seq };
  }

  async sendStatePatch(sessionId: string, patch: StatePatch, options: { readonly signal?: AbortSignal; readonly envelopeId?: string } = {}): Promise<SendReceipt> {
    const state = this.requireSession(sessionId);
    const sent = options.envelopeId === undefined ? undefined : state.ownEnvelope(options.envelopeId);
    if (sent !== undefined) return { envelopeId: options.envelopeId!, seq: sent };
    const envelope = statePatchEnvelope({ envelopeId: options.envelopeId ?? this.key("patch"), timestamp: isoTimestamp(this.clock), agentId: this.agentId, sessionId, appScope: patch.appScope }, patch);
    const result = await this.request(
      "agentSession/envelope/send",
      { session_id: sessionId, idempotency_key: envelope.id, envelope: envelope as unknown as JsonObject },
      options.signal === undefined ? {} : { signal: options.signal },
    );
    return { envelopeId: result.envelope_id, seq: result.seq };
  }

  async shareArtifact(sessionId: string, file: { readonly name: string; readonly mime_type: string; readonly bytes: Uint8Array }, options: { readonly signal?: AbortSignal } = {}): Promise<ArtifactRef> {
    this.requireSession(sessionId);
    const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", file.bytes as BufferSource));
    const sha256 = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
    const artifactId = this.key("art");
    const chunk = DEFAULT_SERVER_LIMITS.max_chunk_bytes;
    const requestOptions = options.signal === undefined ? {} : { signal: options.signal };
    for (let offset = 0; ; offset += chunk) {
      const part = file.bytes.subarray(offset, Math.min(file.bytes.byteLength, offset + chunk));
      const put = await this.request(
        "artifact/put",
        { session_id: sessionId, idempotency_key: this.key("put"), artifact_id: artifactId, name: file.name, mime_type: file.mime_type, size: file.bytes.byteLength, sha256, offset, data: bytesToBase64(part) },
        requestOptions,
      );
      if (put.complete) {
        if (put.artifact === undefined) throw new LineUpError("internal_error", `the server completed artifact ${artifactId} without its reference`);
        return put.artifact;
      }
      if (offset + chunk >= file.bytes.byteLength) throw new LineUpError("internal_error", `the server did not complete artifact ${artifactId} after its last chunk`);
    }
  }

  async readArtifact(sessionId: string, artifactId: string, options: { readonly signal?: AbortSignal; readonly maxBytes?: number } = {}): Promise<{ readonly artifact: ArtifactRef; readonly bytes: Uint8Array }> {
    this.requireSession(sessionId);
    const requestOptions = options.signal === undefined ? {} : { signal: options.signal };
    const chunks: Uint8Array[] = [];
    let offset = 0;
    let artifact: ArtifactRef;
    for (;;) {
      const read = await this.request("artifact/read", { session_id: sessionId, artifact_id: artifactId, offset }, requestOptions);
      artifact = read.artifact;
      if (options.maxBytes !== undefined && read.artifact.size > options.maxBytes) {
        throw new LineUpError("message_too_large", `artifact ${artifactId} has ${read.artifact.size} bytes, more than the ${options.maxBytes} allowed`);
      }
      const data = base64ToBytes(read.data);
      if (data === undefined) throw new LineUpError("invalid_result", `the server sent a chunk of artifact ${artifactId} as malformed base64`);
      chunks.push(data);
      offset += data.byteLength;
      if (read.eof) break;
      if (data.byteLength === 0) throw new LineUpError("invalid_result", `the server sent an empty chunk of artifact ${artifactId} before its end`);
    }
    if (offset !== artifact.size) throw new LineUpError("invalid_result", `the server sent ${offset} bytes of artifact ${artifactId}, which has ${artifact.size}`);
    const bytes = new Uint8Array(offset);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.byteLength;
    }
    return { artifact, bytes };
  }

  awaitInteraction(sessionId: string, interactionId: string, options: { readonly signal?: AbortSignal; readonly timeoutMs?: number } = {}): Promise<InteractionAnswer> {
    const state = this.states.get(sessionId);
    const known = state?.answer(interactionId);
    if (known !== undefined) return Promise.resolve(known);
    if (state === undefined) return Promise.reject(new LineUpError("session_not_found", `the agent follows no session ${sessionId}`));
    if (this.state === "closed") return Promise.reject(closedClientError());
    return new Promise<InteractionAnswer>((resolve, reject) => {
      const key = `${sessionId}\u0000${interactionId}`;
      const waiters = this.interactionWaiters.get(key) ?? new Set();
      this.interactionWaiters.set(key, waiters);
      let timer: TimerHandle | undefined;
      const done = (): void => {
        waiters.delete(waiter);
        if (waiters.size === 0) this.interactionWaiters.delete(key);
        if (timer !== undefined) this.clock.clearTimeout(timer);
        options.signal?.removeEventListener("abort", abort);
      };
      const waiter = {
        answer: (answer: InteractionAnswer): void => (done(), resolve(answer)),
        fail: (error: LineUpError): void => (done(), reject(error)),
      };
      const abort = (): void => {
        done();
        reject(new LineUpError("request_cancelled", `stopped waiting for ${interactionId}`));
      };
      waiters.add(waiter);
      if (options.timeoutMs !== undefined) {
        timer = this.clock.setTimeout(() => {
          done();
          reject(new LineUpError("expired", `no answer to ${interactionId} within ${options.timeoutMs} ms`));
        }, options.timeoutMs);
      }
      if (options.signal !== undefined) {
        if (options.signal.aborted) abort();
        else options.signal.addEventListener("abort", abort, { once: true });
      }
    });
  }

  async requestAction(sessionId: string, request: ActionRequest): Promise<Action> {
    this.requireSession(sessionId);
    const params: Record<string, unknown> = {
      session_id: sessionId,
      idempotency_key: this.key("act"),
      action_id: request.actionId ?? this.key("action"),
      kind: request.kind,
      prompt: request.prompt,
      detail: request.detail,
      options: request.options?.map((o) => (o.description === undefined ? { id: o.id, label: o.label } : { ...o })),
      multiple: request.multiple,
      input_schema: request.inputSchema,
      turn_id: request.turnId,
      expires_at: request.expiresAt,
    };
    for (const k of Object.keys(params)) if (params[k] === undefined) delete params[k];
    const result = await this.request("agentSession/action/request", params as unknown as MethodParams<"agentSession/action/request">);
    return result.action;
  }

  async updateTurn(sessionId: string, turnId: string, update: TurnUpdate): Promise<number> {
    const params: Record<string, unknown> = {
      session_id: sessionId,
      turn_id: turnId,
      idempotency_key: this.key("upd"),
      status: update.status,
      label: update.label,
      text_delta: update.textDelta,
      progress: update.progress,
      data: update.data,
    };
    for (const k of Object.keys(params)) if (params[k] === undefined) delete params[k];
    const result = await this.request("agentSession/turn/update", params as unknown as MethodParams<"agentSession/turn/update">);
    return result.seq;
  }

  async completeTurn(sessionId: string, turnId: string, result: { readonly text?: string; readonly output?: JsonValue } = {}): Promise<Turn> {
    // Refused here, before anything is sent: the AppServer would refuse it too, less precisely.
    checkTurnOutput(this.states.get(sessionId)?.turn(turnId)?.output_schema, result.output);
    const params: MethodParams<"agentSession/turn/complete"> = {
      session_id: sessionId,
      turn_id: turnId,
      idempotency_key: this.key("done"),
      outcome: "completed",
      ...(result.text === undefined ? {} : { text: result.text }),
      ...(result.output === undefined ? {} : { output: result.output }),
    };
    return (await this.request("agentSession/turn/complete", params)).turn;
  }

  async failTurn(sessionId: string, turnId: string, error: { readonly code: LineUpError["code"]; readonly message: string }): Promise<Turn> {
    const params: MethodParams<"agentSession/turn/complete"> = {
      session_id: sessionId,
      turn_id: turnId,
      idempotency_key: this.key("done"),
      outcome: "failed",
      error: { code: error.code, message: error.message.slice(0, 2_000) },
    };
    return (await this.request("agentSession/turn/complete", params)).turn;
  }

  // --- tools ----------------------------------------------------------------------------------

  invokeTool(sessionId: string, method: string, args: JsonObject = {}, options: InvokeToolOptions = {}): ToolCallHandle {
    const callId = options.callId ?? this.key("call");
    const opened = this.tools.open(callId);
    const state = this.states.get(sessionId);
    const logged = options.callId === undefined ? undefined : state?.loggedCall(options.callId);
    const found = state === undefined ? undefined : findTool(state.inventory?.tools ?? [], method, options.appScope ?? logged?.appScope);
    const tool = logged === undefined ? found : { app_scope: logged.appScope, timeout_ms: found?.timeout_ms };
    const timeoutMs = options.timeoutMs ?? (tool?.timeout_ms === undefined ? (this.options.defaultToolTimeoutMs ?? 120_000) : tool.timeout_ms + TOOL_TIMEOUT_MARGIN_MS);
    const ctxFor = (appScope: string) => ({ envelopeId: this.key("env"), timestamp: isoTimestamp(this.clock), agentId: this.agentId, sessionId, appScope });
    let sent = false;
    const giveUp = (error: LineUpError, reason: string): void => {
      if (!this.tools.isOpen(callId)) return;
      this.tools.failLocally(callId, error);
      if (sent && tool !== undefined && this.state !== "closed") {
        const cancel = toolCancelEnvelope({ ...ctxFor(tool.app_scope), callId, reason });
        void this.request("agentSession/envelope/send", { session_id: sessionId, idempotency_key: cancel.id, envelope: cancel as unknown as JsonObject }).catch((e: unknown) =>
          this.diagnostics({ kind: "agent_error", message: `could not cancel ${callId}`, error: e }),
        );
      }
    };
    const timer = this.clock.setTimeout(() => giveUp(new LineUpError("operation_expired", `${method}: no result within ${timeoutMs} ms`, { data: { call_id: callId } }), "timeout"), timeoutMs);
    const abort = (): void => {
      const reason: unknown = options.signal?.reason;
      if (!(reason instanceof LineUpError) || reason.code !== "cancelled_by_user") {
        giveUp(new LineUpError("request_cancelled", `${method}: cancelled by the agent`, { data: { call_id: callId } }), "cancelled by the agent");
        return;
      }
      // The device cancelled the turn (a turn's signal): the Runtime ends the turn's open calls itself, so nothing
      // more is sent for it, not even a cancel. A timer that has started runs on without its turn (the Runtime
      // keeps it): the handle follows it to its end.
      if (!this.tools.timerRunning(callId)) this.tools.failLocally(callId, new LineUpError("cancelled_by_user", `${method}: ${reason.message}`, { data: { call_id: callId } }));
    };
    options.signal?.addEventListener("abort", abort, { once: true });
    opened.onSettle(() => {
      this.clock.clearTimeout(timer);
      options.signal?.removeEventListener("abort", abort);
    });

    const send = async (): Promise<void> => {
      if (logged !== undefined) {
        if (logged.method !== method || (options.appScope !== undefined && options.appScope !== logged.appScope) || canonicalJson(logged.arguments) !== canonicalJson(args)) {
          throw new LineUpError("duplicate_call", `call_id ${callId} was already used by a different call`, { data: { call_id: callId, method } });
        }
        // Already in the log: the Runtime has it. Follow it from what came back so far; the rest arrives live.
        sent = true;
        for (const output of logged.outputs) this.tools.deliver(output);
        return;
      }
      if (state === undefined) throw new LineUpError("session_not_found", `the agent follows no session ${sessionId}`);
      if (state.inventory === undefined || found === undefined) {
        // The Runtime would refuse it the same way; the agent learns it without a round trip.
        throw new LineUpError("tool_not_visible", `${method} is not in the inventory of session ${sessionId}${state.inventory === undefined ? " (no inventory published yet)" : ` (revision ${state.inventory.revision})`}`, {
          data: { call_id: callId, method },
        });
      }
      if (options.signal?.aborted === true) throw new LineUpError("request_cancelled", `${method}: cancelled before it was sent`);
      const envelope = toolInvokeEnvelope({
        ...ctxFor(found.app_scope),
        callId,
        inventoryRevision: state.inventory.revision,
        method: found.method,
        arguments: args,
        contractVersion: found.contract_version,
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      });
      sent = true;
      await this.request("agentSession/envelope/send", { session_id: sessionId, idempotency_key: envelope.id, envelope: envelope as unknown as JsonObject });
    };
    send().catch((error: unknown) => {
      const e = error instanceof LineUpError ? error : new LineUpError("internal_error", String(error));
      this.tools.failLocally(callId, e);
    });
    return {
      callId,
      sessionId,
      method,
      progress: opened.queue,
      result: opened.result,
      cancel: (reason = "cancelled by the agent") => giveUp(new LineUpError("request_cancelled", `${method}: ${reason}`, { data: { call_id: callId } }), reason),
    };
  }

  stats(): ClientStats {
    return { ...this.counters, ...this.tools.stats };
  }
}

/** The inventory tool for `method` (and `appScope` when given). */
export function findTool(tools: readonly InventoryTool[], method: string, appScope?: string): InventoryTool | undefined {
  return tools.find((t) => t.method === method && (appScope === undefined || t.app_scope === appScope));
}

function closedClientError(): LineUpError {
  return new LineUpError("request_cancelled", "the agent client is closed");
}

/**
 * Connects an agent to an App Server. Resolves once the first handshake succeeded (and keeps
 * reconnecting after that); rejects on a wrong token or when no connection succeeded within
 * `connectTimeoutMs`.
 */
export async function connectAgent(options: ConnectAgentOptions): Promise<AgentClient> {
  const client = new Client(options);
  await client.start();
  return client;
}
