/**
 * The one thing the SDK talks through: the private `MessagePort` the host hands over. Declared
 * structurally so a browser `MessagePort`, a Node `MessagePort` and a test double all fit.
 */
export interface BridgePort {
  postMessage(message: unknown): void;
  addEventListener(type: "message", listener: (event: { readonly data: unknown }) => void): void;
  addEventListener(type: "close", listener: () => void): void;
  removeEventListener(type: "message", listener: (event: { readonly data: unknown }) => void): void;
  removeEventListener(type: "close", listener: () => void): void;
  /** Starts delivery of queued messages (a port used through `addEventListener` needs it). */
  start?(): void;
  close(): void;
}
