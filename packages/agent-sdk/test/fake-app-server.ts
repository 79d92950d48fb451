/**
 * An in-memory App Server that speaks the catalogue's agent face faithfully enough for unit
 * tests: requests are validated with the protocol's own `validateRequestParams`, every event gets
 * the next gapless seq, subscriptions send stored events then `agentSession/caughtUp` then live
 * events, writes replay by idempotency key. The device side is driven directly by the test
 * (`startSession`, `startTurn`, `publishInventory`, `deviceEnvelope`, …).
 *
 * For in-app agent tasks: `startTurn` takes a turn's `options` (`lineup_task`) and `output_schema`, and a
 * completion is checked against the output schema as the reference server does (`invalid_params`);
 * `putArtifact` stores a file `artifact/read` serves in chunks; `taskDecision` appends the
 * `lineup.task.decision` the device's Runtime writes when an app accepts or rejects a result.
 *
 * Like the reference server it announces every `SERVER_FEATURES` entry in `capability/list` (and
 * their names in `initialize`'s `features`, unless `refuseCapabilityList` plays a server older than
 * both) and sends `agentSession/bound` to the bound agent's initialized connections when
 * `startSession` creates a session; `{ sessionsBound: false }` plays an older server (no such
 * feature, no notification). `sendBound` and `notify` push extra (duplicate, malformed)
 * notifications. Ordered writes (`after_key`) are honoured as the reference server does; with
 * `{ orderedWrites: false }` the feature is not announced and a write carrying `after_key` is
 * refused with `invalid_params`, so a client that sends it anyway cannot go unnoticed.
 *
 * Fault hooks: `dropConnections()` (network loss), `dropResponseOf(method)` (the write commits
 * but the connection dies before the answer), `refuseConnections`.
 */
import {
  APP_SERVER_PROTOCOL_VERSION,
  DEFAULT_SERVER_LIMITS,
  SERVER_FEATURES,
  decodeJsonRpc,
  encodeJsonRpc,
  jsonRpcFailure,
  jsonRpcNotification,
  jsonRpcSuccess,
  methodsForRole,
  validateRequestParams,
  LineUpError,
  bytesToBase64,
  createToolSchemaValidator,
  type Action,
  type ArtifactRef,
  type InventoryTool,
  type JsonObject,
  type JsonValue,
  type RuntimeEnvelope,
  type Session,
  type SessionEvent,
  type Turn,
} from "@lineup/protocol";
import { memoryTransport, type Connection, type Transport } from "../src/index.js";

interface FakeSession {
  session: Session;
  events: SessionEvent[];
  turns: Map<string, Turn>;
  actions: Map<string, Action>;
  inventory: { revision: number; tools: InventoryTool[]; published_at: string; seq: number } | null;
  envelopeIds: Set<string>;
  artifacts: Map<string, { ref: ArtifactRef; bytes: Uint8Array }>;
}

interface FakeConnection {
  readonly connection: Connection;
  agentId: string | undefined;
  readonly subscriptions: Map<string, number>;
}

export interface FakeServerOptions {
  readonly agentTokens?: Readonly<Record<string, string>>;
  /** Announce `sessions.bound` and send `agentSession/bound` (default true, as the reference server). */
  readonly sessionsBound?: boolean;
  /** Announce and honour `ordered-writes` (default true, as the reference server). */
  readonly orderedWrites?: boolean;
}

const now = (): string => new Date().toISOString();

export class FakeAppServer {
  readonly sessions = new Map<string, FakeSession>();
  readonly connections = new Set<FakeConnection>();
  /** Every request an agent sent, in order (method + params). */
  readonly requests: { method: string; params: JsonObject }[] = [];
  refuseConnections = false;
  /** Live events to drop on the wire (a server that loses an event at the seam). */
  loseLiveEvents = 0;
  /** Called for every envelope an agent appends (the test plays the device). */
  onAgentEnvelope: (sessionId: string, envelope: RuntimeEnvelope) => void = () => undefined;
  private readonly idempotency = new Map<string, { body: string; response: { ok: true; value: JsonValue } | { ok: false; error: LineUpError } }>();
  private readonly dropResponses = new Map<string, number>();
  private readonly agentTokens: Readonly<Record<string, string>>;
  private readonly orderedWrites: boolean;
  /** Announce `sessions.bound` and send `agentSession/bound`; may change between connections (a server upgrade or downgrade). */
  sessionsBound: boolean;
  /** Answer `capability/list` with `method_not_found`, as a server older than the method would. */
  refuseCapabilityList = false;
  /** Most bytes one `artifact/read` answer carries (smaller than the server limit, to make files span chunks). */
  artifactChunkBytes = DEFAULT_SERVER_LIMITS.max_chunk_bytes;
  private counter = 0;

