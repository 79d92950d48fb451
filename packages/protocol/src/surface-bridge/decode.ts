/**
 * Surface Bridge ingress: one structured-clone value from the instance's port → a checked bridge
 * message, or a typed refusal. Both ends use it: the host with `direction: "to_host"`, the
 * surface SDK with `direction: "to_app"`.
 *
 * Checks run in a fixed order, cheapest and most telling first, so a message that is not for this
 * instance is refused before anything else about it is believed:
 * 1. JSON limits on the value itself (size of its serialization, depth, plain data only,
 *    forbidden keys) — `json_*`;
 * 2. protocol and version (`bridge`, `v`) — `bridge_protocol_mismatch`;
 * 3. the instance nonce — `bridge_bad_nonce`;
 * 4. the frame of its `kind` — `bridge_frame_invalid`;
 * 5. the method or event in the catalogue for this direction — `method_not_found`;
 * 6. the body: request `params` and event `data` — `invalid_params`; response `result` —
 *    `bridge_result_invalid`.
 *
 * The port and nonce identify the caller (a sandboxed frame's `event.origin` is `"null"` and
 * proves nothing); matching a response to a pending request by `id` is the receiver's job.
 */
import type { TSchema } from "@sinclair/typebox";
import { fail, ok, type ErrorCode, type Result } from "../errors.js";
import { checkJsonValue } from "../json.js";
import { validators } from "../generated/surface-bridge.js";
import { describeSchemaError, type CompiledValidator } from "../validation.js";
import {
  BRIDGE_EVENTS,
  BRIDGE_METHODS,
  isBridgeEvent,
  isBridgeMethod,
  type BridgeEventData,
  type BridgeEventName,
  type BridgeMethodName,
  type BridgeParams,
  type BridgeResult,
} from "./catalogue.js";
import {
  BRIDGE_PROTOCOL,
  BRIDGE_VERSION,
  BridgeEventFrameSchema,
  BridgeRequestFrameSchema,
  BridgeResponseFrameSchema,
  type BridgeDirection,
  type BridgeError,
} from "./schemas.js";

/** The three keys every bridge frame starts with. */
export interface BridgeFrameBase {
  readonly bridge: typeof BRIDGE_PROTOCOL;
  readonly v: typeof BRIDGE_VERSION;
  readonly nonce: string;
}

export type BridgeRequest<M extends BridgeMethodName = BridgeMethodName> = {
  [K in M]: BridgeFrameBase & { readonly kind: "request"; readonly id: number; readonly method: K; readonly params: BridgeParams<K> };
}[M];

export type BridgeResponse<M extends BridgeMethodName = BridgeMethodName> = {
  [K in M]: BridgeFrameBase & { readonly kind: "response"; readonly id: number; readonly method: K } & (
      | { readonly result: BridgeResult<K>; readonly error?: never }
      | { readonly error: BridgeError; readonly result?: never }
    );
}[M];

export type BridgeEvent<N extends BridgeEventName = BridgeEventName> = {
  [K in N]: BridgeFrameBase & { readonly kind: "event"; readonly name: K; readonly data: BridgeEventData<K> };
}[N];

export type BridgeMessage = BridgeRequest | BridgeResponse | BridgeEvent;

export interface BridgeExpectation {
  /** The nonce this instance was launched with; a message without exactly this nonce is refused. */
  readonly nonce: string;
  /** The direction the receiver reads: the host reads `to_host`, the app reads `to_app`. */
  readonly direction: BridgeDirection;
  /** Largest serialized message in UTF-8 bytes. Default 256 KiB. */
  readonly maxBytes?: number;
  /** Deepest nesting. Default 64. */
  readonly maxDepth?: number;
}

function validatorFor(schema: TSchema): CompiledValidator {
  const id = schema.$id;
  const v = id === undefined ? undefined : validators[id];
  // A missing validator is a build mistake, found at module load, never at decode time.
  if (v === undefined) throw new Error(`no generated validator for ${String(id)}: run npm run gen`);
  return v;
}

