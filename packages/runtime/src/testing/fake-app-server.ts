/**
 * An in-memory fake of the App Server's device face (docs/app-server-protocol.md), for Runtime tests
 * before and beside the reference server: sessions with gapless seq logs, subscribe-after-cursor with the
 * caughtUp seam, idempotent writes (same key + same body → the first outcome; other body →
 * `idempotency_conflict`), ordered writes (`after_key` → `predecessor_pending` until the named write has
 * an outcome), and the agent's side as direct calls. Faults for model tests: drop the next request(s) or
 * response(s) unseen, refuse the next request(s) with a retryable code, close every connection, restart.
 */
import {
  APP_SERVER_PROTOCOL_VERSION,
  DEFAULT_SERVER_LIMITS,
  base64ToBytes,
  bytesToBase64,
  canonicalJson,
  decodeJsonRpc,
  isActivityEvent,
  encodeJsonRpc,
  jsonRpcFailure,
  jsonRpcNotification,
  jsonRpcSuccess,
  validateRequestParams,
  type ErrorCode,
  type JsonObject,
  type JsonRpcRequest,
  type JsonValue,
  type Session,
  type SessionEvent,
} from "@lineup/protocol";
import type { TransportConnection } from "../communication/transport.js";
import { createMemoryTransport, type MemoryTransport } from "./memory-transport.js";
import { concatBytes } from "../core/bytes.js";
import { sha256Hex } from "../core/sha256.js";

export interface FakeServerOptions {
  readonly deviceToken?: string;
  readonly userId?: string;
  readonly deviceId?: string;
  readonly agents?: readonly string[];
  /** Timestamp source for events (deterministic by default). */
  readonly now?: () => string;
  /**
   * Announces and honours ordered writes (`after_key`, docs/app-server-protocol.md section 6). Default
   * true; false plays a server without the feature: no `features` in `initialize`, `after_key` refused.
   */
  readonly orderedWrites?: boolean;
  /** Keeps every request the server saw in `requests` (off by default: a long-lived fake would grow). */
  readonly recordRequests?: boolean;
}

/** A request the server saw (with `recordRequests`), and the code it was refused with. */
export interface SeenRequest {
  readonly method: string;
  readonly params: JsonObject;
  error?: ErrorCode;
}

interface StoredSession {
  session: Session;
  readonly events: SessionEvent[];
  readonly envelopeIds: Set<string>;
  readonly actions: Map<string, { kind: string; state: "pending" | "responded"; turn_id?: string }>;
  /** Every turn by id with its state, in start order (one runs at a time, the rest wait queued). */
  readonly turns: Map<string, { state: "queued" | "running" | "completed" | "failed" | "cancelled" }>;
  /**
   * The open (running or queued) turns' ids, in start order: what the reference server's queue reads through its
   * `turns_open` index, so a long-lived session's ended turns are not walked on every start and end.
   */
  readonly open: Set<string>;
  /** The latest published inventory (revision 0: none yet). */
  inventory?: { revision: number; tools: JsonValue };
  /** Artifacts uploaded (`artifact/put`), complete or still arriving, by id. */
  readonly artifacts: Map<string, { readonly ref: { artifact_id: string; name: string; mime_type: string; size: number; sha256: string }; readonly chunks: Uint8Array[]; received: number; complete: boolean }>;
}

class Refusal extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface AppliedWrite {
  readonly method: string;
  readonly idempotency_key: string;
  readonly session_id: string;
  readonly params: JsonObject;
}

/** A device's connection to the fake server: its transport (held back while a batch is answered), what it follows, its handshake. */
interface DeviceConnection {
  conn: TransportConnection;
  readonly subs: Map<string, number>;
  initialized: boolean;
}

export class FakeAppServer {
  readonly transport: MemoryTransport;
  readonly sessions = new Map<string, StoredSession>();
  /** Every write the server executed (not replays), in order. */
  readonly applied: AppliedWrite[] = [];
  /** Every request the server saw, in order, when `recordRequests` is on. */
  readonly requests: SeenRequest[] = [];
  private readonly idempotency = new Map<string, { body: string; response: { result?: JsonValue; error?: { code: ErrorCode; message: string } } }>();
  private readonly connections = new Set<DeviceConnection>();
  private dropRequests = 0;
  private dropResponses = 0;
  private refuseRequests = 0;
  private refuseCode: ErrorCode = "overloaded";
  private counter = 0;
  /** Whether each agent is connected, once a test says so (`setAgentConnected`); unsaid: no presence is sent. */
  private readonly agentPresence = new Map<string, boolean>();
  private readonly now: () => string;
  readonly deviceToken: string;

