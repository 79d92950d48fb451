/**
 * The Surface Bridge's ingress checks (the order is decode.ts's), given a table of validators:
 * the whole catalogue (`decodeBridgeMessage`), what an app sends (`decodeBridgeMessageInHost`), or
 * what the host sends that an app acts on (`decodeBridgeMessageInApp`). A body without a validator
 * in the table passes unchecked. Imports no schema, so a page can carry it alone.
 */
import { fail, ok, type ErrorCode, type Result } from "../errors.js";
import { checkJsonValue, isRecord } from "../json.js";
import { describeSchemaError, type CompiledValidator } from "../validation.js";
import type { BridgeEvent, BridgeExpectation, BridgeMessage, BridgeRequest, BridgeResponse } from "./decode.js";
import { BRIDGE_PROTOCOL, BRIDGE_VERSION, type BridgeDirection } from "./wire.js";

/** A method's request direction and the validators of its bodies this receiver checks. */
export interface BridgeMethodCheck {
  readonly direction: BridgeDirection;
  readonly params?: CompiledValidator;
  readonly result?: CompiledValidator;
}

/** The validators one receiver checks with; a body whose validator is absent is not checked. */
export interface BridgeChecks {
  readonly frames: Readonly<Record<"request" | "response" | "event", CompiledValidator>>;
  /** Every method of the catalogue, with the direction of its request (on an app's page: the host's methods only, see `unlisted`). */
  readonly methods: ReadonlyMap<string, BridgeMethodCheck>;
  /**
   * What a method `methods` does not list is taken to be. An app's page lists only the host's methods
   * and reads any other as the app's own (`{ direction: "to_host" }`): a request naming one is refused
   * as ever, and a response naming one answers a request of the app's, which the page matches by id
   * and method against what it sent (a method it never sent matches nothing and is dropped).
   */
  readonly unlisted?: BridgeMethodCheck;
  /** Every event of the catalogue, with its direction. */
  readonly events: ReadonlyMap<string, { readonly direction: BridgeDirection; readonly data?: CompiledValidator }>;
}

/** The catalogue's events by direction (generated beside the app side's validators) as `BridgeChecks.events`, no data checked. */
export function eventsOf(byDirection: Readonly<Record<BridgeDirection, readonly string[]>>): BridgeChecks["events"] {
  return new Map((["to_app", "to_host"] as const).flatMap((direction) => byDirection[direction].map((name) => [name, { direction }] as const)));
}

const opposite = (d: BridgeDirection): BridgeDirection => (d === "to_host" ? "to_app" : "to_host");
const has = (o: Record<string, unknown>, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** The refusal for a body that failed its validator (called only then: the passing path allocates nothing). */
function bodyRefusal(validator: CompiledValidator, field: string, code: ErrorCode, what: string): Result<never> {
  const { path, message } = describeSchemaError(validator.errors?.[0]);
  return fail(code, `${what}: ${message}`, `/${field}${path}`);
}

/** Checks one bridge message against `checks`. Never throws; the value is returned unchanged when it passes. */
export function checkBridgeMessage(value: unknown, expect: BridgeExpectation, checks: BridgeChecks): Result<BridgeMessage> {
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
  const frameValidator = kind === "request" || kind === "response" || kind === "event" ? checks.frames[kind] : undefined;
  if (frameValidator === undefined) return fail("bridge_frame_invalid", "kind must be request, response or event", "/kind");
  if (!frameValidator(value)) {
    const { path, message } = describeSchemaError(frameValidator.errors?.[0]);
    return fail("bridge_frame_invalid", message, path);
  }

  if (kind === "event") {
    const name = value["name"];
    const event = typeof name === "string" ? checks.events.get(name) : undefined;
    if (event === undefined || event.direction !== expect.direction) {
      return fail("method_not_found", `no ${expect.direction} event "${String(name)}" in the bridge catalogue`, "/name");
    }
    const validator = event.data;
    return validator === undefined || validator(value["data"]) ? ok(value as unknown as BridgeEvent) : bodyRefusal(validator, "data", "invalid_params", `${String(name)} data`);
  }

  const method = value["method"];
  const spec = typeof method === "string" ? (checks.methods.get(method) ?? checks.unlisted) : undefined;
  // A request flows in its method's direction; a response to it flows back the other way.
  const wanted = kind === "request" ? expect.direction : opposite(expect.direction);
  if (spec === undefined || spec.direction !== wanted) {
    const what = kind === "request" ? `${expect.direction} request` : `response to a ${wanted} request`;
    return fail("method_not_found", `no ${what} "${String(method)}" in the bridge catalogue`, "/method");
  }
  if (kind === "request") {
    const validator = spec.params;
    return validator === undefined || validator(value["params"]) ? ok(value as unknown as BridgeRequest) : bodyRefusal(validator, "params", "invalid_params", `${String(method)} params`);
  }
  if (has(value, "result") === has(value, "error")) {
    return fail("bridge_frame_invalid", "a response carries exactly one of result and error", "");
  }
  if (has(value, "error")) return ok(value as unknown as BridgeResponse);
  const validator = spec.result;
  return validator === undefined || validator(value["result"]) ? ok(value as unknown as BridgeResponse) : bodyRefusal(validator, "result", "bridge_result_invalid", `${String(method)} result`);
}
