/**
 * JSON-RPC 2.0 framing (https://www.jsonrpc.org/specification) for the App Server protocol.
 *
 * One WebSocket text frame holds one message or one batch. `decodeJsonRpc` turns a frame into
 * requests, notifications, responses and refusals; `answerFrame` then assembles exactly what the
 * specification says to send back: one response per request (none per notification), an array
 * for a batch, nothing at all when a batch held only notifications, and a single error object
 * (id null) for a parse error or an empty batch.
 *
 * Error objects: `{ code, message, data: { code, message, path?, retryable } }`. `code` is the JSON-RPC
 * number from `ERROR_CODES[code].rpc`; `data.code` is the LineUp string code. For the five codes
 * the specification defines, `message` is the specification's own text ("Parse error", …) and the
 * detail is in `data.message`; for LineUp's server codes `message` is the detail itself.
 */
import { Type } from "@sinclair/typebox";
import { ERROR_CODES, type ProtocolError } from "../errors.js";
import { validators } from "../generated/app-server-client.js";
import { decodeJson, utf8ByteLength, DEFAULT_MAX_DEPTH, type JsonLimits, type JsonObject, type JsonValue, isRecord } from "../json.js";
import { Closed, JsonValueSchema, schemaId, declared } from "../schema-kit.js";
import { JSONRPC_FAILURE_SCHEMA_ID, JSONRPC_NOTIFICATION_SCHEMA_ID, JSONRPC_REQUEST_SCHEMA_ID, JSONRPC_SUCCESS_SCHEMA_ID } from "./terms.js";
import { describeSchemaError, type CompiledValidator } from "../validation.js";
import { DEFAULT_SERVER_LIMITS } from "./records.js";

export const JSONRPC_VERSION = "2.0";

export const JsonRpcIdSchema = /* @__PURE__ */ declared(() => Type.Union([Type.String(), Type.Number(), Type.Null()]));
export type JsonRpcId = string | number | null;

const StructuredParams = /* @__PURE__ */ declared(() => Type.Union([Type.Object({}), Type.Array(Type.Unknown())]));

export const JsonRpcRequestSchema = /* @__PURE__ */ declared(() => Closed(
  { jsonrpc: Type.Literal(JSONRPC_VERSION), id: JsonRpcIdSchema, method: Type.String(), params: Type.Optional(StructuredParams) },
  { $id: JSONRPC_REQUEST_SCHEMA_ID, title: "JSON-RPC 2.0 request" },
));
export const JsonRpcNotificationSchema = /* @__PURE__ */ declared(() => Closed(
  { jsonrpc: Type.Literal(JSONRPC_VERSION), method: Type.String(), params: Type.Optional(StructuredParams) },
  { $id: JSONRPC_NOTIFICATION_SCHEMA_ID, title: "JSON-RPC 2.0 notification" },
));
export const JsonRpcErrorObjectSchema = /* @__PURE__ */ declared(() => Closed(
  { code: Type.Integer(), message: Type.String(), data: Type.Optional(JsonValueSchema()) },
  { $id: schemaId("jsonrpc.error-object"), title: "JSON-RPC 2.0 error object" },
));
export const JsonRpcSuccessSchema = /* @__PURE__ */ declared(() => Closed(
  { jsonrpc: Type.Literal(JSONRPC_VERSION), id: JsonRpcIdSchema, result: JsonValueSchema() },
  { $id: JSONRPC_SUCCESS_SCHEMA_ID, title: "JSON-RPC 2.0 success response" },
));
export const JsonRpcFailureSchema = /* @__PURE__ */ declared(() => Closed(
  { jsonrpc: Type.Literal(JSONRPC_VERSION), id: JsonRpcIdSchema, error: Type.Unsafe<JsonRpcErrorObject>(Type.Ref(schemaId("jsonrpc.error-object"))) },
  { $id: JSONRPC_FAILURE_SCHEMA_ID, title: "JSON-RPC 2.0 error response" },
));

export const JSONRPC_SCHEMAS = [JsonRpcRequestSchema, JsonRpcNotificationSchema, JsonRpcErrorObjectSchema, JsonRpcSuccessSchema, JsonRpcFailureSchema] as const;

export type JsonRpcParams = JsonObject | JsonValue[];
export interface JsonRpcRequest {
  readonly jsonrpc: "2.0";
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params?: JsonRpcParams;
}
export interface JsonRpcNotification {
  readonly jsonrpc: "2.0";
  readonly method: string;
  readonly params?: JsonRpcParams;
}
/** `data` of every LineUp error object. */
export interface JsonRpcErrorData {
  readonly code: string;
  readonly message?: string;
  readonly path?: string;
  readonly [extra: string]: JsonValue | undefined;
}
export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: JsonValue;
}
export interface JsonRpcSuccess {
  readonly jsonrpc: "2.0";
  readonly id: JsonRpcId;
  readonly result: JsonValue;
}
export interface JsonRpcFailure {
  readonly jsonrpc: "2.0";
  readonly id: JsonRpcId;
  readonly error: JsonRpcErrorObject;
}
export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** One message of a frame, classified. An `invalid` item is answered with `response`. */
export type JsonRpcItem =
  | { readonly kind: "request"; readonly message: JsonRpcRequest }
  | { readonly kind: "notification"; readonly message: JsonRpcNotification }
  | { readonly kind: "response"; readonly message: JsonRpcResponse }
  | { readonly kind: "invalid"; readonly error: ProtocolError; readonly response: JsonRpcFailure };

