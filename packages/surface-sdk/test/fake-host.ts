/**
 * A fake host in Node that speaks Surface Bridge v1 over a real `MessageChannel`: it hands the
 * port over through a window-like `EventTarget`, validates every app message with
 * `decodeBridgeMessage` (direction `to_host`), answers requests from a handler table, and keeps
 * session data with the spec 6.3 revision rules.
 */
import {
  bridgeError,
  bridgeEvent,
  bridgeRequest,
  bridgeResult,
  decodeBridgeMessage,
  isBridgeMethod,
  LineUpError,
  nextSessionDataRevision,
  type BridgeAppToolOutcome,
  type BridgeEventData,
  type BridgeEventName,
  type BridgeHostSnapshot,
  type BridgeMessage,
  type BridgeMethodName,
  type BridgeParams,
  type BridgeRequest,
  type JsonObject,
  type ToolCallID,
} from "@lineup/protocol";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import type { BridgePort, HandoverSource } from "../src/index.js";

export const NONCE = "nonce-0123456789abcdef";

export function sampleSnapshot(overrides: Partial<BridgeHostSnapshot> = {}): BridgeHostSnapshot {
  return {
    app_scope: "whiteboard" as BridgeHostSnapshot["app_scope"],
    app_version: "1.0.0",
    instance_id: "inst-1" as BridgeHostSnapshot["instance_id"],
    entrypoint: "canvas",
    route: "/",
    runtime_origin: "null",
    scope: { conversation_id: "conv-1" as NonNullable<BridgeHostSnapshot["scope"]["conversation_id"]> },
    theme: { mode: "system", effective_mode: "dark", color_scheme_id: "default", css_variables: { "--lineup-color-bg": "#111" } },
    locale: "en-GB",
    timezone: "Europe/London",
    workspace: {},
    display_mode: "foreground",
    capabilities: [{ capability: "file.save", available: true }],
    granted_permissions: [],
    sdk: { api_version: "1", features: ["app.lifecycle.v1", "app.tools.v1", "app.session-data.v1"] },
    ...overrides,
  };
}

type Handler = (params: never, request: BridgeRequest) => unknown;

export class FakeHost {
  readonly window = new EventTarget() as EventTarget & HandoverSource;
  readonly hostPort: MessagePort;
  readonly appPort: MessagePort;
  /** Every valid app → host request, in arrival order. */
  readonly requests: BridgeRequest[] = [];
  /** Arrival order of app messages: `request <method>` and `response <id>`. */
  readonly trace: string[] = [];
  /** Every refused app message, with its code. */
  readonly refusals: string[] = [];
  readonly handlers = new Map<string, Handler>();
  session: { data: JsonObject | null; revision: number } = { data: null, revision: 0 };
  subscribed = false;
  /** When false, `session_data.replace` does not push `session_data.changed` (tests push by hand). */
  autoPushChanges = true;
  nonce: string;
  #nextId = 1_000;
  readonly #pendingInvokes = new Map<number, { resolve: (v: unknown) => void; reject: (e: LineUpError) => void }>();
  readonly #waiters: Array<{ method: string; resolve: (r: BridgeRequest) => void }> = [];

