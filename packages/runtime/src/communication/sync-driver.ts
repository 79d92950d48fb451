/**
 * The connection shell: owns the Transport connection and the JSON-RPC client, and turns what happens on
 * the wire into loop inputs (lifecycle facts, listed sessions, events, seams, outbox outcomes). It runs
 * the effects the transitions ask for: subscribe after a cursor, re-list, flush the outbox. It decides
 * nothing about state; the transitions do.
 *
 * Connect: open → `initialize` (token) → `initialized` → synchronizing → list every session page →
 * subscribe each after its stored cursor. On a drop: reconnecting, then a new attempt after an
 * exponential, fully jittered backoff; `offline_degraded` after repeated failures (the outbox keeps
 * accepting actions meanwhile).
 */
import {
  APP_SERVER_PROTOCOL_VERSION,
  base64ToBytes,
  checkServerNotificationParams,
  isRecord,
  LineUpError,
  validateSessionEvent,
  validateSessionEventFrame,
  type ArtifactRef,
  type BatchLimits,
  type CatalogRelease,
  type SessionEvent,
  type ErrorCode,
  type JsonObject,
  type JsonValue,
  type MethodParams,
  type MethodResult,
  type Session,
  type TenantSettings,
} from "@lineup/protocol";
import type { DiagnosticsSink } from "../core/emitter.js";
import { concatBytes } from "../core/bytes.js";
import { sha256Hex } from "../app-lifecycle/bundle/digest.js";
import type { Clock, IdSource } from "../core/ports.js";
import type { Effect, RuntimeInput } from "../coordination/inputs.js";
import type { Lifecycle } from "../coordination/lifecycle.js";
import { conversationsToFollow, type RuntimeState } from "../coordination/state.js";
import { toLineUpError } from "../coordination/loop.js";
import { echoedHere } from "../coordination/handlers/outbox-settled.js";
import { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from "./backoff.js";
import { OUTBOX_PIPELINE_DEPTH, TRANSIENT_CODES, nextSendable, type OutboxEntry } from "./outbox.js";
import { createRpcClient, type RpcClient } from "./rpc-client.js";
import type { Transport } from "./transport.js";

/** One message a frame: before a server's limits are known. */
const NO_BATCH: BatchLimits = { maxBatch: 1, maxBytes: Number.POSITIVE_INFINITY };

/** Sessions whose catch-up may run at once on one connection (`SyncDriver.catchingUp`). */
export const SUBSCRIPTIONS_CATCHING_UP = 64;

export interface SyncDriverOptions {
  readonly transport: Transport;
  readonly serverUrl: string;
  readonly token: string;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly diagnostics: DiagnosticsSink;
  readonly post: (input: RuntimeInput) => Promise<JsonValue | undefined>;
  readonly state: () => RuntimeState;
  readonly backoff?: BackoffPolicy;
  readonly requestTimeoutMs?: number;
  /** How often sessions are re-listed while online, to follow sessions started elsewhere. Default 30 000; 0 disables. */
  readonly relistIntervalMs?: number;
  readonly clientInfo?: { readonly name: string; readonly version?: string };
  /** The tenant settings of each `initialize` (undefined: the user has no tenant), before synchronizing starts. */
  readonly onTenant?: (tenant: TenantSettings | undefined) => Promise<void> | void;
  /** A release the AppServer's catalog just published (`catalog/released`, a hint). */
  readonly onCatalogRelease?: (release: CatalogRelease) => void;
}

/** A connection with its `initialize` sent: the answer is awaited by whoever takes it over. */
interface Handshake {
  readonly rpc: RpcClient;
  /**
   * `initialize`'s answer, checked (a device token), with the session list asked for as soon as it came: on a
   * `preconnect()`ed connection the list's round trip overlaps the restore rather than following it.
   */
  readonly ready: Promise<{ readonly init: MethodResult<"initialize">; readonly listing: Promise<Session[]> }>;
  /** `initialize`'s answer once it came (checked as `ready` checks it): a connection taken over later knows its limits at once. */
  readonly answered: { init?: MethodResult<"initialize"> };
}

/** The batches a connection's requests may go in: the server's limits, at most one window of subscriptions per frame. */
function batchLimitsOf(init: MethodResult<"initialize">): BatchLimits {
  return init.limits === undefined ? NO_BATCH : { maxBatch: Math.max(1, Math.min(SUBSCRIPTIONS_CATCHING_UP, init.limits.max_batch)), maxBytes: init.limits.max_message_bytes };
}

export class SyncDriver {
  private rpc: RpcClient | undefined;
  private stopped = false;
  private failures = 0;
  private cancelTimer: () => void = () => undefined;
  private cancelRelist: () => void = () => undefined;
  private cancelOutboxRetry: () => void = () => undefined;
  /** Per conversation, the orders of its entries in flight (sent, not answered yet). */
  private readonly inFlight = new Map<string, Set<number>>();
  /** Entries the server applied whose outcome is being committed: not sent again meanwhile. */
  private readonly settling = new Set<number>();
  /**
   * This Runtime's own envelopes whose echo in the log is being applied, by envelope id, until that turn is
   * over: its commit settles their outbox entry (handlers/outbox-settled.ts), so the send's answer waits for
   * it instead of taking a turn of its own.
   */
  private readonly echoes = new Map<string, Promise<void>>();
  /** Entries that failed in a way worth retrying: they (and their conversation's later entries) wait for the retry timer. */
  private readonly retrying = new Set<number>();
  /** Entries refused with `predecessor_pending`: they go again once no earlier entry of theirs is in flight. */
  private readonly awaitingPredecessor = new Set<number>();
  /** Entries a conversation may have in flight on this connection: OUTBOX_PIPELINE_DEPTH when the server announced ordered writes. */
  private depth = 1;
  private readonly held = (entry: OutboxEntry): boolean =>
    this.retrying.has(entry.order) || (this.awaitingPredecessor.has(entry.order) && this.earlierInFlight(entry) !== undefined);
  private readonly subscribing = new Map<string, boolean>();
  /**
   * Sessions subscribed on this connection whose catch-up has not ended (no `caughtUp` yet), at most
   * SUBSCRIPTIONS_CATCHING_UP; the others wait in `waitingToSubscribe`, oldest first. A device following many
   * conversations would otherwise start every catch-up at once and fill the connection's send queue on the server,
   * which refuses the subscriptions past it as `overloaded`.
   */
  private readonly catchingUp = new Set<string>();
  private readonly waitingToSubscribe = new Set<string>();
  /**
   * What one frame may carry on this connection: the server's `limits.max_batch` (at most SUBSCRIPTIONS_CATCHING_UP)
   * and `max_message_bytes`; one message until its handshake is answered (nothing batched).
   */
  private batchLimits: BatchLimits = NO_BATCH;
  /** The subscriptions asked for in this turn of the event loop, sent together when it ends (`askSoon`). */
  private asking: (() => void)[] | undefined;
  private connecting = false;

  /** The connection `preconnect()` opened, with its `initialize` under way, until `start()` takes it over. */
  private early: Promise<Handshake> | undefined;
  /** Notifications of that connection that arrived before `start()`: handled, in order, once it is taken over. */
  private heldNotifications: (() => void)[] | undefined;
  /**
   * The subscriptions asked for right behind the handshake on this connection (`subscribeEarly`), by session, with the
   * cursor each was asked after: the session list's turn then subscribes those sessions as always, and takes these
   * requests over instead of sending them again.
   */
  private readonly earlySubscriptions = new Map<string, { readonly afterSeq: number; readonly answer: Promise<unknown> }>();

  constructor(private readonly options: SyncDriverOptions) {}

  /**
   * Opens the connection and sends `initialize` while the caller still restores the state, so that `start()` finds
   * the handshake done or under way. Nothing reaches the loop before `start()`: notifications are held until then
   * (and handled, each checked as always, when it takes the connection over); a connection that fails meanwhile is
   * a failed first attempt of `start()`, which backs off and tries again as any other.
   */
  preconnect(): void {
    if (this.stopped || this.early !== undefined) return;
    this.heldNotifications = [];
    this.early = this.handshake();
    this.early.catch(() => undefined);
  }

  start(): void {
    void this.connect();
  }

  /** Closes the connection and cancels every timer; nothing is posted after this. */
  stop(): void {
    this.stopped = true;
    this.cancelTimer();
    this.cancelRelist();
    this.cancelOutboxRetry();
    for (const cancel of this.resyncs.values()) cancel();
    this.resyncs.clear();
    this.rpc?.close();
    this.rpc = undefined;
    void this.early?.then(({ rpc }) => rpc.close(), () => undefined);
    this.early = undefined;
    this.heldNotifications = undefined;
  }

  /** Runs one effect of a committed turn. Never throws. */
  run(effect: Effect): void {
    if (this.stopped) return;
    switch (effect.kind) {
      case "subscribe":
        return this.subscribe(effect.session_id);
      case "relist":
        void this.relist();
        return;
      case "outbox.flush":
        return this.flushSoon();
      case "lifecycle.changed":
        return this.onLifecycle(effect.lifecycle);
    }
  }

  /**
   * Exports an evidence pack of conversation `sessionId` (with `taskId`, through that task's last event) on the
   * AppServer (`evidence/export`). Refused `request_cancelled` while not connected.
   */
  async exportEvidence(sessionId: string, idempotencyKey: string, taskId?: string): Promise<{ export_id: string; conversation_id: string; through_seq: number; artifact: ArtifactRef; pack_digest: string }> {
    const rpc = this.rpc;
    if (rpc === undefined || rpc.closed) throw new LineUpError("request_cancelled", "not connected to the AppServer: evidence can be exported once online");
    const params = { session_id: sessionId, idempotency_key: idempotencyKey, ...(taskId === undefined ? {} : { task_id: taskId }) };
    const result = (await rpc.request("evidence/export", params as never)) as unknown as { export_id: string; through_seq: number; artifact: ArtifactRef; pack_digest: string };
    return { export_id: result.export_id, conversation_id: sessionId, through_seq: result.through_seq, artifact: result.artifact, pack_digest: result.pack_digest };
  }

  /**
   * An artifact of conversation `sessionId` as the AppServer holds it (one the agent or another device
   * shared), read chunk by chunk from the start: at most `maxBytes` bytes, and, read whole, checked
   * against its SHA-256. Refused `request_cancelled` while not connected; `not_found` as the server says.
   */
  async readServerArtifact(sessionId: string, artifactId: string, maxBytes: number): Promise<{ artifact: ArtifactRef; bytes: Uint8Array; truncated: boolean }> {
    const rpc = this.rpc;
    if (rpc === undefined || rpc.closed) throw new LineUpError("request_cancelled", "not connected to the AppServer: the artifact can be read once online");
    const parts: Uint8Array[] = [];
    let received = 0;
    for (;;) {
      const chunk = await rpc.request("artifact/read", { session_id: sessionId, artifact_id: artifactId, offset: received });
      const bytes = base64ToBytes(chunk.data);
      if (bytes === undefined || chunk.offset !== received) throw new LineUpError("internal_error", `the AppServer answered artifact/read of ${artifactId} with a malformed chunk`);
      parts.push(bytes);
      received += bytes.byteLength;
      const whole = chunk.eof || bytes.byteLength === 0;
      if (whole || received >= maxBytes) {
        const content = concatBytes(parts);
        // WebCrypto hashes off the loop: an artifact of up to 64 MiB does not stall the Runtime's turns.
        if (whole && (await sha256Hex(content)) !== chunk.artifact.sha256) throw new LineUpError("internal_error", `artifact ${artifactId} from the AppServer does not match its SHA-256`);
        return { artifact: chunk.artifact, bytes: content.subarray(0, maxBytes), truncated: !whole || received > maxBytes };
      }
    }
  }

  /** A read of the AppServer's catalog (`communication/catalog.ts`). Refused `request_cancelled` while not connected. */
  catalogRequest<M extends "catalog/list" | "catalog/read">(method: M, params: MethodParams<M>): Promise<MethodResult<M>> {
    const rpc = this.rpc;
    if (rpc === undefined || rpc.closed) return Promise.reject(new LineUpError("request_cancelled", "not connected to the AppServer: the catalog can be read once online"));
    return rpc.request(method, params);
  }

  /** Drops the current connection as a network failure would (tests, and `offline` hints from a host). */
  dropConnection(): void {
    this.rpc?.close();
  }

  /**
   * A host's hint that the network is back: a reconnect waiting out its backoff is tried now. A Runtime
   * that is connected or connecting is left alone, and a failed try backs off as any other.
   */
  reconnectNow(): void {
    if (this.stopped || this.connecting || this.rpc !== undefined) return;
    this.cancelTimer();
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.stopped || this.connecting) return;
    this.connecting = true;
    const attempt = this.failures;
    const early = this.early;
    this.early = undefined;
    // The Runtime runs now: what came on the early connection meanwhile is handled first, in its order.
    const held = this.heldNotifications ?? [];
    this.heldNotifications = undefined;
    for (const handle of held) handle();
    let rpc: RpcClient | undefined;
    try {
      await this.options.post({ kind: "lifecycle", to: { status: "authenticating", attempt } });
      const handshake = await (early ?? this.handshake());
      if (this.stopped) {
        handshake.rpc.close();
        return;
      }
      rpc = handshake.rpc;
      this.rpc = rpc;
      // Known already when the handshake was answered before this takeover (a restore that took longer than the answer).
      this.batchLimits = handshake.answered.init === undefined ? NO_BATCH : batchLimitsOf(handshake.answered.init);
      const current = rpc;
      rpc.onClose(() => this.onClosed(current));
      this.subscribeEarly(rpc);
      // The session list was asked for right behind `initialize`; it is posted after the tenant's settings apply and `synchronizing` commits.
      const { init, listing } = await handshake.ready;
      // Pipelining keeps a conversation's order only with the server's ordered writes (after_key).
      this.depth = init.features?.includes("ordered-writes") === true ? OUTBOX_PIPELINE_DEPTH : 1;
      this.batchLimits = batchLimitsOf(init);
      await this.options.onTenant?.(init.tenant);
      const identity = {
        ...(init.identity.user_id === undefined ? {} : { user_id: init.identity.user_id }),
        ...(init.identity.device_id === undefined ? {} : { device_id: init.identity.device_id }),
      };
      const synchronizing = await this.options.post({ kind: "lifecycle", to: { status: "synchronizing" }, identity });
      this.failures = 0;
      this.connecting = false;
      this.subscribing.clear();
      this.catchingUp.clear();
      this.waitingToSubscribe.clear();
      await this.relist(listing);
      this.releaseEarly(rpc);
      // A new identity is written after the list, so that going online never waits on its commit (handlers/lifecycle.ts).
      if (isRecord(synchronizing) && synchronizing["identity_changed"] === true) await this.saveIdentity();
    } catch (error) {
      this.connecting = false;
      // The connection is given up: what its early subscriptions brought is not for the loop.
      this.earlySubscriptions.clear();
      this.heldNotifications = undefined;
      const failure = toLineUpError(error);
      if (rpc !== undefined && this.rpc === rpc) {
        // onClosed schedules the retry.
        this.lastError = failure.code;
        rpc.close();
      } else {
        this.scheduleReconnect(failure.code);
      }
    }
  }

  /** Writes the identity the connect reported. Stopped meanwhile, it is not written: the next start's connect reports it again. */
  private async saveIdentity(): Promise<void> {
    try {
      await this.options.post({ kind: "identity.save" });
    } catch (error) {
      if (!this.stopped) this.options.diagnostics(error, "saving the identity");
    }
  }

  /** Opens a connection and sends `initialize` on it; the caller takes the connection over and awaits the answer. */
  private async handshake(): Promise<Handshake> {
    const connection = await this.options.transport.open(this.options.serverUrl);
    const rpc = createRpcClient(connection, {
      clock: this.options.clock,
      diagnostics: this.options.diagnostics,
      ...(this.options.requestTimeoutMs === undefined ? {} : { defaultTimeoutMs: this.options.requestTimeoutMs }),
      notifications: {
        "agentSession/event": (params) => this.notified(() => this.onEvent(params)),
        "agentSession/caughtUp": (params) => this.notified(() => this.onCaughtUp(params)),
        "agentSession/presence": (params) => this.notified(() => this.onPresence(params)),
        "agentSession/bound": (params) => this.notified(() => this.onBound(params)),
        "catalog/released": (params) => this.notified(() => this.onCatalogReleased(params)),
      },
    });
    const init = rpc.request("initialize", {
      protocol_version: APP_SERVER_PROTOCOL_VERSION,
      client_info: { name: this.options.clientInfo?.name ?? "lineup-runtime", version: this.options.clientInfo?.version ?? "0.1.0" },
      token: this.options.token,
    });
    // The list goes right behind `initialize`, not after its answer: the server holds it until the handshake is
    // answered, then answers it for the role the token set (not_initialized if it was refused). A start saves a
    // round trip; a list answered for another role is never used.
    const listing = this.listSessions(rpc);
    listing.catch(() => undefined);
    const answered: Handshake["answered"] = {};
    const ready = init.then((answer) => {
      if (answer.role !== "device") throw new LineUpError("unauthorized", `the token is for the ${answer.role} role; the Runtime needs a device token`);
      answered.init = answer;
      // Where the server can, its bursts (a catch-up page with its caught-up notice, presence) come in as few frames as
      // this client takes: a browser hands the page each frame on its own.
      rpc.initialized(answer.features);
      // A server that answers nothing before its handshake refused the early list (not_initialized): asked again now.
      const listed = listing.catch((error: unknown) => {
        if (toLineUpError(error).code === "not_initialized") return this.listSessions(rpc);
        throw error;
      });
      listed.catch(() => undefined);
      return { init: answer, listing: listed };
    });
    // Awaited by whoever takes the connection over; a failure meanwhile is theirs to handle.
    ready.catch(() => undefined);
    return { rpc, ready, answered };
  }

  /** A notification is handled at once, or held while a `preconnect()`ed connection waits for `start()`. */
  private notified(handle: () => void): void {
    if (this.heldNotifications === undefined) return handle();
    this.heldNotifications.push(handle);
  }

  private lastError: ErrorCode | undefined;

  private onClosed(rpc: RpcClient): void {
    if (this.rpc !== rpc) return;
    this.rpc = undefined;
    this.inFlight.clear();
    this.retrying.clear();
    this.awaitingPredecessor.clear();
    this.earlySubscriptions.clear();
    // The next connection subscribes every session again.
    this.catchingUp.clear();
    this.waitingToSubscribe.clear();
    this.cancelRelist();
    if (this.stopped) return;
    const code = this.lastError ?? "request_cancelled";
    this.lastError = undefined;
    this.connecting = false;
    this.scheduleReconnect(code);
  }

  private scheduleReconnect(code: ErrorCode): void {
    if (this.stopped) return;
    const attempt = this.failures;
    this.failures += 1;
    const policy = { ...DEFAULT_BACKOFF, ...this.options.backoff };
    const to: Lifecycle =
      this.failures > policy.degradedAfter
        ? { status: "offline_degraded", attempt, since: this.options.clock.now(), last_error: code }
        : { status: "reconnecting", attempt, since: this.options.clock.now(), last_error: code };
    void this.options.post({ kind: "lifecycle", to }).catch((error: unknown) => this.options.diagnostics(error, "lifecycle"));
    this.cancelTimer();
    this.cancelTimer = this.options.clock.setTimer(backoffDelay(attempt, () => this.options.ids.random(), policy), () => void this.connect());
  }

  private onLifecycle(lifecycle: Lifecycle): void {
    if (lifecycle.status !== "online") return;
    const interval = this.options.relistIntervalMs ?? 30_000;
    if (interval <= 0) return;
    this.cancelRelist();
    const tick = (): void => {
      void this.relist();
      this.cancelRelist = this.options.clock.setTimer(interval, tick);
    };
    this.cancelRelist = this.options.clock.setTimer(interval, tick);
  }

  /** Every session the AppServer lists for this device, page by page. */
  private async listSessions(rpc: RpcClient): Promise<Session[]> {
    const sessions: Session[] = [];
    let cursor: string | undefined;
    do {
      const page = await rpc.request("agentSession/list", { limit: 200, ...(cursor === undefined ? {} : { cursor }) });
      sessions.push(...(page.sessions as Session[]));
      cursor = page.next_cursor;
    } while (cursor !== undefined);
    return sessions;
  }

  /** Lists the sessions (or takes the list `listing` asked for on this connection) and posts it to the loop. */
  private async relist(listing?: Promise<Session[]>): Promise<void> {
    const rpc = this.rpc;
    if (rpc === undefined) return;
    try {
      const sessions = await (listing ?? this.listSessions(rpc));
      await this.options.post({ kind: "sessions.listed", sessions });
    } catch (error) {
      this.options.diagnostics(error, "agentSession/list");
      // Without the list the Runtime cannot know what to follow; start over on a fresh connection.
      if (toLineUpError(error).code !== "request_cancelled") rpc.close();
    }
  }

  /**
   * Right behind the handshake, the sessions the Runtime already follows (as the restore or the last connection left
   * them) are subscribed after their cursors, the one where something was last said first and as many as may catch up at once, as
   * the session list's turn would subscribe them once it has the list: a start or a reconnect does not wait a round trip
   * for the list first. The server holds them until the handshake is answered. What they bring is held until that turn
   * has committed (`releaseEarly`), so the loop sees the same inputs in the same order as without them; that turn's
   * subscriptions take these requests over (`subscribe`).
   *
   * They go as batches within the connection's limits (`batchLimits`): known when the handshake was answered before the
   * connection was taken over; otherwise not yet, and each goes in a frame of its own.
   */
  private subscribeEarly(rpc: RpcClient): void {
    const toFollow = conversationsToFollow(this.options.state().conversations.values());
    if (toFollow.length === 0) return;
    this.heldNotifications ??= [];
    rpc.batch(() => {
      for (const { conversation_id: id, cursor: afterSeq } of toFollow.slice(0, SUBSCRIPTIONS_CATCHING_UP)) {
        const answer = rpc.request("agentSession/subscribe", { session_id: id, after_seq: afterSeq });
        answer.catch(() => undefined);
        this.earlySubscriptions.set(id, { afterSeq, answer });
      }
    }, this.batchLimits);
  }

  /** After the session list's turn: what the early subscriptions brought is handled, in order. */
  private releaseEarly(rpc: RpcClient): void {
    // That turn subscribes the same conversations (`conversationsToFollow`), so it took every early request over; one
    // it did not would still have its events applied in order after its cursor, as any event of a known conversation.
    this.earlySubscriptions.clear();
    const held = this.heldNotifications;
    if (held === undefined) return;
    this.heldNotifications = undefined;
    if (this.rpc !== rpc) return;
    for (const handle of held) handle();
  }

  /**
   * One subscribe per session at a time; a request made meanwhile is coalesced into one more after it, from the latest
   * cursor. At most SUBSCRIPTIONS_CATCHING_UP sessions catch up at once; the next waits for one's `caughtUp`.
   */
  private subscribe(sessionId: string): void {
    if (this.subscribing.has(sessionId)) {
      this.subscribing.set(sessionId, true);
      return;
    }
    const rpc = this.rpc;
    if (rpc === undefined) return;
    // One asked for behind the handshake is under way already: it is taken over whatever the count.
    if (!this.catchingUp.has(sessionId) && !this.earlySubscriptions.has(sessionId) && this.catchingUp.size >= SUBSCRIPTIONS_CATCHING_UP) {
      this.waitingToSubscribe.add(sessionId);
      return;
    }
    this.waitingToSubscribe.delete(sessionId);
    this.catchingUp.add(sessionId);
    this.subscribing.set(sessionId, false);
    const afterSeq = this.options.state().conversations.get(sessionId)?.cursor ?? 0;
    const early = this.earlySubscriptions.get(sessionId);
    this.earlySubscriptions.delete(sessionId);
    const ask = () => this.askSoon(rpc, () => rpc.request("agentSession/subscribe", { session_id: sessionId, after_seq: afterSeq }));
    // Asked for behind the handshake after the same cursor: that request is this one. A server that answers nothing
    // before its handshake refused it (not_initialized): asked again now.
    const answer =
      early !== undefined && early.afterSeq === afterSeq
        ? early.answer.catch((error: unknown) => {
            if (toLineUpError(error).code === "not_initialized") return ask();
            throw error;
          })
        : ask();
    answer
      .catch(async (error: unknown) => {
        const failure = toLineUpError(error);
        // No catch-up follows a refusal: the next waiting session may go.
        if (this.rpc === rpc) this.caughtUpOrRefused(sessionId);
        if (failure.code === "cursor_invalid" || failure.code === "session_not_found" || failure.code === "forbidden") {
          await this.options.post({ kind: "session.subscribe_failed", session_id: sessionId, code: failure.code, message: failure.message });
        } else if (failure.code === "overloaded") {
          // The server answered: nothing was subscribed, and it asks for a pause. Subscribe again after one.
          this.options.diagnostics(failure, `subscribe ${sessionId}`);
          this.resyncLater(sessionId);
        } else {
          // No answer (a lost request or response): the connection is not to be trusted with the seam.
          // Reconnecting resubscribes every session from its stored cursor.
          this.options.diagnostics(failure, `subscribe ${sessionId}`);
          if (failure.code !== "request_cancelled") rpc.close();
        }
      })
      .catch((error: unknown) => this.options.diagnostics(error, `subscribe ${sessionId}`))
      .finally(() => {
        const again = this.subscribing.get(sessionId) === true;
        this.subscribing.delete(sessionId);
        if (again && this.rpc === rpc) this.subscribe(sessionId);
      });
  }

  private onEvent(params: JsonObject): void {
    // An envelope is checked by the filter chain (version, scope, schema), which refuses it with its own code
    // whatever the frame's data schema would say (below): here its event is checked as a frame only, so that
    // each envelope is validated once.
    const envelopeEvent = params["kind"] === "envelope" && typeof (params["data"] as { envelope?: unknown } | undefined)?.envelope === "object";
    const checked = envelopeEvent ? validateSessionEventFrame(params) : validateSessionEvent(params);
    let event: SessionEvent;
    if (checked.ok) event = checked.value;
    else {
      // A well-framed event whose content is bad (an agent's malformed or newer envelope) is still a position in
      // the log: it must be consumed and refused with its code, or the conversation would stop at it for good.
      const frame = eventFrame(params);
      if (frame === undefined) {
        this.options.diagnostics(new LineUpError(checked.error.code, `invalid session event: ${checked.error.message}`), "agentSession/event");
        return;
      }
      if (frame.kind === "envelope" && typeof (params["data"] as { envelope?: unknown } | undefined)?.envelope === "object") {
        // The filter chain checks the envelope itself (legacy adapter, version, scope, schema) and refuses it typed.
        event = params as unknown as SessionEvent;
      } else {
        this.options.post({ kind: "event.malformed", session_id: frame.session_id, seq: frame.seq, code: checked.error.code, message: checked.error.message.slice(0, 500) }).catch((error: unknown) => {
          this.options.diagnostics(error, `event ${frame.session_id}#${frame.seq}`);
          this.resyncLater(frame.session_id);
        });
        return;
      }
    }
    const applied = this.options.post({ kind: "event", event });
    const echoed = echoedHere(this.options.state(), event);
    if (echoed !== undefined) {
      const settled: Promise<void> = applied.then(
        () => undefined,
        () => undefined,
      );
      this.echoes.set(echoed, settled);
      void settled.then(() => {
        if (this.echoes.get(echoed) === settled) this.echoes.delete(echoed);
      });
    }
    applied.catch((error: unknown) => {
      // Not committed (a store fault): nothing of it was applied, so follow again from the stored cursor —
      // after a pause, so that a store that keeps failing does not turn into a resubscribe storm.
      this.options.diagnostics(error, `event ${event.session_id}#${event.seq}`);
      this.resyncLater(event.session_id);
    });
  }

  private readonly resyncs = new Map<string, () => void>();

  private storeFailures = 0;

  private resyncLater(sessionId: string): void {
    if (this.resyncs.has(sessionId) || this.stopped) return;
    const delay = backoffDelay(Math.min(this.storeFailures++, 8), () => this.options.ids.random(), this.options.backoff) + 50;
    this.resyncs.set(
      sessionId,
      this.options.clock.setTimer(delay, () => {
        this.resyncs.delete(sessionId);
        // On whatever connection is current; without one, the next connect subscribes every session anyway.
        if (this.rpc !== undefined) this.subscribe(sessionId);
      }),
    );
  }

  /** Whether a followed session's agent is connected: state for the views, nothing stored. */
  private onCatalogReleased(params: JsonObject): void {
    const checked = checkServerNotificationParams("catalog/released", params);
    if (!checked.ok) return this.options.diagnostics(new LineUpError(checked.error.code, checked.error.message), "catalog/released");
    this.options.onCatalogRelease?.(checked.value["release"] as unknown as CatalogRelease);
  }

  /**
   * `agentSession/bound`: another device of this user started a session. A hint (the list is the truth): a
   * session this device does not know yet is learned from a list asked for now, not at the next relist.
   */
  private onBound(params: JsonObject): void {
    const checked = checkServerNotificationParams("agentSession/bound", params);
    if (!checked.ok) return this.options.diagnostics(new LineUpError(checked.error.code, checked.error.message), "agentSession/bound");
    const sessionId = (checked.value["session"] as { session_id: string }).session_id;
    if (this.options.state().conversations.has(sessionId)) return;
    void this.relist();
  }

  private onPresence(params: JsonObject): void {
    const sessionId = params["session_id"];
    const agentId = params["agent_id"];
    const connected = params["connected"];
    if (typeof sessionId !== "string" || typeof agentId !== "string" || typeof connected !== "boolean") return this.options.diagnostics(new Error("malformed presence"), "agentSession/presence");
    this.options.post({ kind: "agent.presence", session_id: sessionId, agent_id: agentId, connected }).catch((error: unknown) => this.options.diagnostics(error, "agentSession/presence"));
  }

  /**
   * `sessionId`'s catch-up on this connection ended (or was refused): the sessions waiting take the free places. With
   * batches, once half the places are free, so that they go together in one frame (and are answered in one).
   */
  private caughtUpOrRefused(sessionId: string): void {
    if (!this.catchingUp.delete(sessionId)) return;
    if (this.batchLimits.maxBatch > 1 && this.catchingUp.size > SUBSCRIPTIONS_CATCHING_UP / 2) return;
    for (const next of this.waitingToSubscribe) {
      if (this.catchingUp.size >= SUBSCRIPTIONS_CATCHING_UP) break;
      this.subscribe(next);
    }
  }

  /**
   * `ask` is sent when this turn of the event loop ends, together with the other subscriptions asked for in it: one
   * JSON-RPC batch (within the server's limits; it answers it in one frame, then sends each catch-up), not a frame each.
   */
  private askSoon<T>(rpc: RpcClient, ask: () => Promise<T>): Promise<T> {
    if (this.batchLimits.maxBatch <= 1) return ask();
    return new Promise<T>((resolve, reject) => {
      if (this.asking === undefined) {
        const asks: (() => void)[] = (this.asking = []);
        void Promise.resolve().then(() => {
          this.asking = undefined;
          rpc.batch(() => asks.forEach((send) => send()), this.batchLimits);
        });
      }
      this.asking.push(() => void ask().then(resolve, reject));
    });
  }

  private onCaughtUp(params: JsonObject): void {
    const sessionId = params["session_id"];
    const seq = params["seq"];
    if (typeof sessionId !== "string" || typeof seq !== "number") return this.options.diagnostics(new Error("malformed caughtUp"), "agentSession/caughtUp");
    this.caughtUpOrRefused(sessionId);
    this.options
      .post({ kind: "caught_up", session_id: sessionId, seq })
      .then(() => {
        this.storeFailures = 0;
      })
      .catch((error: unknown) => {
        // The seam was not recorded: follow again from the cursor to get a new one.
        this.options.diagnostics(error, "caughtUp");
        this.resyncLater(sessionId);
      });
  }

  /** A flush is due when this turn of the event loop ends (`flushSoon`). */
  private flushQueued = false;

  /**
   * Flushes the outbox when this turn of the event loop ends: once for every answer, settled entry and committed turn
   * that asked for it meanwhile. Each flush scans the outbox from its oldest entry past those in flight and those
   * settling (answered, their removal not yet committed), so a flush per answer made an app install published to
   * 1,000 conversations scan 696,000 entries in 2,234 flushes; it scans 7,000 in 25.
   */
  private flushSoon(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    void Promise.resolve().then(() => {
      this.flushQueued = false;
      // A stopped driver has no connection: flushOutbox sends nothing then.
      this.flushOutbox();
    });
  }

  private flushOutbox(): void {
    const rpc = this.rpc;
    const state = this.options.state();
    if (rpc === undefined || (state.lifecycle.status !== "synchronizing" && state.lifecycle.status !== "online")) return;
    for (const entry of nextSendable(state.outbox.values(), { inFlight: this.inFlight, settling: this.settling, held: this.held, depth: this.depth, oldestFirst: true })) {
      // Without ordered writes, a conversation started here sends nothing else before the server applied its
      // start. With them, its first entries follow the start in the same round trip, chained to it.
      if (this.depth === 1 && state.conversations.get(entry.conversation_id)?.origin === "local" && entry.method !== "agentSession/start") continue;
      // While an earlier entry of the conversation is unanswered, this one is applied only after it (ordered writes).
      const earlier = this.earlierInFlight(entry);
      const afterKey = earlier === undefined ? undefined : state.outbox.get(earlier)?.params["idempotency_key"];
      let sent = this.inFlight.get(entry.conversation_id);
      if (sent === undefined) this.inFlight.set(entry.conversation_id, (sent = new Set()));
      sent.add(entry.order);
      this.awaitingPredecessor.delete(entry.order);
      void this.send(rpc, entry, typeof afterKey === "string" ? afterKey : undefined);
    }
  }

  /** The latest entry of the conversation sent before `entry` and not answered yet. */
  private earlierInFlight(entry: OutboxEntry): number | undefined {
    let latest: number | undefined;
    for (const order of this.inFlight.get(entry.conversation_id) ?? []) if (order < entry.order && (latest === undefined || order > latest)) latest = order;
    return latest;
  }

  /** Forgets that `entry` is in flight — on the connection it was sent on: a late answer on a dropped one must not free the marker of the same entry sent again since. */
  private release(rpc: RpcClient, entry: OutboxEntry): void {
    if (this.rpc !== rpc) return;
    const sent = this.inFlight.get(entry.conversation_id);
    if (sent?.delete(entry.order) === true && sent.size === 0) this.inFlight.delete(entry.conversation_id);
  }

  private async send(rpc: RpcClient, entry: OutboxEntry, afterKey: string | undefined): Promise<void> {
    // A conversation's entries reach the server in outbox order: one at a time, or pipelined with each
    // naming the one sent before it (`after_key`), so none can overtake one that failed and goes again.
    // Once the server applied an entry, the next may go while its outcome is committed (`settling` keeps
    // a flush from sending it again meanwhile); a crash before that commit sends it again with the same
    // key, which the server answers from its record. A refusal is committed before the entry is released.
    let retry = false;
    try {
      const result = await rpc.request(entry.method, (afterKey === undefined ? entry.params : { ...entry.params, after_key: afterKey }) as never);
      this.settling.add(entry.order);
      try {
        this.release(rpc, entry);
        if (this.rpc === rpc && !rpc.closed) this.flushSoon();
        // Its echo in the log may have removed it already (handlers/outbox-settled.ts), or be doing so: then
        // nothing is left to commit. Otherwise (no echo, or its turn failed) the answer settles it.
        const echo = entry.method === "agentSession/envelope/send" ? this.echoes.get(String((entry.params["envelope"] as { id?: unknown } | undefined)?.id)) : undefined;
        if (echo !== undefined) await echo;
        if (this.options.state().outbox.get(entry.order)?.status === "pending") await this.options.post({ kind: "outbox.settled", order: entry.order, outcome: { status: "applied", result: result as JsonValue } });
      } finally {
        this.settling.delete(entry.order);
      }
    } catch (error) {
      const failure = toLineUpError(error);
      if (failure.code === "predecessor_pending") {
        // The entry it named had no outcome yet (it failed and goes again, or was dropped): this one
        // goes again once no earlier entry of its conversation is in flight.
        if (this.rpc === rpc) this.awaitingPredecessor.add(entry.order);
      } else if (TRANSIENT_CODES.has(failure.code) || failure.code.startsWith("store_")) {
        // Same key next time: the server replays or applies once.
        retry = true;
      } else {
        await this.options
          .post({ kind: "outbox.settled", order: entry.order, outcome: { status: "failed", code: failure.code, message: failure.message } })
          .catch((postError: unknown) => {
            this.options.diagnostics(postError, "outbox.settled");
            retry = true;
          });
      }
    } finally {
      this.release(rpc, entry);
    }
    if (this.rpc !== rpc || rpc.closed) return;
    if (retry) {
      this.retrying.add(entry.order);
      this.cancelOutboxRetry();
      this.cancelOutboxRetry = this.options.clock.setTimer(backoffDelay(1, () => this.options.ids.random(), this.options.backoff) + 100, () => {
        this.retrying.clear();
        this.flushOutbox();
      });
    } else {
      // The flush the settled transition asked for ran while this entry was still in flight.
      this.flushSoon();
    }
  }
}

/** The parts of an event that place it in a log, when they are sound (the rest may not be). */
function eventFrame(params: JsonObject): { session_id: string; seq: number; kind: string } | undefined {
  const sessionId = params["session_id"];
  const seq = params["seq"];
  const kind = params["kind"];
  const actor = params["actor"] as { role?: unknown; id?: unknown } | null | undefined;
  if (typeof sessionId !== "string" || sessionId === "" || sessionId.length > 128) return undefined;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1) return undefined;
  if (typeof kind !== "string" || typeof actor?.role !== "string" || typeof actor.id !== "string") return undefined;
  return { session_id: sessionId, seq, kind };
}