/** A decoded frame: one item, a batch of items, or a refusal of the whole frame (answered with one error, id null). */
export type DecodedJsonRpc =
  | { readonly kind: "single"; readonly item: JsonRpcItem }
  | { readonly kind: "batch"; readonly items: readonly JsonRpcItem[] }
  | { readonly kind: "invalid"; readonly error: ProtocolError; readonly response: JsonRpcFailure };

export interface JsonRpcLimits extends JsonLimits {
  /** Most messages in one batch; a longer batch is refused whole. Default 64. */
  readonly maxBatch?: number;
}

/** The specification's own texts for the codes it defines. */
const STANDARD_MESSAGES: Readonly<Record<number, string>> = {
  [-32700]: "Parse error",
  [-32600]: "Invalid Request",
  [-32601]: "Method not found",
  [-32602]: "Invalid params",
  [-32603]: "Internal error",
};

/** The JSON-RPC error object for a LineUp error; `extra` adds members to `data` (never overriding code/message/path). */
export function toJsonRpcError(error: ProtocolError, extra: JsonObject = {}): JsonRpcErrorObject {
  const info = ERROR_CODES[error.code];
  const rpc: number = info?.rpc ?? -32603;
  const data: Record<string, JsonValue> = { ...extra, code: error.code, message: error.message };
  if (error.path !== undefined) data["path"] = error.path;
  data["retryable"] = info?.retryable ?? false;
  return { code: rpc, message: STANDARD_MESSAGES[rpc] ?? error.message, data };
}

export function jsonRpcFailure(id: JsonRpcId, error: ProtocolError, extra?: JsonObject): JsonRpcFailure {
  return { jsonrpc: JSONRPC_VERSION, id, error: toJsonRpcError(error, extra) };
}

export function jsonRpcSuccess(id: JsonRpcId, result: JsonValue): JsonRpcSuccess {
  return { jsonrpc: JSONRPC_VERSION, id, result };
}

export function jsonRpcNotification(method: string, params?: JsonRpcParams): JsonRpcNotification {
  return params === undefined ? { jsonrpc: JSONRPC_VERSION, method } : { jsonrpc: JSONRPC_VERSION, method, params };
}

export function jsonRpcRequest(id: JsonRpcId, method: string, params?: JsonRpcParams): JsonRpcRequest {
  return params === undefined ? { jsonrpc: JSONRPC_VERSION, id, method } : { jsonrpc: JSONRPC_VERSION, id, method, params };
}

/** True for a LineUp-shaped JSON-RPC failure whose data.code is a string. */
export function errorDataCode(response: JsonRpcResponse): string | undefined {
  if (!("error" in response)) return undefined;
  const data = response.error.data;
  return typeof data === "object" && data !== null && !Array.isArray(data) && typeof data["code"] === "string" ? data["code"] : undefined;
}

const isId = (value: unknown): value is JsonRpcId => value === null || typeof value === "string" || typeof value === "number";

/** Looked up on use, not at load, so the generator can import this module before validators exist. */
function validator(id: string | undefined): CompiledValidator {
  const v = id === undefined ? undefined : validators[id];
  // A missing validator is a build fault (run `npm run gen`); refusing everything beats throwing.
  return v ?? Object.assign(() => false, { errors: [{ instancePath: "", keyword: "generated", params: {}, message: "has no generated validator: run npm run gen" }] });
}

function invalidItem(id: JsonRpcId, message: string, path?: string): JsonRpcItem {
  const error: ProtocolError = path === undefined ? { code: "invalid_request", message } : { code: "invalid_request", message, path };
  return { kind: "invalid", error, response: jsonRpcFailure(id, error) };
}

/**
 * Classifies one parsed value. The id is echoed in the refusal only when it was itself a valid
 * id; otherwise (not an object, an id of the wrong type) the refusal's id is null, as the
 * specification requires.
 */
