/**
 * Surface Bridge ingress: one structured-clone value from the instance's port → a checked bridge
 * message, or a typed refusal, every body checked. The two ends read with the same checks and
 * only the validators of what they receive: the host with `decodeBridgeMessageInHost`, an app's
 * page with `decodeBridgeMessageInApp` (which leaves the bodies the host writes unchecked).
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
 * The checks themselves are check.ts's; this module gives them the whole catalogue.
 *
 * The port and nonce identify the caller (a sandboxed frame's `event.origin` is `"null"` and
 * proves nothing); matching a response to a pending request by `id` is the receiver's job.
 */
import type { TSchema } from "@sinclair/typebox";
import type { Result } from "../errors.js";
import { validators as appSide } from "../generated/surface-bridge-app.js";
import { validators as hostSide } from "../generated/surface-bridge-host.js";
import { validators as hostWritten } from "../generated/surface-bridge.js";
import type { CompiledValidator } from "../validation.js";
import { checkBridgeMessage, type BridgeChecks } from "./check.js";
import { BRIDGE_EVENTS, BRIDGE_METHODS, type BridgeEventData, type BridgeEventName, type BridgeMethodName, type BridgeParams, type BridgeResult } from "./catalogue.js";
import {
  type BRIDGE_PROTOCOL,
  type BRIDGE_VERSION,
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
  const v = id === undefined ? undefined : (appSide[id] ?? hostSide[id] ?? hostWritten[id]);
  // A missing validator is a build mistake, found at module load, never at decode time.
  if (v === undefined) throw new Error(`no generated validator for ${String(id)}: run npm run gen`);
  return v;
}

/** Every check of the catalogue: the frames, and the body of every method and event. */
const FULL: BridgeChecks = {
  frames: { request: validatorFor(BridgeRequestFrameSchema), response: validatorFor(BridgeResponseFrameSchema), event: validatorFor(BridgeEventFrameSchema) },
  methods: new Map(Object.entries(BRIDGE_METHODS).map(([name, m]) => [name, { direction: m.direction, params: validatorFor(m.params), result: validatorFor(m.result) }])),
  events: new Map(Object.entries(BRIDGE_EVENTS).map(([name, e]) => [name, { direction: e.direction, data: validatorFor(e.data) }])),
};

/**
 * Checks one bridge message received on an instance's port, bodies included, whichever direction
 * it reads. Never throws; the value is returned unchanged when it passes.
 */
export function decodeBridgeMessage(value: unknown, expect: BridgeExpectation): Result<BridgeMessage> {
  return checkBridgeMessage(value, expect, FULL);
}
