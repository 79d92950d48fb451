/**
 * An in-memory `Transport` for tests: each `connect` makes a connected pair and hands the server
 * side to `accept`. Frames are delivered asynchronously and in order, like a socket's.
 */
import type { CloseInfo, Connection, Transport } from "./transport.js";

interface Side extends Connection {
  deliver(text: string): void;
  end(info: CloseInfo): void;
}

function side(peer: () => Side | undefined): Side {
  const messages = new Set<(text: string) => void>();
  const closes = new Set<(info: CloseInfo) => void>();
  let closed = false;
  const self: Side = {
    send(text) {
      if (closed) return;
      const other = peer();
      queueMicrotask(() => other?.deliver(text));
    },
    onMessage: (listener) => (messages.add(listener), { dispose: () => void messages.delete(listener) }),
    onClose: (listener) => (closes.add(listener), { dispose: () => void closes.delete(listener) }),
    close(code = 1000, reason = "") {
      if (closed) return;
      const info = { code, reason };
      self.end(info);
      const other = peer();
      queueMicrotask(() => other?.end(info));
    },
    deliver(text) {
      if (closed) return;
      for (const listener of [...messages]) listener(text);
    },
    end(info) {
      if (closed) return;
      closed = true;
      for (const listener of [...closes]) listener(info);
    },
  };
  return self;
}

/** Options for simulating an unreachable server. */
export interface MemoryTransportOptions {
  /** When it returns true, `connect` rejects (the server is "down"). */
  readonly refuse?: () => boolean;
}

export function memoryTransport(accept: (serverSide: Connection, url: string) => void, options: MemoryTransportOptions = {}): Transport {
  return {
    async connect(url) {
      if (options.refuse?.() === true) throw new Error(`connection to ${url} refused`);
      // Each side finds its peer lazily: the two are created one after the other.
      const peers: { client?: Side; server?: Side } = {};
      const client = (peers.client = side(() => peers.server));
      const server = (peers.server = side(() => peers.client));
      accept(server, url);
      return client;
    },
  };
}