  constructor(options: FakeServerOptions = {}) {
    this.agentTokens = options.agentTokens ?? { "agent-token": "demo-agent" };
    this.sessionsBound = options.sessionsBound ?? true;
    this.orderedWrites = options.orderedWrites ?? true;
  }

  /** How many requests of `method` agents sent. */
  requestCount(method: string): number {
    return this.requests.filter((r) => r.method === method).length;
  }

  transport(): Transport {
    return memoryTransport((server) => this.accept(server), { refuse: () => this.refuseConnections });
  }

  // --- the device side, driven by tests ---------------------------------------------------------

  startSession(sessionId: string, agentId = "demo-agent", appScope = "chat"): Session {
    const session: Session = {
      session_id: sessionId,
      app_scope: appScope,
      workspace_id: "w-1",
      owner_user_id: "dev-user",
      agent_id: agentId,
      state: "active",
      created_at: now(),
      last_seq: 0,
      inventory_revision: 0,
    };
    this.sessions.set(sessionId, { session, events: [], turns: new Map(), actions: new Map(), inventory: null, envelopeIds: new Set(), artifacts: new Map() });
    this.append(sessionId, "session.started", { role: "device", id: "dev-device" }, { session: { ...session, last_seq: 1 } as unknown as JsonValue });
    if (this.sessionsBound) this.sendBound(sessionId);
    return session;
  }

  /** Sends `agentSession/bound` for an existing session to its agent's connections (again, if the test calls it). */
  sendBound(sessionId: string): void {
    const s = this.mustSession(sessionId);
    const frame = encodeJsonRpc(jsonRpcNotification("agentSession/bound", { session: s.session as unknown as JsonObject }));
    for (const c of this.connections) if (c.agentId === s.session.agent_id) c.connection.send(frame);
  }

  /** Sends any notification, valid or not, to every initialized connection. */
  notify(method: string, params: JsonObject): void {
    const frame = encodeJsonRpc(jsonRpcNotification(method, params));
    for (const c of this.connections) if (c.agentId !== undefined) c.connection.send(frame);
  }

  /** Starts a turn; `more` gives it structured input (attachments), an output schema and options (an app's task: `lineup_task`). */
  startTurn(sessionId: string, text: string, turnId = `t-${++this.counter}`, more: { readonly input?: Turn["input"]; readonly output_schema?: JsonObject; readonly options?: JsonObject } = {}): Turn {
    const s = this.mustSession(sessionId);
    const open = [...s.turns.values()].some((t) => t.state === "running" || t.state === "queued");
    const turn: Turn = {
      turn_id: turnId,
      session_id: sessionId,
      state: open ? "queued" : "running",
      queue: "enqueue",
      input: more.input ?? { text },
      ...(more.output_schema === undefined ? {} : { output_schema: more.output_schema }),
      ...(more.options === undefined ? {} : { options: more.options }),
      created_at: now(),
      updated_at: now(),
      started_seq: s.session.last_seq + 1,
    };
    s.turns.set(turnId, turn);
    this.append(sessionId, "turn.started", { role: "device", id: "dev-device" }, { turn: turn as unknown as JsonValue });
    return turn;
  }

  cancelTurn(sessionId: string, turnId: string): void {
    const s = this.mustSession(sessionId);
    const turn = s.turns.get(turnId)!;
    s.turns.set(turnId, { ...turn, state: "cancelled" });
    this.append(sessionId, "turn.cancelled", { role: "device", id: "dev-device" }, { turn_id: turnId, reason: "cancelled" });
    this.activateNext(sessionId);
  }

  publishInventory(sessionId: string, revision: number, tools: InventoryTool[]): void {
    const s = this.mustSession(sessionId);
    const seq = this.append(sessionId, "inventory.published", { role: "device", id: "dev-device" }, { revision, tools: tools as unknown as JsonValue });
    s.inventory = { revision, tools, published_at: now(), seq };
    s.session = { ...s.session, inventory_revision: revision };
  }