  constructor(private readonly options: FakeServerOptions = {}) {
    this.deviceToken = options.deviceToken ?? "device-token";
    this.now = options.now ?? (() => new globalThis.Date(Date.UTC(2026, 10, 30, 6, 0, 0) + this.counter * 1000).toISOString());
    this.transport = createMemoryTransport((conn) => this.accept(conn));
  }

  get openConnections(): number {
    return this.connections.size;
  }

  /** The next `n` requests are lost before the server sees them. */
  dropNextRequests(n: number): void {
    this.dropRequests += n;
  }

  /** The next `n` requests are executed, but their responses are lost. */
  dropNextResponses(n: number): void {
    this.dropResponses += n;
  }

  /** The next `n` requests other than `initialize` and `agentSession/subscribe` are refused with `code` (default `overloaded`, retryable), neither executed nor stored. */
  refuseNextRequests(n: number, code: ErrorCode = "overloaded"): void {
    this.refuseRequests += n;
    this.refuseCode = code;
  }

  /** Forgets pending request/response drops and refusals. */
  clearFaults(): void {
    this.dropRequests = 0;
    this.dropResponses = 0;
    this.refuseRequests = 0;
  }

  /** Closes every connection (the network dropped or the server restarted); data stays. */
  disconnectAll(): void {
    this.transport.dropAll();
  }

  // --- the agent's side, as direct calls -------------------------------------------------

  createSession(fields: { session_id: string; agent_id: string; app_scope?: string; workspace_id?: string; title?: string }): Session {
    const session: Session = {
      session_id: fields.session_id,
      app_scope: fields.app_scope ?? "chat",
      workspace_id: fields.workspace_id ?? "w-1",
      owner_user_id: this.options.userId ?? "user-1",
      agent_id: fields.agent_id,
      ...(fields.title === undefined ? {} : { title: fields.title }),
      state: "active",
      created_at: this.now(),
      last_seq: 0,
      inventory_revision: 0,
    };
    this.sessions.set(session.session_id, { session, events: [], envelopeIds: new Set(), actions: new Map(), turns: new Map(), open: new Set(), artifacts: new Map() });
    this.append(session.session_id, "session.started", { role: "device", id: this.options.deviceId ?? "device-1" }, { session: session as unknown as JsonValue });
    return session;
  }

  /** Appends an event to a session's log and sends it to every follower at its cursor. */
  append(sessionId: string, kind: SessionEvent["kind"], actor: { role: "device" | "agent" | "server"; id: string }, data: JsonObject): SessionEvent {
    const stored = this.sessions.get(sessionId);
    if (stored === undefined) throw new Refusal("session_not_found", `no session ${sessionId}`);
    this.counter += 1;
    const event = { session_id: sessionId, seq: stored.events.length + 1, kind, created_at: this.now(), actor, data } as unknown as SessionEvent;
    stored.events.push(event);
    // As the AppServer keeps it: the head, and when something was last said (`Session.active_at`).
    stored.session = { ...stored.session, last_seq: event.seq, ...(isActivityEvent(kind, data) ? { active_at: event.created_at } : {}) };
    for (const connection of this.connections) {
      const cursor = connection.subs.get(sessionId);
      if (cursor === event.seq - 1) {
        connection.subs.set(sessionId, event.seq);
        connection.conn.send(encodeJsonRpc(jsonRpcNotification("agentSession/event", event as unknown as JsonObject)));
      }
    }
    return event;
  }

  /** The agent connects or goes away: every device subscription of its sessions hears `agentSession/presence`. */
  setAgentConnected(agentId: string, connected: boolean): void {
    this.agentPresence.set(agentId, connected);
    for (const connection of this.connections) {
      for (const sessionId of connection.subs.keys()) this.sendPresence(connection.conn, sessionId);
    }
  }

  private sendPresence(conn: TransportConnection, sessionId: string): void {
    const agentId = this.sessions.get(sessionId)?.session.agent_id;
    const connected = agentId === undefined ? undefined : this.agentPresence.get(agentId);
    if (connected === undefined) return;
    conn.send(encodeJsonRpc(jsonRpcNotification("agentSession/presence", { session_id: sessionId, agent_id: agentId!, connected })));
  }

