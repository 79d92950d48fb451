/**
 * The handover: how the sandboxed app gets its private port, its nonce and its first frame.
 *
 * The host posts one message to the iframe's window with the port in `ports[0]`; its data is a
 * bridge frame carrying the instance nonce — normally the `host.snapshot` event itself. If the data
 * is any other frame of the bridge (just the nonce), the snapshot must be the first frame on the
 * port. The window is listened to only until that one message arrives: later messages on the window
 * are never read, so a frame that merely posts to the window cannot speak for the host. The
 * sandboxed frame's `event.origin` is `"null"` and proves nothing; where the source can be checked
 * (a real window) only the parent's message counts.
 *
 * An embedder that already holds the port (a worker, a test) passes it and skips the window.
 */
import {
  BRIDGE_NONCE_PATTERN,
  BRIDGE_PROTOCOL,
  BRIDGE_VERSION,
  decodeBridgeMessageInApp,
  LineUpError,
  type BridgeHostSnapshot,
} from "@lineup/protocol";
import type { DiagnosticsSink } from "./emitter.js";
import type { BridgePort } from "./port.js";

/** A `window`-like source of the handover message. */
export interface HandoverSource {
  addEventListener(type: "message", listener: (event: HandoverEvent) => void): void;
  removeEventListener(type: "message", listener: (event: HandoverEvent) => void): void;
}

export interface HandoverEvent {
  readonly data: unknown;
  readonly ports: readonly unknown[];
  readonly source?: unknown;
}

export interface Handover {
  readonly port: BridgePort;
  readonly nonce: string;
  readonly snapshot: BridgeHostSnapshot;
}

export interface HandoverOptions {
  /** The window to listen on; default `globalThis` when it has `addEventListener`. Ignored when `port` is given. */
  readonly source?: HandoverSource;
  /** Only a message whose `event.source` is this counts (default: `window.parent` when listening on the real window). */
  readonly expectedSender?: unknown;
  /** A port handed over some other way; the first frame on it must be the snapshot. */
  readonly port?: BridgePort;
  /** How long to wait for the handover and the snapshot. Default 10 s. */
  readonly timeoutMs?: number;
  readonly diagnostics: DiagnosticsSink;
}

const nonceRe = new RegExp(BRIDGE_NONCE_PATTERN);

function nonceOf(data: unknown): string | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const frame = data as Record<string, unknown>;
  const nonce = frame["nonce"];
  if (frame["bridge"] !== BRIDGE_PROTOCOL || frame["v"] !== BRIDGE_VERSION || typeof nonce !== "string" || !nonceRe.test(nonce)) return undefined;
  return nonce;
}

/** A snapshot frame for this nonce, or undefined (with the reason sent to diagnostics). */
function snapshotOf(data: unknown, nonce: string, diagnostics: DiagnosticsSink): BridgeHostSnapshot | undefined {
  const decoded = decodeBridgeMessageInApp(data, { nonce, direction: "to_app" });
  if (!decoded.ok) {
    diagnostics({ kind: "frame_dropped", code: decoded.error.code, message: `handover: ${decoded.error.message}` });
    return undefined;
  }
  const message = decoded.value;
  if (message.kind !== "event" || message.name !== "host.snapshot") return undefined;
  return message.data as BridgeHostSnapshot;
}

function isPort(value: unknown): value is BridgePort {
  return typeof value === "object" && value !== null && typeof (value as { postMessage?: unknown }).postMessage === "function";
}

function defaultSource(): { source: HandoverSource; sender: unknown } | undefined {
  const g = globalThis as unknown as { addEventListener?: unknown; parent?: unknown; window?: unknown };
  if (typeof g.addEventListener !== "function") return undefined;
  // Inside an iframe the host is the parent; at the top level (parent === self) nobody can be checked for.
  const sender = g.window !== undefined && g.parent !== undefined && g.parent !== g.window ? g.parent : undefined;
  return { source: globalThis as unknown as HandoverSource, sender };
}

/** Waits for the port, nonce and snapshot. Rejects with `request_timeout` if the host never hands over. */
export function waitForHandover(options: HandoverOptions): Promise<Handover> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const { diagnostics } = options;
  return new Promise<Handover>((resolve, reject) => {
    let cleanup = (): void => {};
    const timer = setTimeout(() => {
      cleanup();
      reject(new LineUpError("request_timeout", `the host did not hand over the bridge within ${timeoutMs} ms`));
    }, timeoutMs);

    /** The snapshot must be the first frame on the port; anything else first is a broken host. */
    const awaitSnapshotOn = (port: BridgePort, nonce: string | undefined): void => {
      const onMessage = (event: { readonly data: unknown }): void => {
        const frameNonce = nonce ?? nonceOf(event.data);
        const snapshot = frameNonce === undefined ? undefined : snapshotOf(event.data, frameNonce, diagnostics);
        port.removeEventListener("message", onMessage);
        clearTimeout(timer);
        if (snapshot === undefined || frameNonce === undefined) {
          reject(new LineUpError("bridge_frame_invalid", "the first frame on the bridge port is not a valid host.snapshot"));
          return;
        }
        resolve({ port, nonce: frameNonce, snapshot });
      };
      port.addEventListener("message", onMessage);
      port.start?.();
      cleanup = () => port.removeEventListener("message", onMessage);
    };

    if (options.port !== undefined) {
      awaitSnapshotOn(options.port, undefined);
      return;
    }
    const fallback = defaultSource();
    const source = options.source ?? fallback?.source;
    if (source === undefined) {
      clearTimeout(timer);
      reject(new LineUpError("bridge_frame_invalid", "no window to receive the bridge handover from, and no port given"));
      return;
    }
    const expectedSender = options.expectedSender ?? (options.source === undefined ? fallback?.sender : undefined);
    const onHandover = (event: HandoverEvent): void => {
      if (expectedSender !== undefined && event.source !== expectedSender) return;
      const port = event.ports[0];
      const nonce = nonceOf(event.data);
      if (event.ports.length !== 1 || !isPort(port) || nonce === undefined) {
        diagnostics({ kind: "frame_dropped", code: "bridge_protocol_mismatch", message: "handover: a window message without exactly one port and a bridge nonce" });
        return;
      }
      // Handed over once: the window is not listened to again.
      source.removeEventListener("message", onHandover);
      const snapshot = snapshotOf(event.data, nonce, diagnostics);
      if (snapshot !== undefined) {
        clearTimeout(timer);
        resolve({ port, nonce, snapshot });
        return;
      }
      awaitSnapshotOn(port, nonce);
    };
    source.addEventListener("message", onHandover);
    cleanup = () => source.removeEventListener("message", onHandover);
  });
}