  /** The device appends an envelope (tool receipt/progress/result/error, an interaction response). */
  deviceEnvelope(sessionId: string, type: string, payload: JsonValue, correlation: JsonObject = {}, appScope = "chat"): number {
    const envelope = {
      v: 1,
      id: `dev-env-${++this.counter}`,
      type,
      timestamp: now(),
      sender: { kind: type === "lineup.interaction.response" ? "user" : "runtime", id: "dev-device" },
      target: { kind: "runtime", app_scope: "runtime" },
      scope: { app_scope: appScope, conversation_id: sessionId },
      ...(Object.keys(correlation).length === 0 ? {} : { correlation }),
      payload,
    };
    return this.append(sessionId, "envelope", { role: "device", id: "dev-device" }, { envelope: envelope as unknown as JsonValue });
  }

  /** The device sends an app's declared event (`lineup.app.event` from one of its instances); `senderId` other than the app makes it a forgery. */
  deviceAppEvent(sessionId: string, appScope: string, name: string, data: JsonValue, options: { readonly senderId?: string; readonly instanceId?: string } = {}): number {
    const envelope = {
      v: 1,
      id: `dev-env-${++this.counter}`,
      type: "lineup.app.event",
      timestamp: now(),
      sender: { kind: "app", id: options.senderId ?? appScope },
      target: { kind: "runtime", app_scope: "runtime" },
      scope: { app_scope: appScope, conversation_id: sessionId, instance_id: options.instanceId ?? "inst-7" },
      payload: { name, data },
    };
    return this.append(sessionId, "envelope", { role: "device", id: "dev-device" }, { envelope: envelope as unknown as JsonValue });
  }