  agentSays(sessionId: string, text: string, turnId?: string): SessionEvent {
    const agent = this.sessions.get(sessionId)!.session.agent_id;
    return this.append(sessionId, "envelope", { role: "agent", id: agent }, {
      envelope: {
        v: 1,
        id: `env-${++this.counter}`,
        type: "lineup.message",
        timestamp: this.now(),
        sender: { kind: "agent", id: agent },
        target: { kind: "app", app_scope: "chat" },
        scope: { app_scope: "chat", conversation_id: sessionId },
        ...(turnId === undefined ? {} : { correlation: { reply_to: turnId } }),
        payload: { format: "markdown", text },
      },
    });
  }

  agentEnvelope(sessionId: string, envelope: JsonObject, actorId?: string): SessionEvent {
    const agent = actorId ?? this.sessions.get(sessionId)!.session.agent_id;
    return this.append(sessionId, "envelope", { role: "agent", id: agent }, { envelope });
  }

  /** The agent shares a file in the session (its upload complete): `artifact.added`, and `artifact/read` serves it. */
  agentArtifact(sessionId: string, artifact: { artifact_id: string; name: string; mime_type: string; bytes: Uint8Array }): SessionEvent {
    const stored = this.sessions.get(sessionId)!;
    const ref = { artifact_id: artifact.artifact_id, name: artifact.name, mime_type: artifact.mime_type, size: artifact.bytes.byteLength, sha256: sha256Hex(artifact.bytes) };
    stored.artifacts.set(artifact.artifact_id, { ref, chunks: [artifact.bytes], received: artifact.bytes.byteLength, complete: true });
    return this.append(sessionId, "artifact.added", { role: "agent", id: stored.session.agent_id }, { artifact: ref });
  }

  agentRequestsAction(sessionId: string, action: { action_id: string; kind: "approval" | "choice" | "input"; prompt: string; options?: { id: string; label: string }[] }): SessionEvent {
    const stored = this.sessions.get(sessionId)!;
    stored.actions.set(action.action_id, { kind: action.kind, state: "pending" });
    const record = { ...action, session_id: sessionId, state: "pending", requested_at: this.now() };
    return this.append(sessionId, "action.required", { role: "agent", id: stored.session.agent_id }, { action: record as unknown as JsonValue });
  }

  /** A turn's state as the server has it (undefined: no such turn). */
  turnState(sessionId: string, turnId: string): "queued" | "running" | "completed" | "failed" | "cancelled" | undefined {
    return this.sessions.get(sessionId)?.turns.get(turnId)?.state;
  }

  /** The agent reports on its running turn (`turn.updated`). */
  agentUpdatesTurn(sessionId: string, turnId: string, update: JsonObject): SessionEvent {
    const stored = this.sessions.get(sessionId)!;
    if (stored.turns.get(turnId)?.state !== "running") throw new Refusal("invalid_state", `turn ${turnId} is not running`);
    return this.append(sessionId, "turn.updated", { role: "agent", id: stored.session.agent_id }, { turn_id: turnId, ...update });
  }

  /** The agent completes its running turn (`turn.completed`); the next queued turn runs. */
  agentCompletesTurn(sessionId: string, turnId: string, text?: string, output?: JsonValue): SessionEvent {
    const stored = this.sessions.get(sessionId)!;
    const turn = stored.turns.get(turnId);
    if (turn?.state !== "running") throw new Refusal("invalid_state", `turn ${turnId} is not running`);
    turn.state = "completed";
    stored.open.delete(turnId);
    const data: JsonObject = { turn_id: turnId, ...(text === undefined ? {} : { text }), ...(output === undefined ? {} : { output }) };
    const event = this.append(sessionId, "turn.completed", { role: "agent", id: stored.session.agent_id }, data);
    this.activateNext(sessionId);
    return event;
  }

  /** The agent fails its running turn (`turn.failed`); the next queued turn runs. */
  agentFailsTurn(sessionId: string, turnId: string, error: { code: string; message: string }): SessionEvent {
    const stored = this.sessions.get(sessionId)!;
    const turn = stored.turns.get(turnId);
    if (turn?.state !== "running") throw new Refusal("invalid_state", `turn ${turnId} is not running`);
    turn.state = "failed";
    stored.open.delete(turnId);
    const event = this.append(sessionId, "turn.failed", { role: "agent", id: stored.session.agent_id }, { turn_id: turnId, error });
    this.activateNext(sessionId);
    return event;
  }