const frameValidators: Readonly<Record<string, CompiledValidator>> = {
  request: validatorFor(BridgeRequestFrameSchema),
  response: validatorFor(BridgeResponseFrameSchema),
  event: validatorFor(BridgeEventFrameSchema),
};
const paramsValidators = new Map<string, CompiledValidator>(Object.entries(BRIDGE_METHODS).map(([name, m]) => [name, validatorFor(m.params)]));
const resultValidators = new Map<string, CompiledValidator>(Object.entries(BRIDGE_METHODS).map(([name, m]) => [name, validatorFor(m.result)]));
const dataValidators = new Map<string, CompiledValidator>(Object.entries(BRIDGE_EVENTS).map(([name, e]) => [name, validatorFor(e.data)]));

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const opposite = (d: BridgeDirection): BridgeDirection => (d === "to_host" ? "to_app" : "to_host");
const has = (o: Record<string, unknown>, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** The refusal for a body that failed its validator (called only then: the passing path allocates nothing). */
function bodyRefusal(validator: CompiledValidator, field: string, code: ErrorCode, what: string): Result<never> {
  const { path, message } = describeSchemaError(validator.errors?.[0]);
  return fail(code, `${what}: ${message}`, `/${field}${path}`);
}

/**
 * Checks one bridge message received on an instance's port. Never throws; the value is returned
 * unchanged when it passes.
 */
export function decodeBridgeMessage(value: unknown, expect: BridgeExpectation): Result<BridgeMessage> {
  // The expectation is its own JsonLimits (same field names, same defaults): no object per message.
  const json = checkJsonValue(value, expect);
  if (!json.ok) return json;
  if (!isRecord(value)) return fail("bridge_protocol_mismatch", "a bridge message is an object", "");
  if (value["bridge"] !== BRIDGE_PROTOCOL) return fail("bridge_protocol_mismatch", `bridge must be "${BRIDGE_PROTOCOL}"`, "/bridge");
  if (value["v"] !== BRIDGE_VERSION) return fail("bridge_protocol_mismatch", `unsupported bridge version ${JSON.stringify(value["v"] ?? null).slice(0, 32)}`, "/v");
  // An empty expected nonce would make a missing one match; a misconfigured receiver accepts nothing.
  if (typeof value["nonce"] !== "string" || expect.nonce.length === 0 || value["nonce"] !== expect.nonce) {
    return fail("bridge_bad_nonce", "the nonce is not this instance's nonce", "/nonce");
  }
  const kind = value["kind"];
  const frameValidator = typeof kind === "string" && has(frameValidators, kind) ? frameValidators[kind] : undefined;
  if (frameValidator === undefined) return fail("bridge_frame_invalid", "kind must be request, response or event", "/kind");
  if (!frameValidator(value)) {
    const { path, message } = describeSchemaError(frameValidator.errors?.[0]);
    return fail("bridge_frame_invalid", message, path);
  }

  if (kind === "event") {
    const name = value["name"];
    if (!isBridgeEvent(name) || BRIDGE_EVENTS[name].direction !== expect.direction) {
      return fail("method_not_found", `no ${expect.direction} event "${String(name)}" in the bridge catalogue`, "/name");
    }
    const validator = dataValidators.get(name)!;
    return validator(value["data"]) ? ok(value as unknown as BridgeEvent) : bodyRefusal(validator, "data", "invalid_params", `${name} data`);
  }

  const method = value["method"];
  // A request flows in its method's direction; a response to it flows back the other way.
  const wanted = kind === "request" ? expect.direction : opposite(expect.direction);
  if (!isBridgeMethod(method) || BRIDGE_METHODS[method].direction !== wanted) {
    const what = kind === "request" ? `${expect.direction} request` : `response to a ${wanted} request`;
    return fail("method_not_found", `no ${what} "${String(method)}" in the bridge catalogue`, "/method");
  }
  if (kind === "request") {
    const validator = paramsValidators.get(method)!;
    return validator(value["params"]) ? ok(value as unknown as BridgeRequest) : bodyRefusal(validator, "params", "invalid_params", `${method} params`);
  }
  if (has(value, "result") === has(value, "error")) {
    return fail("bridge_frame_invalid", "a response carries exactly one of result and error", "");
  }
  if (has(value, "error")) return ok(value as unknown as BridgeResponse);
  const validator = resultValidators.get(method)!;
  return validator(value["result"]) ? ok(value as unknown as BridgeResponse) : bodyRefusal(validator, "result", "bridge_result_invalid", `${method} result`);
}
