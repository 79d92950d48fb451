/**
 * An in-memory Transport: every `open` asks a `MemoryListener` (the test's server side) to accept a
 * connection and returns the client end of a pair. Frames are delivered asynchronously (on a later
 * microtask), in order, like a socket; closing either end closes both.
 */
import { Emitter, type Unsubscribe } from "../core/emitter.js";
import type { Transport, TransportClose, TransportConnection } from "../communication/transport.js";

/** The server side of a memory transport: called for each client connection. */
export type MemoryListener = (server: TransportConnection, url: string) => void;

export interface MemoryTransport extends Transport {
  /** While down, `open` rejects as an unreachable server does. */
  setReachable(reachable: boolean): void;
  /** Closes every open connection (the network dropped). */
  dropAll(): void;
  readonly openConnections: number;
}

export function createMemoryTransport(listen: MemoryListener): MemoryTransport {
  let reachable = true;
  const live = new Set<() => void>();
  return {
    async open(url) {
      if (!reachable) throw new Error(`connect ECONNREFUSED ${url}`);
      const [client, server, close] = createPair();
      live.add(close);
      client.onClose(() => live.delete(close));
      listen(server, url);
      return client;
    },
    setReachable(value) {
      reachable = value;
    },
    dropAll() {
      for (const close of [...live]) close();
    },
    get openConnections() {
      return live.size;
    },
  };
}

/** Two connected ends; the third element closes both as a network failure would (code 1006). */
export function createPair(): [TransportConnection, TransportConnection, () => void] {
  let closed: TransportClose | undefined;
  const messages = [new Emitter<string>(), new Emitter<string>()] as const;
  // Frames on their way to each side. Each send queues one microtask that delivers the oldest frame, so
  // every frame arrives on its own microtask, in order, as before — with no closure made per frame.
  const queued: [string[], string[]] = [[], []];
  const deliverNext = (to: 0 | 1): void => {
    const text = queued[to].shift();
    if (text !== undefined && closed === undefined) messages[to].fire(text);
  };
  const deliverTo = [() => deliverNext(0), () => deliverNext(1)] as const;
  const closes = [new Emitter<TransportClose>(), new Emitter<TransportClose>()] as const;
  const closeBoth = (close: TransportClose): void => {
    if (closed !== undefined) return;
    closed = close;
    // Frames already queued are dropped, as with a socket torn down.
    void Promise.resolve().then(() => {
      closes[0].fire(close);
      closes[1].fire(close);
    });
  };
  const end = (side: 0 | 1): TransportConnection => ({
    send(text) {
      if (closed !== undefined) return;
      const to = side === 0 ? 1 : 0;
      queued[to].push(text);
      void Promise.resolve().then(deliverTo[to]);
    },
    onMessage: (listener): Unsubscribe => messages[side].on(listener),
    onClose(listener): Unsubscribe {
      if (closed !== undefined) {
        const seen = closed;
        void Promise.resolve().then(() => listener(seen));
        return () => undefined;
      }
      return closes[side].on(listener);
    },
    close(code = 1000, reason = "") {
      closeBoth({ code, reason });
    },
  });
  return [end(0), end(1), () => closeBoth({ code: 1006, reason: "connection dropped" })];
}