  /** After the running turn ended, the oldest queued one runs (`turn.activated`), as the reference server does. */
  private activateNext(sessionId: string): void {
    const stored = this.sessions.get(sessionId)!;
    let next: string | undefined;
    for (const turnId of stored.open) {
      const state = stored.turns.get(turnId)!.state;
      if (state === "running") return;
      next ??= turnId;
    }
    if (next === undefined) return;
    stored.turns.get(next)!.state = "running";
    this.append(sessionId, "turn.activated", { role: "server", id: "server" }, { turn_id: next });
  }

  /** The texts of every turn the device started in `sessionId`, in log order. */
  turnTexts(sessionId: string): string[] {
    return (this.sessions.get(sessionId)?.events ?? [])
      .filter((e) => e.kind === "turn.started")
      .map((e) => ((e.data as unknown as { turn: { input: { text?: string } } }).turn.input.text ?? ""));
  }

  // --- the device face over the wire ------------------------------------------------------

  private accept(conn: TransportConnection): void {
    const connection: DeviceConnection = { conn, subs: new Map<string, number>(), initialized: false };
    this.connections.add(connection);
    conn.onClose(() => this.connections.delete(connection));
    conn.onMessage((text) => {
      if (this.dropRequests > 0) {
        this.dropRequests -= 1;
        return;
      }
      const decoded = decodeJsonRpc(text, { maxBatch: DEFAULT_SERVER_LIMITS.max_batch });
      if (decoded.kind === "invalid") return conn.send(encodeJsonRpc(decoded.response));
      const reply = (message: string): void => {
        if (this.dropResponses > 0) {
          this.dropResponses -= 1;
          return;
        }
        conn.send(message);
      };
      if (decoded.kind === "single") {
        const item = decoded.item;
        if (item.kind === "invalid") return conn.send(encodeJsonRpc(item.response));
        if (item.kind === "request") this.handle(connection, item.message, reply);
        return;
      }
      // A batch, as the AppServer answers one: every answer in one frame, in order, then what the requests send
      // besides (a subscription's catch-up). Each request is handled at once here, so all are answered together.
      const answers: string[] = [];
      const after: string[] = [];
      connection.conn = { send: (frame) => void after.push(frame), onMessage: (listener) => conn.onMessage(listener), onClose: (listener) => conn.onClose(listener), close: (code, reason) => conn.close(code, reason) };
      try {
        for (const item of decoded.items) {
          if (item.kind === "invalid") answers.push(encodeJsonRpc(item.response));
          else if (item.kind === "request") this.handle(connection, item.message, (answer) => void answers.push(answer));
        }
      } finally {
        connection.conn = conn;
      }
      if (answers.length > 0) reply(`[${answers.join(",")}]`);
      for (const frame of after) conn.send(frame);
    });
  }

