/**
 * The handler table (STYLE 7: methods are area/verb, dispatched through a table) and the one
 * boundary that turns anything a handler throws into a JSON-RPC error (STYLE 9).
 */
import {
  APP_SERVER_METHODS,
  SpanKind,
  endSpan,
  jsonRpcFailure,
  jsonRpcSuccess,
  LineUpError,
  validateNotificationParams,
  rpcSpanAttributes,
  startSpan,
  validateRequestParams,
  withSpan,
  type AppServerInitializedParams,
  type AppServerMethod,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonValue,
  type MethodParams,
  type ProtocolError,
  type Span,
} from "@lineup/protocol";
import type { Connection } from "./connection.js";
import { requestAction, respondAction } from "./handlers/actions.js";
import { exportEvidence } from "./handlers/evidence.js";
import { putArtifact, readArtifact } from "./handlers/artifacts.js";
import { listReleases, publishRelease, readRelease } from "./handlers/catalog.js";
import { listCapabilities } from "./handlers/capabilities.js";
import type { CallContext, Services } from "./handlers/context.js";
import { sendEnvelope } from "./handlers/envelopes.js";
import { initialize } from "./handlers/initialize.js";
import { publishInventory, readInventory } from "./handlers/inventory.js";
import { readLog, subscribe, unsubscribe } from "./handlers/log.js";
import { listSessions, readSession, startSession } from "./handlers/sessions.js";
import { cancelTurn, completeTurn, startTurn, updateTurn } from "./handlers/turns.js";
import { isPostgresError } from "./store/pg.js";

type Handler<M extends AppServerMethod> = (ctx: CallContext, params: MethodParams<M>) => unknown;

const HANDLERS: { [M in Exclude<AppServerMethod, "initialize">]: Handler<M> } = {
  "agentSession/start": startSession,
  "agentSession/read": readSession,
  "agentSession/list": listSessions,
  "agentSession/subscribe": subscribe,
  "agentSession/unsubscribe": unsubscribe,
  "agentSession/events/read": readLog,
  "agentSession/turn/start": startTurn,
  "agentSession/turn/cancel": cancelTurn,
  "agentSession/turn/update": updateTurn,
  "agentSession/turn/complete": completeTurn,
  "agentSession/action/request": requestAction,
  "agentSession/action/respond": respondAction,
  "agentSession/envelope/send": sendEnvelope,
  "inventory/publish": publishInventory,
  "inventory/read": readInventory,
  "capability/list": listCapabilities,
  "artifact/put": putArtifact,
  "artifact/read": readArtifact,
  "evidence/export": exportEvidence,
  "catalog/publish": publishRelease,
  "catalog/list": listReleases,
  "catalog/read": readRelease,
};

/** What a log line about a request names: its connection, its JSON-RPC id and method. */
const requestContext = (connection: Connection, request: JsonRpcRequest) => ({ connection: connection.id, request_id: request.id, method: request.method });