  /** Stores a complete artifact in the session (the device shared a file); `artifact/read` serves it. */
  async putArtifact(sessionId: string, name: string, mimeType: string, bytes: Uint8Array): Promise<ArtifactRef> {
    const s = this.mustSession(sessionId);
    const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes as BufferSource));
    const ref: ArtifactRef = { artifact_id: `art-${++this.counter}`, name, mime_type: mimeType, size: bytes.byteLength, sha256: Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("") };
    s.artifacts.set(ref.artifact_id, { ref, bytes });
    this.append(sessionId, "artifact.added", { role: "device", id: "dev-device" }, { artifact: ref as unknown as JsonObject });
    return ref;
  }

  /** The device's Runtime tells the agent that `appScope` accepted or rejected the result of its task (`lineup.task.decision`). */
  taskDecision(sessionId: string, appScope: string, payload: { readonly task_id: string; readonly turn_id: string; readonly decision: "accepted" | "rejected"; readonly reason?: string }): number {
    const envelope = {
      v: 1,
      id: `dev-env-${++this.counter}`,
      type: "lineup.task.decision",
      timestamp: now(),
      sender: { kind: "app", id: appScope },
      target: { kind: "runtime", app_scope: "runtime" },
      scope: { app_scope: appScope, conversation_id: sessionId },
      payload,
    };
    return this.append(sessionId, "envelope", { role: "device", id: "dev-device" }, { envelope: envelope as unknown as JsonValue });
  }

  respondAction(sessionId: string, actionId: string, response: JsonObject): void {
    const s = this.mustSession(sessionId);
    const action = s.actions.get(actionId)!;
    s.actions.set(actionId, { ...action, state: "responded" });
    this.append(sessionId, "action.responded", { role: "device", id: "dev-device" }, { action_id: actionId, response });
  }

  /** Appends any event, even of a kind the protocol does not (yet) define. */
  appendRaw(sessionId: string, kind: string, data: JsonObject): number {
    return this.append(sessionId, kind, { role: "device", id: "dev-device" }, data);
  }

  /** Every connection dies at once (the agent should reconnect and resume). */
  dropConnections(): void {
    for (const c of [...this.connections]) c.connection.close(1006, "network lost");
  }

  /** The next `count` requests of `method` commit, then the connection dies before the answer. */
  dropResponseOf(method: string, count = 1): void {
    this.dropResponses.set(method, count);
  }

  eventsOf(sessionId: string): SessionEvent[] {
    return this.mustSession(sessionId).events;
  }

  turn(sessionId: string, turnId: string): Turn | undefined {
    return this.mustSession(sessionId).turns.get(turnId);
  }

  /** Agent-written envelopes of a session, in log order. */
  agentEnvelopes(sessionId: string, type?: string): RuntimeEnvelope[] {
    return this.eventsOf(sessionId)
      .filter((e) => e.kind === "envelope")
      .map((e) => (e.data as unknown as { envelope: RuntimeEnvelope }).envelope)
      .filter((env) => env.sender.kind === "agent" && (type === undefined || env.type === type));
  }

  // --- the log ----------------------------------------------------------------------------------

  private mustSession(sessionId: string): FakeSession {
    const s = this.sessions.get(sessionId);
    if (s === undefined) throw new Error(`no session ${sessionId}`);
    return s;
  }

  private append(sessionId: string, kind: string, actor: { role: "device" | "agent" | "server"; id: string }, data: JsonObject): number {
    const s = this.mustSession(sessionId);
    const seq = s.session.last_seq + 1;
    s.session = { ...s.session, last_seq: seq };
    const event = { session_id: sessionId, seq, kind, created_at: now(), actor, data } as unknown as SessionEvent;
    s.events.push(event);
    for (const c of this.connections) {
      const cursor = c.subscriptions.get(sessionId);
      if (cursor !== undefined && cursor === seq - 1) {
        c.subscriptions.set(sessionId, seq);
        if (this.loseLiveEvents > 0) {
          this.loseLiveEvents--;
          continue;
        }
        c.connection.send(encodeJsonRpc(jsonRpcNotification("agentSession/event", event as unknown as JsonObject)));
      }
    }
    return seq;
  }

  private activateNext(sessionId: string): void {
    const s = this.mustSession(sessionId);
    if ([...s.turns.values()].some((t) => t.state === "running")) return;
    const next = [...s.turns.values()].find((t) => t.state === "queued");
    if (next === undefined) return;
    s.turns.set(next.turn_id, { ...next, state: "running" });
    this.append(sessionId, "turn.activated", { role: "server", id: "server" }, { turn_id: next.turn_id });
  }

  // --- the wire ---------------------------------------------------------------------------------

  private accept(connection: Connection): void {
    const c: FakeConnection = { connection, agentId: undefined, subscriptions: new Map() };
    this.connections.add(c);
    connection.onClose(() => this.connections.delete(c));
    connection.onMessage((text) => {
      const decoded = decodeJsonRpc(text);
      if (decoded.kind !== "single" || decoded.item.kind !== "request") return;
      const { id, method, params } = decoded.item.message;
      const respond = (result: { ok: true; value: JsonValue } | { ok: false; error: LineUpError }): void => {
        const drop = this.dropResponses.get(method) ?? 0;
        if (drop > 0) {
          this.dropResponses.set(method, drop - 1);
          connection.close(1006, "dropped before the response");
          return;
        }
        connection.send(encodeJsonRpc(result.ok ? jsonRpcSuccess(id, result.value) : jsonRpcFailure(id, result.error.toProtocolError())));
      };
      const checked = validateRequestParams(method, c.agentId === undefined ? undefined : "agent", params);
      if (!checked.ok) return respond({ ok: false, error: new LineUpError(checked.error.code, checked.error.message, checked.error.path === undefined ? {} : { path: checked.error.path }) });
      const p = checked.value.params as unknown as JsonObject;
      this.requests.push({ method, params: p });
      const key = typeof p["idempotency_key"] === "string" ? `${c.agentId}|${p["idempotency_key"]}` : undefined;
      if (key !== undefined) {
        const { idempotency_key: _ignored, after_key: after, ...body } = p;
        if (after !== undefined && !this.orderedWrites) return respond({ ok: false, error: new LineUpError("invalid_params", "after_key is not supported by this server", { path: "/after_key" }) });
        if (after === p["idempotency_key"]) return respond({ ok: false, error: new LineUpError("invalid_params", "after_key names this write itself", { path: "/after_key" }) });
        const fingerprint = `${method}|${JSON.stringify(body)}`;
        const stored = this.idempotency.get(key);
        if (stored !== undefined) {
          return respond(stored.body === fingerprint ? stored.response : { ok: false, error: new LineUpError("idempotency_conflict", `key ${p["idempotency_key"]} reused`) });
        }
        if (after !== undefined && !this.idempotency.has(`${c.agentId}|${String(after)}`)) {
          return respond({ ok: false, error: new LineUpError("predecessor_pending", `the write with idempotency key ${String(after)} has no outcome yet`, { path: "/after_key" }) });
        }
        const outcome = this.execute(c, method, p);
        if (outcome.ok || !ERROR_RETRYABLE.has(outcome.error.code)) this.idempotency.set(key, { body: fingerprint, response: outcome });
        respond(outcome);
        return;
      }
      const outcome = this.execute(c, method, p);
      respond(outcome);
      if (outcome.ok && method === "agentSession/subscribe") this.catchUp(c, p["session_id"] as string);
    });
  }

  private features(): (typeof SERVER_FEATURES)[number][] {
    return SERVER_FEATURES.filter((f) => (this.sessionsBound || (f.name !== "sessions.bound" && f.name !== "program-order")) && (this.orderedWrites || f.name !== "ordered-writes"));
  }

  private catchUp(c: FakeConnection, sessionId: string): void {
    const s = this.mustSession(sessionId);
    const from = c.subscriptions.get(sessionId) ?? 0;
    for (const event of s.events.slice(from)) c.connection.send(encodeJsonRpc(jsonRpcNotification("agentSession/event", event as unknown as JsonObject)));
    c.subscriptions.set(sessionId, s.session.last_seq);
    c.connection.send(encodeJsonRpc(jsonRpcNotification("agentSession/caughtUp", { session_id: sessionId, seq: s.session.last_seq })));
  }

  private visible(c: FakeConnection, sessionId: unknown): FakeSession {
    const s = typeof sessionId === "string" ? this.sessions.get(sessionId) : undefined;
    if (s === undefined || s.session.agent_id !== c.agentId) throw new LineUpError("session_not_found", `no session ${String(sessionId)}`);
    return s;
  }

  private execute(c: FakeConnection, method: string, p: JsonObject): { ok: true; value: JsonValue } | { ok: false; error: LineUpError } {
    try {
      return { ok: true, value: this.handle(c, method, p) };
    } catch (error) {
      if (error instanceof LineUpError) return { ok: false, error };
      throw error;
    }
  }

  private handle(c: FakeConnection, method: string, p: JsonObject): JsonValue {
    const agent = { role: "agent" as const, id: c.agentId ?? "?" };
    switch (method) {
      case "initialize": {
        const agentId = typeof p["token"] === "string" ? this.agentTokens[p["token"]] : undefined;
        if (agentId === undefined) throw new LineUpError("unauthorized", "unknown token");
        c.agentId = agentId;
        return {
          protocol_version: APP_SERVER_PROTOCOL_VERSION,
          server_info: { name: "fake-app-server", version: "0" },
          role: "agent",
          identity: { agent_id: agentId },
          limits: DEFAULT_SERVER_LIMITS as unknown as JsonObject,
          server_time: now(),
          ...(this.refuseCapabilityList ? {} : { features: this.features().map((f) => f.name) }),
        };
      }
      case "capability/list":
        if (this.refuseCapabilityList) throw new LineUpError("method_not_found", "method \"capability/list\" does not exist");
        return { role: "agent", methods: methodsForRole("agent"), features: this.features().map((f) => ({ ...f })) };
      case "agentSession/list":
        return { sessions: [...this.sessions.values()].filter((s) => s.session.agent_id === c.agentId).map((s) => s.session as unknown as JsonObject) };
      case "agentSession/read": {
        const s = this.visible(c, p["session_id"]);
        return { session: s.session as unknown as JsonObject, open_turns: [], pending_actions: [] };
      }
      case "agentSession/subscribe": {
        const s = this.visible(c, p["session_id"]);
        const after = p["after_seq"] as number;
        if (after > s.session.last_seq) throw new LineUpError("cursor_invalid", `after_seq ${after} is beyond the head ${s.session.last_seq}`);
        // catchUp sends the stored events right after this result; nothing is appended in between (one tick).
        c.subscriptions.set(s.session.session_id, after);
        return { session_id: s.session.session_id, after_seq: after, head_seq: s.session.last_seq };
      }
      case "agentSession/unsubscribe":
        return { session_id: p["session_id"] as string, was_subscribed: c.subscriptions.delete(p["session_id"] as string) };
      case "inventory/read": {
        const s = this.visible(c, p["session_id"]);
        return { session_id: s.session.session_id, inventory: s.inventory === null ? null : ({ session_id: s.session.session_id, ...s.inventory } as unknown as JsonObject) };
      }
      case "agentSession/turn/update": {
        const s = this.visible(c, p["session_id"]);
        const turn = s.turns.get(p["turn_id"] as string);
        if (turn === undefined) throw new LineUpError("not_found", "no such turn");
        if (turn.state !== "running") throw new LineUpError("invalid_state", `turn is ${turn.state}`);
        const { session_id: _s, idempotency_key: _k, ...data } = p;
        return { turn_id: turn.turn_id, seq: this.append(s.session.session_id, "turn.updated", agent, data) };
      }
      case "agentSession/turn/complete": {
        const s = this.visible(c, p["session_id"]);
        const turn = s.turns.get(p["turn_id"] as string);
        if (turn === undefined) throw new LineUpError("not_found", "no such turn");
        if (turn.state !== "running") throw new LineUpError("invalid_state", `turn is ${turn.state}`);
        const failed = p["outcome"] === "failed";
        if (!failed && turn.output_schema !== undefined) {
          // As the reference server: the output must be there and match.
          if (p["output"] === undefined) throw new LineUpError("invalid_params", "the turn's output_schema requires an output", { path: "/output" });
          const validator = createToolSchemaValidator(turn.output_schema, { code: "invalid_params" });
          if (!validator.ok) throw new LineUpError("invalid_state", "the stored schema is unusable");
          const checked = validator.value(p["output"]);
          if (!checked.ok) throw new LineUpError("invalid_params", `output does not match its schema: ${checked.error.message}`, { path: `/output${checked.error.path ?? ""}` });
        }
        const ended: Turn = {
          ...turn,
          state: failed ? "failed" : "completed",
          ...(typeof p["text"] === "string" ? { text: p["text"] } : {}),
          ...(!failed && p["output"] !== undefined ? { output: p["output"] } : {}),
          ...(p["error"] === undefined ? {} : { error: p["error"] as unknown as { code: "internal_error"; message: string } }),
        };
        s.turns.set(turn.turn_id, ended);
        const seq = failed
          ? this.append(s.session.session_id, "turn.failed", agent, { turn_id: turn.turn_id, error: p["error"] as JsonObject })
          : this.append(s.session.session_id, "turn.completed", agent, { turn_id: turn.turn_id, ...(typeof p["text"] === "string" ? { text: p["text"] } : {}), ...(p["output"] === undefined ? {} : { output: p["output"] }) });
        this.activateNext(s.session.session_id);
        return { turn: ended as unknown as JsonObject, seq };
      }
      case "artifact/read": {
        const s = this.visible(c, p["session_id"]);
        const stored = s.artifacts.get(p["artifact_id"] as string);
        if (stored === undefined) throw new LineUpError("not_found", `no artifact ${String(p["artifact_id"])}`);
        const offset = (p["offset"] as number | undefined) ?? 0;
        const length = Math.min((p["length"] as number | undefined) ?? DEFAULT_SERVER_LIMITS.max_chunk_bytes, this.artifactChunkBytes);
        const chunk = stored.bytes.subarray(offset, offset + length);
        return { artifact: stored.ref as unknown as JsonObject, offset, data: bytesToBase64(chunk), eof: offset + chunk.byteLength >= stored.bytes.byteLength };
      }
      case "agentSession/action/request": {
        const s = this.visible(c, p["session_id"]);
        const actionId = (p["action_id"] as string | undefined) ?? `action-${++this.counter}`;
        const { session_id: _s, idempotency_key: _k, action_id: _a, ...rest } = p;
        const action = { action_id: actionId, session_id: s.session.session_id, ...rest, state: "pending", requested_at: now() } as unknown as Action;
        s.actions.set(actionId, action);
        const seq = this.append(s.session.session_id, "action.required", agent, { action: action as unknown as JsonObject });
        return { action: action as unknown as JsonObject, seq };
      }
      case "agentSession/envelope/send": {
        const s = this.visible(c, p["session_id"]);
        const envelope = p["envelope"] as unknown as RuntimeEnvelope;
        if (envelope.sender.id !== c.agentId) throw new LineUpError("sender_not_allowed", "sender.id is not the agent", { path: "/envelope/sender/id" });
        if (s.envelopeIds.has(envelope.id)) throw new LineUpError("duplicate_message", `envelope ${envelope.id} is already in the session`);
        s.envelopeIds.add(envelope.id);
        const seq = this.append(s.session.session_id, "envelope", agent, { envelope: envelope as unknown as JsonObject });
        queueMicrotask(() => this.onAgentEnvelope(s.session.session_id, envelope));
        return { envelope_id: envelope.id, seq };
      }
      default:
        throw new LineUpError("method_not_found", `the fake does not implement ${method}`);
    }
  }
}

const ERROR_RETRYABLE = new Set(["overloaded", "internal_error", "store_write_failed"]);

/** A tool summary as the device would publish it. */
export function tool(app_scope: string, method: string, extra: Partial<InventoryTool> = {}): InventoryTool {
  return {
    app_scope,
    method,
    contract_version: "1",
    title: method,
    description: `${method} of ${app_scope}`,
    input_schema: { type: "object", properties: {}, additionalProperties: true },
    call_model: "command",
    ...extra,
  };
}