  private handle(connection: DeviceConnection, request: JsonRpcRequest, reply: (text: string) => void): void {
    const role = connection.initialized ? "device" : undefined;
    const params = (request.params ?? {}) as JsonObject;
    const seen: SeenRequest | undefined = this.options.recordRequests === true ? { method: request.method, params } : undefined;
    if (seen !== undefined) this.requests.push(seen);
    const checked = validateRequestParams(request.method, role, request.params);
    if (!checked.ok) {
      if (seen !== undefined) seen.error = checked.error.code;
      return reply(encodeJsonRpc(jsonRpcFailure(request.id, checked.error)));
    }
    try {
      if (request.method === "initialize") {
        if (params["token"] !== this.deviceToken) throw new Refusal("unauthorized", "unknown token");
        connection.initialized = true;
        return reply(
          encodeJsonRpc(
            jsonRpcSuccess(request.id, {
              protocol_version: APP_SERVER_PROTOCOL_VERSION,
              server_info: { name: "fake-app-server", version: "0.0.0" },
              role: "device",
              identity: { user_id: this.options.userId ?? "user-1", device_id: this.options.deviceId ?? "device-1" },
              limits: DEFAULT_SERVER_LIMITS as unknown as JsonValue,
              server_time: this.now(),
              ...(this.options.orderedWrites === false ? {} : { features: ["program-order", "ordered-writes"] }),
            }),
          ),
        );
      }
      if (request.method === "agentSession/subscribe") {
        const sessionId = String(params["session_id"]);
        const stored = this.visible(sessionId);
        const after = Number(params["after_seq"]);
        const head = stored.events.length;
        if (after > head) throw new Refusal("cursor_invalid", `after_seq ${after} is beyond the head ${head}`);
        reply(encodeJsonRpc(jsonRpcSuccess(request.id, { session_id: sessionId, after_seq: after, head_seq: head })));
        connection.subs.set(sessionId, head);
        this.sendPresence(connection.conn, sessionId);
        for (const event of stored.events.slice(after, head)) connection.conn.send(encodeJsonRpc(jsonRpcNotification("agentSession/event", event as unknown as JsonObject)));
        connection.conn.send(encodeJsonRpc(jsonRpcNotification("agentSession/caughtUp", { session_id: sessionId, seq: head })));
        return;
      }
      if (this.refuseRequests > 0) {
        this.refuseRequests -= 1;
        throw new Refusal(this.refuseCode, "refused by an injected fault");
      }
      const result = this.execute(request.method, params);
      reply(encodeJsonRpc(jsonRpcSuccess(request.id, result)));
    } catch (error) {
      const refusal = error instanceof Refusal ? error : new Refusal("internal_error", String(error));
      if (seen !== undefined) seen.error = refusal.code;
      reply(encodeJsonRpc(jsonRpcFailure(request.id, { code: refusal.code, message: refusal.message })));
    }
  }

  private visible(sessionId: string): StoredSession {
    const stored = this.sessions.get(sessionId);
    if (stored === undefined) throw new Refusal("session_not_found", `no session ${sessionId}`);
    return stored;
  }

  private execute(method: string, params: JsonObject): JsonValue {
    switch (method) {
      case "agentSession/list":
        return { sessions: [...this.sessions.values()].map((s) => s.session as unknown as JsonValue).reverse() };
      case "agentSession/unsubscribe":
        return { session_id: String(params["session_id"]), was_subscribed: false };
      case "artifact/read": {
        const sessionId = String(params["session_id"]);
        const stored = this.visible(sessionId);
        const upload = stored.artifacts.get(String(params["artifact_id"]));
        if (upload === undefined || !upload.complete) throw new Refusal("not_found", `no complete artifact ${String(params["artifact_id"])}`);
        const offset = Number(params["offset"] ?? 0);
        if (offset > upload.ref.size) throw new Refusal("invalid_params", `offset ${offset} is past the size ${upload.ref.size}`);
        const length = Math.min(Number(params["length"] ?? DEFAULT_SERVER_LIMITS.max_chunk_bytes), DEFAULT_SERVER_LIMITS.max_chunk_bytes);
        const part = (upload.chunks.length === 1 ? upload.chunks[0]! : concatBytes(upload.chunks)).subarray(offset, offset + length);
        return { artifact: upload.ref, offset, data: bytesToBase64(part), eof: offset + part.byteLength >= upload.ref.size };
      }
      default:
        return this.write(method, params);
    }
  }

  /** A write: replayed by key (same body → same outcome, other body → conflict), else executed once. */
  private write(method: string, params: JsonObject): JsonValue {
    const { idempotency_key: key, after_key: after, ...rest } = params;
    // The body's fingerprint, as the real server keeps it (a long-lived fake does not hold every body);
    // neither key is part of the body.
    const body = sha256Hex(canonicalJson({ method, params: rest }));
    const seen = this.idempotency.get(String(key));
    if (seen !== undefined) {
      if (seen.body !== body) throw new Refusal("idempotency_conflict", `idempotency key ${String(key)} was used with a different request`);
      if (seen.response.error !== undefined) throw new Refusal(seen.response.error.code, seen.response.error.message);
      return seen.response.result!;
    }
    if (after !== undefined) {
      if (this.options.orderedWrites === false) throw new Refusal("invalid_params", "after_key is not supported by this server");
      // Not stored: the same request may come again once its predecessor has an outcome.
      if (!this.idempotency.has(String(after))) throw new Refusal("predecessor_pending", `the write with idempotency key ${String(after)} has no outcome yet`);
    }
    try {
      const result = this.apply(method, params);
      this.idempotency.set(String(key), { body, response: { result } });
      this.applied.push({ method, idempotency_key: String(key), session_id: String(params["session_id"] ?? ""), params: rest });
      return result;
    } catch (error) {
      if (error instanceof Refusal && error.code !== "session_not_found") this.idempotency.set(String(key), { body, response: { error: { code: error.code, message: error.message } } });
      throw error;
    }
  }