  constructor(nonce = NONCE) {
    this.nonce = nonce;
    const channel = new MessageChannel();
    this.hostPort = channel.port1;
    this.appPort = channel.port2;
    this.hostPort.on("message", (value: unknown) => this.#receive(value));
    this.#installDefaults();
  }

  /** The app's port, as the SDK sees it. */
  get port(): BridgePort {
    return this.appPort as unknown as BridgePort;
  }

  /** Posts the handover to the fake window: the snapshot frame with the port. */
  handover(snapshot: BridgeHostSnapshot = sampleSnapshot(), data: unknown = bridgeEvent(this.nonce, "host.snapshot", snapshot)): void {
    this.window.dispatchEvent(new MessageEvent("message", { data, ports: [this.appPort as never] }));
  }

  send(message: unknown): void {
    this.hostPort.postMessage(message);
  }

  event<N extends BridgeEventName>(name: N, data: BridgeEventData<N>): void {
    this.send(bridgeEvent(this.nonce, name, data));
  }

  /** Calls `tool.invoke` on the app (the test names the call) and resolves with the outcome (or rejects with the app's error response). */
  invoke(params: Omit<BridgeParams<"tool.invoke">, "call_id"> & { call_id: string }): Promise<BridgeAppToolOutcome> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pendingInvokes.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.send(bridgeRequest(this.nonce, id, "tool.invoke", { ...params, call_id: params.call_id as ToolCallID }));
    });
  }

  /** Sends the `surface.ping` heartbeat (with `params`, `{}` unless a test breaks it) and resolves with the app's result. */
  ping(params: unknown = {}): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pendingInvokes.set(id, { resolve, reject });
      this.send({ ...bridgeRequest(this.nonce, id, "surface.ping", {}), params });
    });
  }

  /** Resolves with the next request of `method` (or one already received and not yet awaited). */
  nextRequest(method: BridgeMethodName): Promise<BridgeRequest> {
    return new Promise((resolve) => this.#waiters.push({ method, resolve }));
  }

  requestsOf(method: BridgeMethodName): BridgeRequest[] {
    return this.requests.filter((r) => r.method === method);
  }

  on<M extends BridgeMethodName>(method: M, handler: (params: BridgeParams<M>, request: BridgeRequest) => unknown): void {
    this.handlers.set(method, handler as Handler);
  }

  close(): void {
    this.hostPort.close();
  }

  #installDefaults(): void {
    this.on("lifecycle.ready", () => ({}));
    this.on("lifecycle.closing_done", () => ({}));
    this.on("session_data.get", () => ({ ...this.session }));
    this.on("session_data.subscribe", () => {
      this.subscribed = true;
      return { ...this.session };
    });
    this.on("session_data.unsubscribe", () => {
      this.subscribed = false;
      return {};
    });
    this.on("session_data.replace", ({ data, expected_revision }) => {
      const revision = nextSessionDataRevision(this.session.revision, expected_revision);
      if (!revision.ok) throw new LineUpError(revision.error.code, revision.error.message, { data: revision.error.data });
      this.session = { data, revision: revision.value };
      // The response goes first; the change event follows in the same serial order.
      queueMicrotask(() => {
        if (this.subscribed && this.autoPushChanges) this.event("session_data.changed", { ...this.session });
      });
      return { revision: this.session.revision };
    });
    for (const method of ["tool.progress", "tool.complete", "tool.fail", "event.emit", "surface.resize", "app.close", "agent_message.subscribe", "agent_message.unsubscribe", "agent_message.ack"] as const) {
      this.on(method, () => ({}));
    }
  }

  #receive(value: unknown): void {
    const decoded = decodeBridgeMessage(value, { nonce: this.nonce, direction: "to_host" });
    if (!decoded.ok) {
      this.refusals.push(decoded.error.code);
      // As docs/protocol.md says: a request failing after the nonce check, with a usable id, is answered.
      const frame = value as { kind?: unknown; id?: unknown; method?: unknown };
      const dropOnly = ["bridge_protocol_mismatch", "bridge_bad_nonce"].includes(decoded.error.code) || decoded.error.code.startsWith("json_");
      if (!dropOnly && frame.kind === "request" && typeof frame.id === "number" && isBridgeMethod(frame.method)) {
        this.send(bridgeError(this.nonce, frame.id, frame.method, decoded.error));
      }
      return;
    }
    const message: BridgeMessage = decoded.value;
    this.trace.push(message.kind === "response" ? `response ${message.id}` : message.kind === "request" ? `request ${message.method}` : "event");
    if (message.kind === "response") {
      const pending = this.#pendingInvokes.get(message.id);
      this.#pendingInvokes.delete(message.id);
      if (message.error !== undefined) pending?.reject(new LineUpError(message.error.code as never, message.error.message));
      else pending?.resolve(message.result);
      return;
    }
    if (message.kind !== "request") return;
    this.requests.push(message);
    const waiter = this.#waiters.findIndex((w) => w.method === message.method);
    if (waiter >= 0) this.#waiters.splice(waiter, 1)[0]!.resolve(message);
    const handler = this.handlers.get(message.method);
    if (handler === undefined) return; // unanswered: the app's timeout decides
    void (async () => {
      try {
        const result = await handler(message.params as never, message);
        if (result === undefined) return; // the test answers by hand
        this.send(bridgeResult(this.nonce, message.id, message.method, result as never));
      } catch (error) {
        const refusal = error instanceof LineUpError ? error.toProtocolError() : { code: "internal_error" as const, message: String(error) };
        this.send(bridgeError(this.nonce, message.id, message.method, refusal));
      }
    })();
  }
}

export const tick = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` passes or the time is up. */
export async function eventually(check: () => void, timeoutMs = 2_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > end) throw error;
      await tick(5);
    }
  }
}
