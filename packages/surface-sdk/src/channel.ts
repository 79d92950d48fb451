/**
 * The app's end of the Surface Bridge: one port, one nonce. Every received value passes
 * `decodeBridgeMessageInApp` (limits, protocol, nonce, frame, catalogue direction, and the params of
 * the host's requests; the host's results and event data are the host's to check) before anything
 * else looks at it; requests are
 * correlated by id, time out, and are all rejected when the channel closes (house style 8).
 *
 * Waiting requests are the protocol's one `PendingRequests` table: timeouts share one timer, armed for
 * the earliest deadline, so a call costs no timer work of its own.
 *
 * Per docs/protocol.md, a value that fails the protocol, version or nonce checks is dropped
 * unanswered (and reported to diagnostics); a host → app request that fails a later check is
 * answered with an error response carrying the code.
 */
import {
  bridgeError,
  bridgeRequest,
  bridgeResult,
  decodeBridgeMessageInApp,
  LineUpError,
  PendingRequests,
  platformTimer,
  type BridgeEventData,
  type BridgeEventName,
  type BridgeMethodName,
  type BridgeParams,
  type BridgeResult,
  type ProtocolError,
} from "@lineup/protocol";
import { Emitter, listenerThrew, type DiagnosticsSink, type Unsubscribe } from "./emitter.js";
import type { BridgePort } from "./port.js";

/** Methods the host calls on the app. */
export type HostToAppMethod = "tool.invoke" | "surface.ping";
/** The host → app method the app's code answers; the channel answers the `surface.ping` heartbeat itself. */
export type HandledMethod = Exclude<HostToAppMethod, "surface.ping">;
/** Methods the app calls on the host. */
export type AppToHostMethod = Exclude<BridgeMethodName, HostToAppMethod>;

export interface ChannelOptions {
  /** Default time a request waits for its response. Default 30 s. */
  readonly requestTimeoutMs?: number;
  readonly diagnostics: DiagnosticsSink;
}

export interface RequestOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** Lets a handler act after its response is on the wire (a `pending` tool call reports progress only then). */
export interface ResponseHandle {
  /** Resolves once the response has been posted (or could not be). */
  readonly sent: Promise<void>;
}

