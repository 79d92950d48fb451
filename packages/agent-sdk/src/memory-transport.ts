/**
 * An in-memory `Transport` for tests: each `connect` makes a connected pair and hands the server
 * side to `accept`. Frames are delivered asynchronously and in order, like a socket's.
 */
import { Emitter, throwLater } from "@lineup/protocol";
import type { CloseInfo, Connection, Transport } from "./transport.js";

interface Side extends Connection {
  deliver(text: string): void;
  end(info: CloseInfo): void;
}

function side(peer: () => Side | undefined): Side {
  const messages = new Emitter<string>(throwLater);
  const closes = new Emitter<CloseInfo>(throwLater);
  let closed = false;
  const self: Side = {
    send(text) {
      if (closed) return;
      const other = peer();
      queueMicrotask(() => other?.deliver(text));
    },
    onMessage: (listener) => messages.on(listener),
    onClose: (listener) => closes.on(listener),
    close(code = 1000, reason = "") {
      if (closed) return;
      const info = { code, reason };
      self.end(info);
      const other = peer();
      queueMicrotask(() => other?.end(info));
    },
    deliver(text) {
      if (closed) return;
      messages.fire(text);
    },
    end(info) {
      if (closed) return;
      closed = true;
      closes.fire(info);
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