  private apply(method: string, params: JsonObject): JsonValue {
    const device = { role: "device" as const, id: this.options.deviceId ?? "device-1" };
    switch (method) {
      case "agentSession/start": {
        const sessionId = String(params["session_id"]);
        const existing = this.sessions.get(sessionId);
        if (existing !== undefined) return { session: existing.session as unknown as JsonValue, created: false };
        if (!(this.options.agents ?? ["agent-1"]).includes(String(params["agent_id"]))) throw new Refusal("not_found", `no agent ${String(params["agent_id"])}`);
        const session = this.createSession({
          session_id: sessionId,
          agent_id: String(params["agent_id"]),
          app_scope: String(params["app_scope"]),
          workspace_id: String(params["workspace_id"]),
          ...(params["title"] === undefined ? {} : { title: String(params["title"]) }),
        });
        return { session: this.sessions.get(session.session_id)!.session as unknown as JsonValue, created: true };
      }
      case "agentSession/turn/start": {
        const sessionId = String(params["session_id"]);
        this.visible(sessionId);
        const stored = this.sessions.get(sessionId)!;
        const startedSeq = stored.events.length + 1;
        const turnId = String(params["turn_id"] ?? `t-${this.counter}`);
        if (stored.turns.has(turnId)) throw new Refusal("invalid_state", `turn ${turnId} already exists`);
        const state = stored.open.size > 0 ? "queued" : "running";
        stored.turns.set(turnId, { state });
        stored.open.add(turnId);
        const turn = {
          turn_id: turnId,
          session_id: sessionId,
          state,
          queue: params["queue"] === "interrupt" ? "interrupt" : "enqueue",
          input: params["input"]!,
          ...(params["output_schema"] === undefined ? {} : { output_schema: params["output_schema"] }),
          ...(params["options"] === undefined ? {} : { options: params["options"] }),
          created_at: this.now(),
          updated_at: this.now(),
          started_seq: startedSeq,
        };
        const event = this.append(sessionId, "turn.started", device, { turn: turn as unknown as JsonValue });
        return { turn: turn as unknown as JsonValue, seq: event.seq };
      }
      case "agentSession/turn/cancel": {
        const sessionId = String(params["session_id"]);
        const stored = this.visible(sessionId);
        const turnId = String(params["turn_id"]);
        const turn = stored.turns.get(turnId);
        if (turn === undefined) throw new Refusal("not_found", `no turn ${turnId} in session ${sessionId}`);
        if (turn.state !== "running" && turn.state !== "queued") throw new Refusal("invalid_state", `turn ${turnId} is already ${turn.state}`);
        const wasRunning = turn.state === "running";
        turn.state = "cancelled";
        stored.open.delete(turnId);
        const event = this.append(sessionId, "turn.cancelled", device, { turn_id: turnId, reason: "cancelled" });
        if (wasRunning) this.activateNext(sessionId);
        return { turn: { turn_id: turnId, session_id: sessionId, state: "cancelled", cancel_reason: "cancelled" } as JsonValue, seq: event.seq };
      }
      case "agentSession/action/respond": {
        const sessionId = String(params["session_id"]);
        const stored = this.visible(sessionId);
        const action = stored.actions.get(String(params["action_id"]));
        if (action === undefined) throw new Refusal("not_found", `no action ${String(params["action_id"])}`);
        if (action.state !== "pending") throw new Refusal("invalid_state", "the action was already answered");
        action.state = "responded";
        const event = this.append(sessionId, "action.responded", device, { action_id: String(params["action_id"]), response: params["response"]! });
        return { action: { action_id: String(params["action_id"]), state: "responded" } as JsonValue, seq: event.seq };
      }
      case "agentSession/envelope/send": {
        const sessionId = String(params["session_id"]);
        const stored = this.visible(sessionId);
        const envelope = params["envelope"] as JsonObject;
        const id = String(envelope["id"]);
        if (stored.envelopeIds.has(id)) throw new Refusal("duplicate_message", `envelope ${id} is already in the session`);
        stored.envelopeIds.add(id);
        const event = this.append(sessionId, "envelope", device, { envelope });
        return { envelope_id: id, seq: event.seq };
      }
      case "inventory/publish": {
        const sessionId = String(params["session_id"]);
        const stored = this.visible(sessionId);
        const revision = Number(params["revision"]);
        if (revision <= (stored.inventory?.revision ?? 0)) throw new Refusal("stale_inventory_revision", `revision ${revision} is not newer than ${stored.inventory?.revision ?? 0}`);
        stored.inventory = { revision, tools: params["tools"] ?? [] };
        stored.session = { ...stored.session, inventory_revision: revision };
        const contents: JsonObject = {};
        for (const k of ["apps", "components", "surfaces", "capabilities"] as const) if (params[k] !== undefined) contents[k] = params[k];
        const event = this.append(sessionId, "inventory.published", device, { revision, tools: params["tools"] ?? [], ...contents });
        return { session_id: sessionId, revision, seq: event.seq };
      }
      case "artifact/put": {
        // As the reference server: chunks in order, the one that reaches `size` checked against the SHA-256.
        const sessionId = String(params["session_id"]);
        const stored = this.visible(sessionId);
        const artifactId = String(params["artifact_id"]);
        const bytes = base64ToBytes(String(params["data"]));
        if (bytes === undefined) throw new Refusal("invalid_params", "data is not base64");
        const ref = { artifact_id: artifactId, name: String(params["name"]), mime_type: String(params["mime_type"]), size: Number(params["size"]), sha256: String(params["sha256"]) };
        let upload = stored.artifacts.get(artifactId);
        if (upload === undefined) {
          if (Number(params["offset"]) !== 0) throw new Refusal("invalid_state", `no upload of ${artifactId} yet: start at offset 0`);
          stored.artifacts.set(artifactId, (upload = { ref, chunks: [], received: 0, complete: false }));
        }
        if (upload.complete) throw new Refusal("invalid_state", `artifact ${artifactId} is already complete`);
        if (Number(params["offset"]) !== upload.received) throw new Refusal("invalid_state", `expected offset ${upload.received}`);
        upload.chunks.push(bytes);
        upload.received += bytes.byteLength;
        if (upload.received < ref.size) return { artifact_id: artifactId, received: upload.received, complete: false };
        if (sha256Hex(concatBytes(upload.chunks)) !== ref.sha256) throw new Refusal("invalid_params", "the content does not match sha256");
        upload.complete = true;
        const event = this.append(sessionId, "artifact.added", device, { artifact: upload.ref });
        return { artifact_id: artifactId, received: upload.received, complete: true, artifact: upload.ref, seq: event.seq };
      }
      case "evidence/export": {
        // A stand-in for the reference server's pack: a stored artifact of the session, named by the export.
        const sessionId = String(params["session_id"]);
        const stored = this.visible(sessionId);
        const through = stored.events.length;
        const exportId = `export-${this.applied.filter((w) => w.method === "evidence/export").length + 1}`;
        const text = JSON.stringify({ format: "fake-evidence", session_id: sessionId, through_seq: through, ...(params["task_id"] === undefined ? {} : { task_id: params["task_id"] }) });
        const bytes = new TextEncoder().encode(text);
        const artifact = { artifact_id: `art-${exportId}`, name: `${exportId}.json`, mime_type: "application/json", size: bytes.byteLength, sha256: sha256Hex(bytes) };
        stored.artifacts.set(artifact.artifact_id, { ref: artifact, chunks: [bytes], received: bytes.byteLength, complete: true });
        const pack = { export_id: exportId, through_seq: through, ...(params["task_id"] === undefined ? {} : { task_id: String(params["task_id"]) }), artifact, pack_digest: sha256Hex(bytes) };
        // Recorded in the log as the reference server does: the pack is a file of the conversation.
        const event = this.append(sessionId, "evidence.exported", device, pack);
        return { ...pack, session_id: sessionId, seq: event.seq };
      }
      default:
        throw new Refusal("method_not_found", `the fake does not implement ${method}`);
    }
  }

  /** The bytes of a complete artifact uploaded to session `sessionId`, or undefined. */
  artifactBytes(sessionId: string, artifactId: string): Uint8Array | undefined {
    const upload = this.sessions.get(sessionId)?.artifacts.get(artifactId);
    return upload === undefined || !upload.complete ? undefined : concatBytes(upload.chunks);
  }
}

