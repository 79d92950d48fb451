/**
 * The native end of the host channel (`@lineup/protocol` host-channel v1): JSON text from the host page's
 * isolated world → a checked request → the method's handler → the answer as JSON text. Every refusal is
 * a typed error from the protocol's table; a handler that throws answers `failed`, never a stack.
 */
import { decodeHostChannelRequest, encodeHostChannelAnswer, type HostChannelMethod, type HostChannelParams, type HostChannelResult } from "@lineup/protocol";

/** A method's handler: its result, or a promise of it (a dialog the person answers); a throw or rejection answers `failed`. */
export type HostChannelHandlers = { readonly [M in HostChannelMethod]: (params: HostChannelParams<M>) => HostChannelResult<M> | Promise<HostChannelResult<M>> };

export function createChannel(handlers: HostChannelHandlers): (text: string) => Promise<string> {
  return async (text) => {
    const request = decodeHostChannelRequest(text);
    if (!request.ok) return encodeHostChannelAnswer(request.error.id, { ok: false, code: request.error.code, message: request.error.message });
    const { id, method, params } = request.value;
    try {
      const handler = handlers[method] as (p: typeof params) => unknown;
      return encodeHostChannelAnswer(id, { ok: true, result: await handler(params) });
    } catch (error) {
      return encodeHostChannelAnswer(id, { ok: false, code: "failed", message: `${method} failed: ${error instanceof Error ? error.message : String(error)}` });
    }
  };
}
