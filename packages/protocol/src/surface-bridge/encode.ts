/**
 * Builders for bridge messages, typed by the catalogue. They do not validate: the receiver does,
 * with `decodeBridgeMessage`, and a sender's mistake comes back as a typed refusal there.
 */
import type { ProtocolError } from "../errors.js";
import type { BridgeEventData, BridgeEventName, BridgeMethodName, BridgeParams, BridgeResult } from "./catalogue.js";
import type { BridgeEvent, BridgeRequest, BridgeResponse } from "./decode.js";
import { BRIDGE_PROTOCOL, BRIDGE_VERSION } from "./schemas.js";

export function bridgeRequest<M extends BridgeMethodName>(nonce: string, id: number, method: M, params: BridgeParams<M>): BridgeRequest<M> {
  return { bridge: BRIDGE_PROTOCOL, v: BRIDGE_VERSION, nonce, kind: "request", id, method, params } as BridgeRequest<M>;
}

export function bridgeResult<M extends BridgeMethodName>(nonce: string, id: number, method: M, result: BridgeResult<M>): BridgeResponse<M> {
  return { bridge: BRIDGE_PROTOCOL, v: BRIDGE_VERSION, nonce, kind: "response", id, method, result } as BridgeResponse<M>;
}

/** An error response; `path` is sent only when the refusal has one. */
export function bridgeError<M extends BridgeMethodName>(nonce: string, id: number, method: M, error: ProtocolError): BridgeResponse<M> {
  const body = error.path === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, path: error.path };
  return { bridge: BRIDGE_PROTOCOL, v: BRIDGE_VERSION, nonce, kind: "response", id, method, error: body } as BridgeResponse<M>;
}

export function bridgeEvent<N extends BridgeEventName>(nonce: string, name: N, data: BridgeEventData<N>): BridgeEvent<N> {
  return { bridge: BRIDGE_PROTOCOL, v: BRIDGE_VERSION, nonce, kind: "event", name, data } as BridgeEvent<N>;
}