/** Answers one host → app request: resolve with the result, or reject (a `LineUpError` keeps its code). */
export type HostRequestHandler<M extends HandledMethod> = (params: BridgeParams<M>, response: ResponseHandle) => Promise<BridgeResult<M>>;

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export class BridgeChannel {
  readonly nonce: string;
  readonly #port: BridgePort;
  readonly #diagnostics: DiagnosticsSink;
  readonly #timeoutMs: number;
  readonly #pending = new PendingRequests<unknown>(platformTimer);
  readonly #events = new Map<string, Emitter<unknown>>();
  readonly #closed: Emitter<LineUpError>;
  #handler: HostRequestHandler<HandledMethod> | undefined;
  #closeReason: LineUpError | undefined;

  readonly #onMessage = (event: { readonly data: unknown }): void => this.#receive(event.data);
  readonly #onClose = (): void => this.close(new LineUpError("request_cancelled", "the host closed the bridge port"));

  constructor(port: BridgePort, nonce: string, options: ChannelOptions) {
    this.#port = port;
    this.nonce = nonce;
    this.#diagnostics = options.diagnostics;
    this.#timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#closed = new Emitter(listenerThrew("closed", options.diagnostics));
    port.addEventListener("message", this.#onMessage);
    port.addEventListener("close", this.#onClose);
    port.start?.();
  }

  get isClosed(): boolean {
    return this.#closeReason !== undefined;
  }

  /** Sends a request and waits for its response. Rejects with a `LineUpError`: the host's refusal, `request_timeout`, or `request_cancelled`. */
  request<M extends AppToHostMethod>(method: M, params: BridgeParams<M>, options: RequestOptions = {}): Promise<BridgeResult<M>> {
    if (this.#closeReason !== undefined) return Promise.reject(this.#closeReason);
    if (options.signal?.aborted === true) return Promise.reject(new LineUpError("request_cancelled", `${method} was cancelled before it was sent`));
    return new Promise<BridgeResult<M>>((resolve, reject) => {
      const requested = options.timeoutMs ?? this.#timeoutMs;
      const id = this.#pending.open({
        method,
        // As `setTimeout` reads it: NaN is no wait at all.
        timeoutMs: Number.isNaN(requested) ? 0 : requested,
        resolve: resolve as (value: unknown) => void,
        reject,
        signal: options.signal,
      });
      this.#send(bridgeRequest(this.nonce, id, method, params));
    });
  }

  /** Listens to one host → app event. The data has passed the catalogue schema. */
  on<N extends BridgeEventName>(name: N, listener: (data: BridgeEventData<N>) => void): Unsubscribe {
    let emitter = this.#events.get(name);
    if (emitter === undefined) {
      emitter = new Emitter(listenerThrew(name, this.#diagnostics));
      this.#events.set(name, emitter);
    }
    return emitter.on(listener as (data: unknown) => void);
  }

  /** The single handler of `tool.invoke` requests; a second call replaces nothing and throws. */
  handle(method: HandledMethod, handler: HostRequestHandler<HandledMethod>): Unsubscribe {
    if (this.#handler !== undefined) throw new Error(`a handler for ${method} is already installed`);
    this.#handler = handler;
    return () => {
      if (this.#handler === handler) this.#handler = undefined;
    };
  }

  /** Fires once when the channel closes, with the reason pending requests were rejected with. */
  onClosed(listener: (reason: LineUpError) => void): Unsubscribe {
    return this.#closed.on(listener);
  }

  /** Rejects every pending request, stops listening and closes the port. Idempotent. */
  close(reason: LineUpError = new LineUpError("request_cancelled", "the bridge was closed")): void {
    if (this.#closeReason !== undefined) return;
    this.#closeReason = reason;
    this.#pending.rejectAll(() => reason);
    this.#port.removeEventListener("message", this.#onMessage);
    this.#port.removeEventListener("close", this.#onClose);
    try {
      this.#port.close();
    } catch {
      // Already closed by the other side: nothing left to release.
    }
    this.#closed.fire(reason);
    this.#closed.clear();
    for (const emitter of this.#events.values()) emitter.clear();
  }

  #fail(id: number, error: LineUpError): void {
    this.#pending.take(id)?.reject(error);
  }

  #send(message: unknown): void {
    try {
      this.#port.postMessage(message);
    } catch (error) {
      // A port that can no longer send is a closed bridge for every pending request.
      this.close(new LineUpError("request_cancelled", "the bridge port can no longer send", { cause: error }));
    }
  }

  #receive(value: unknown): void {
    if (this.#closeReason !== undefined) return;
    const decoded = decodeBridgeMessageInApp(value, { nonce: this.nonce, direction: "to_app" });
    if (!decoded.ok) {
      this.#refuse(value, decoded.error);
      return;
    }
    const message = decoded.value;
    switch (message.kind) {
      case "event":
        this.#events.get(message.name)?.fire(message.data);
        return;
      case "response": {
        const pending = this.#pending.get(message.id);
        if (pending === undefined || pending.method !== message.method) {
          this.#diagnostics({ kind: "unexpected_response", message: `a response to no pending request (id ${message.id})`, id: message.id });
          return;
        }
        this.#pending.take(message.id);
        if (message.error !== undefined) {
          const { code, message: text, path } = message.error as ProtocolError;
          pending.reject(new LineUpError(code, text, path === undefined ? undefined : { path }));
        } else {
          pending.resolve(message.result);
        }
        return;
      }
      case "request":
        // The heartbeat proves the app's page still runs, so it is answered here, at once, whatever the app's code does.
        if (message.method === "surface.ping") this.#send(bridgeResult(this.nonce, message.id, "surface.ping", {}));
        else void this.#answer(message.id, message.method as HandledMethod, message.params as BridgeParams<HandledMethod>);
        return;
    }
  }

  async #answer(id: number, method: HandledMethod, params: BridgeParams<HandledMethod>): Promise<void> {
    const handler = this.#handler;
    if (handler === undefined) {
      this.#send(bridgeError(this.nonce, id, method, { code: "method_not_found", message: `this app does not handle ${method}` }));
      return;
    }
    let markSent: () => void = () => {};
    const sent = new Promise<void>((resolve) => (markSent = resolve));
    try {
      const result = await handler(params, { sent });
      if (this.#closeReason === undefined) this.#send(bridgeResult(this.nonce, id, method, result));
    } catch (error) {
      const refusal: ProtocolError =
        error instanceof LineUpError ? error.toProtocolError() : { code: "internal_error", message: `${method} failed in the app` };
      if (this.#closeReason === undefined) this.#send(bridgeError(this.nonce, id, method, refusal));
    } finally {
      markSent();
    }
  }

  /** Steps 1–3 (not ours): drop. Later steps on a request with a usable id: answer with the code. */
  #refuse(value: unknown, error: ProtocolError): void {
    this.#diagnostics({ kind: "frame_dropped", code: error.code, message: error.message });
    const dropOnly = error.code.startsWith("json_") || error.code === "bridge_protocol_mismatch" || error.code === "bridge_bad_nonce";
    if (dropOnly || typeof value !== "object" || value === null) return;
    const frame = value as Record<string, unknown>;
    const id = frame["id"];
    // A response to a request still waiting that fails its schema ends that request with the reason, at once.
    if (frame["kind"] === "response" && typeof id === "number" && this.#pending.get(id)?.method === frame["method"]) {
      this.#fail(id, new LineUpError(error.code, error.message, error.path === undefined ? undefined : { path: error.path }));
      return;
    }
    const method = frame["method"];
    if (frame["kind"] !== "request" || (method !== "tool.invoke" && method !== "surface.ping") || typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) return;
    this.#send(bridgeError(this.nonce, id, method, error));
  }
}