/** Anything thrown → a LineUp error; unexpected ones are logged (with `context`: the connection, the request) and never sent in detail. */
export function toProtocolError(error: unknown, services: Services, context?: Record<string, unknown>): ProtocolError {
  if (error instanceof LineUpError) return error.toProtocolError();
  const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : "";
  if (code.startsWith("SQLITE_") || isPostgresError(error)) {
    services.logger.error("store error", { ...context, code, error: error instanceof Error ? error.message : String(error) });
    return { code: "store_write_failed", message: "the store failed; nothing of the request was applied" };
  }
  services.logger.error("unexpected error", { ...context, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return { code: "internal_error", message: "unexpected server error" };
}

/**
 * Answers one request. Validation runs at once; the handler runs in the connection's program order
 * (program-order.ts): a write queues at once unless an earlier read is still waiting, a read waits
 * for the connection's earlier writes to commit. So a later request sees every earlier write.
 */
export function respond(services: Services, connection: Connection, request: JsonRpcRequest, afterReply: (fn: () => void) => void): Promise<JsonRpcResponse> | JsonRpcResponse {
  // The request's SERVER span (a no-op without a tracer provider); the handler runs with it active, so the
  // write queue's commit span is its child.
  const span = startSpan(request.method, { kind: SpanKind.SERVER, attributes: () => rpcSpanAttributes(request.method, request.id, request.params) });
  const response = withSpan(span, () => answer(services, connection, request, afterReply));
  if (response instanceof Promise) return response.then((settled) => endRequestSpan(span, settled));
  return endRequestSpan(span, response);
}

function endRequestSpan(span: Span, response: JsonRpcResponse): JsonRpcResponse {
  if (!("error" in response)) endSpan(span);
  else {
    const data = response.error.data;
    endSpan(span, { code: typeof data === "object" && data !== null && !Array.isArray(data) ? data["code"] : undefined, message: response.error.message, rpc: response.error.code });
  }
  return response;
}

function answer(services: Services, connection: Connection, request: JsonRpcRequest, afterReply: (fn: () => void) => void): Promise<JsonRpcResponse> | JsonRpcResponse {
  if (connection.initializing !== undefined) return connection.initializing.then(() => answer(services, connection, request, afterReply));
  if (connection.saturated) {
    services.metrics.overloads.inc();
    return jsonRpcFailure(request.id, { code: "overloaded", message: "the connection's send queue is full: read what the server sent, then retry" });
  }
  const checked = validateRequestParams(request.method, connection.role, request.params, services.limits);
  if (!checked.ok) return jsonRpcFailure(request.id, checked.error);
  const call = checked.value;
  try {
    if (call.method === "initialize") {
      const reply = initialize(services, connection, call.params).then(
        (result) => jsonRpcSuccess(request.id, result as unknown as JsonValue),
        (error: unknown) => jsonRpcFailure(request.id, toProtocolError(error, services)),
      );
      const initializing = reply.then(() => {
        if (connection.initializing === initializing) connection.initializing = undefined;
      });
      connection.initializing = initializing;
      return reply;
    }
    const principal = connection.principal!;
    const handler = HANDLERS[call.method] as Handler<AppServerMethod>;
    const access = APP_SERVER_METHODS[call.method].write ? "write" : "read";
    const outcome = connection.order.run(access, () => handler({ services, connection, principal, afterReply }, call.params));
    if (outcome instanceof Promise) {
      return outcome.then(
        (result) => jsonRpcSuccess(request.id, result as JsonValue),
        (error: unknown) => jsonRpcFailure(request.id, toProtocolError(error, services, requestContext(connection, request))),
      );
    }
    return jsonRpcSuccess(request.id, outcome as JsonValue);
  } catch (error) {
    return jsonRpcFailure(request.id, toProtocolError(error, services, requestContext(connection, request)));
  }
}

/**
 * Client notifications: `initialized` completes the handshake, and `connection/ping` (a browser's heartbeat) is
 * answered by a `connection/pong` notification; the rest are logged and dropped (JSON-RPC never answers a notification).
 */
export function onNotification(services: Services, connection: Connection, notification: JsonRpcNotification): void {
  if (connection.initializing !== undefined) {
    void connection.initializing.then(() => onNotification(services, connection, notification));
    return;
  }
  const checked = validateNotificationParams(notification.method, notification.params);
  if (!checked.ok) {
    services.logger.warn("dropped a notification", { connection: connection.id, method: notification.method.slice(0, 64), code: checked.error.code });
    return;
  }
  if (checked.value.method === "initialized" && connection.principal !== undefined) {
    connection.handshakeComplete = true;
    const batches = (checked.value.params as AppServerInitializedParams).receive_batches;
    if (batches !== undefined) connection.receiveBatches(batches);
  } else if (checked.value.method === "connection/ping") connection.notify("connection/pong", {});
}
