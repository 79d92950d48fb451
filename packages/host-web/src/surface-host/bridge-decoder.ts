/**
 * What an app sends the host is checked by `decodeBridgeMessageInHost`, whose generated validators are a large
 * part of the protocol's weight and are not needed before an app is shown. They load with the first surface
 * (`import()`, `bridge-decoder-chunk.ts`); until then the surface's port is not read, so an app's messages wait
 * in the port, in order, and none is acted on unchecked.
 */
import type { decodeBridgeMessageInHost } from "@lineup/protocol";

let loading: Promise<typeof decodeBridgeMessageInHost> | undefined;

/** The host's bridge decoder, loaded once (a failed load is tried again by the next surface). */
export function loadBridgeDecoder(): Promise<typeof decodeBridgeMessageInHost> {
  loading ??= import("./bridge-decoder-chunk.js").then(
    (chunk) => chunk.decodeBridgeMessageInHost,
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