export function classifyJsonRpc(value: unknown, pathPrefix = ""): JsonRpcItem {
  if (!isRecord(value)) return invalidItem(null, "a JSON-RPC message is an object", pathPrefix);
  const id = "id" in value && isId(value["id"]) ? value["id"] : null;
  if ("id" in value && !isId(value["id"])) return invalidItem(null, "id must be a string, a number or null", `${pathPrefix}/id`);
  if (value["jsonrpc"] !== JSONRPC_VERSION) return invalidItem(id, 'jsonrpc must be exactly "2.0"', `${pathPrefix}/jsonrpc`);
  if ("method" in value) {
    const isRequest = "id" in value;
    const v = validator(isRequest ? JSONRPC_REQUEST_SCHEMA_ID : JSONRPC_NOTIFICATION_SCHEMA_ID);
    if (!v(value)) {
      const { path, message } = describeSchemaError(v.errors?.[0]);
      return invalidItem(id, `not a valid ${isRequest ? "request" : "notification"}: ${message}`, `${pathPrefix}${path}`);
    }
    return isRequest
      ? { kind: "request", message: value as unknown as JsonRpcRequest }
      : { kind: "notification", message: value as unknown as JsonRpcNotification };
  }
  if ("result" in value || "error" in value) {
    const v = validator("error" in value ? JSONRPC_FAILURE_SCHEMA_ID : JSONRPC_SUCCESS_SCHEMA_ID);
    if (!v(value)) {
      const { path, message } = describeSchemaError(v.errors?.[0]);
      return invalidItem(id, `not a valid response: ${message}`, `${pathPrefix}${path}`);
    }
    return { kind: "response", message: value as unknown as JsonRpcResponse };
  }
  return invalidItem(id, "a JSON-RPC message needs a method (request, notification) or a result or error (response)", pathPrefix);
}

function refuseFrame(error: ProtocolError): DecodedJsonRpc {
  return { kind: "invalid", error, response: jsonRpcFailure(null, error) };
}

/**
 * Decodes one frame (text or UTF-8 bytes). Never throws. The size limit is checked first and
 * refused as `message_too_large`; then `decodeJson` (depth, forbidden keys, syntax →
 * `json_malformed`, answered as -32700 Parse error); then the batch rules.
 */
export function decodeJsonRpc(input: string | Uint8Array, limits: JsonRpcLimits = {}): DecodedJsonRpc {
  const maxBytes = limits.maxBytes ?? DEFAULT_SERVER_LIMITS.max_message_bytes;
  const maxBatch = limits.maxBatch ?? DEFAULT_SERVER_LIMITS.max_batch;
  // A string's UTF-8 size lies between its length and three times it: only a frame near the limit is counted.
  const size = typeof input === "string" ? (input.length > maxBytes || input.length * 3 <= maxBytes ? input.length : utf8ByteLength(input)) : input.byteLength;
  if (size > maxBytes) return refuseFrame({ code: "message_too_large", message: `frame of ${size} bytes exceeds ${maxBytes}` });
  const json = decodeJson(input, { maxBytes, maxDepth: limits.maxDepth ?? DEFAULT_MAX_DEPTH });
  if (!json.ok) return refuseFrame(json.error);
  const value = json.value;
  if (Array.isArray(value)) {
    if (value.length === 0) return refuseFrame({ code: "invalid_request", message: "a batch must hold at least one message" });
    if (value.length > maxBatch) return refuseFrame({ code: "invalid_request", message: `a batch holds at most ${maxBatch} messages, not ${value.length}` });
    return { kind: "batch", items: value.map((v, i) => classifyJsonRpc(v, `/${i}`)) };
  }
  return { kind: "single", item: classifyJsonRpc(value) };
}

/** What a frame's requests get answered with; may be asynchronous. */
export type RequestResponder = (request: JsonRpcRequest) => JsonRpcResponse | Promise<JsonRpcResponse>;
export type NotificationHandler = (notification: JsonRpcNotification) => void;

/**
 * Runs a decoded frame and assembles the reply the specification prescribes:
 * - whole-frame refusal → its single error response;
 * - one request → its response; one notification or response → nothing (undefined);
 * - a batch → an array of the responses to its requests and invalid items (in input order);
 *   undefined when there are none (a batch of notifications).
 * Requests of a batch are started in order and may complete in any order.
 */
export async function answerFrame(
  decoded: DecodedJsonRpc,
  respond: RequestResponder,
  onNotification: NotificationHandler = () => undefined,
): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
  if (decoded.kind === "invalid") return decoded.response;
  const answer = (item: JsonRpcItem): Promise<JsonRpcResponse> | JsonRpcResponse | undefined => {
    switch (item.kind) {
      case "invalid":
        return item.response;
      case "request":
        return respond(item.message);
      case "notification":
        onNotification(item.message);
        return undefined;
      case "response":
        return undefined;
    }
  };
  if (decoded.kind === "single") return await answer(decoded.item);
  const pending = decoded.items.map(answer).filter((r): r is JsonRpcResponse | Promise<JsonRpcResponse> => r !== undefined);
  if (pending.length === 0) return undefined;
  return Promise.all(pending);
}

/** Serializes a reply (or any message) for a text frame. */
export function encodeJsonRpc(message: JsonRpcMessage | readonly JsonRpcMessage[]): string {
  return JSON.stringify(message);
}

