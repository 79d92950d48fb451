import { describe, expect, it } from "vitest";
import { claimProfileLock, type ChannelPort, type LockPort, type ProfileLockState } from "../src/bootstrap/profile-lock.js";

/** A LockManager with the Web Locks semantics used here: exclusive, `ifAvailable`, a FIFO queue, abort. */
class FakeLocks implements LockPort {
  private held: string | undefined;
  private readonly queue: { grant: () => void; signal?: AbortSignal | undefined }[] = [];

  request(name: string, options: { ifAvailable?: boolean; signal?: AbortSignal }, callback: (lock: unknown) => Promise<void>): Promise<unknown> {
    const run = async () => {
      this.held = name;
      try {
        return await callback({ name });
      } finally {
        this.held = undefined;
        this.next();
      }
    };
    // Like the real LockManager, callbacks run asynchronously, never inside request().
    if (this.held === undefined) {
      this.held = name;
      return Promise.resolve().then(run);
    }
    if (options.ifAvailable === true) return Promise.resolve().then(() => callback(null));
    return new Promise((resolve, reject) => {
      const entry = { grant: () => void run().then(resolve, reject), signal: options.signal };
      options.signal?.addEventListener("abort", () => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) this.queue.splice(i, 1);
        reject(new DOMException("aborted", "AbortError"));
      });
      this.queue.push(entry);
    });
  }

  private next(): void {
    const entry = this.queue.shift();
    if (entry === undefined) return;
    this.held = "reserved";
    queueMicrotask(entry.grant);
  }
}

/** BroadcastChannel semantics: a message reaches every other channel of the bus, asynchronously. */
function bus() {
  const members = new Set<{ listeners: ((e: { data: unknown }) => void)[] }>();
  return (): ChannelPort => {
    const self = { listeners: [] as ((e: { data: unknown }) => void)[] };
    members.add(self);
    return {
      postMessage(data) {
        for (const m of members) if (m !== self) for (const l of m.listeners) setTimeout(() => l({ data }), 0);
      },
      addEventListener(_type, listener) {
        self.listeners.push(listener);
      },
      close() {
        members.delete(self);
      },
    };
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

function tab(locks: LockPort, channel: ChannelPort) {
  const log: string[] = [];
  const states: ProfileLockState["status"][] = [];
  const lock = claimProfileLock({
    locks,
    channel,
    name: "lineup-runtime:127.0.0.1:8787",
    onHandOver: async () => {
      log.push("runtime stopped");
    },
  });
  lock.subscribe((s) => states.push(s.status));
  return { lock, log, states };
}

describe("one active Runtime per profile across tabs", () => {
  it("the first tab holds the profile; a second one is told it is open elsewhere", async () => {
    const locks = new FakeLocks();
    const open = bus();
    const a = tab(locks, open());
    await settle();
    const b = tab(locks, open());
    await settle();
    expect(a.lock.state().status).toBe("held");
    expect(b.lock.state()).toEqual({ status: "elsewhere", requested: false });
    a.lock.dispose();
    b.lock.dispose();
  });

  it("'use here' makes the holder stop its Runtime first, then hands the profile over", async () => {
    const locks = new FakeLocks();
    const open = bus();
    const a = tab(locks, open());
    await settle();
    const b = tab(locks, open());
    await settle();
    b.lock.useHere();
    expect(b.lock.state()).toEqual({ status: "elsewhere", requested: true });
    await settle();
    expect(a.log).toEqual(["runtime stopped"]);
    expect(a.states).toEqual(["held", "handing_over", "elsewhere"]);
    expect(b.lock.state().status).toBe("held");
    // And back again.
    a.lock.useHere();
    await settle();
    expect(b.log).toEqual(["runtime stopped"]);
    expect(a.lock.state().status).toBe("held");
    expect(b.lock.state().status).toBe("elsewhere");
    a.lock.dispose();
    b.lock.dispose();
  });

  it("a waiting tab takes over by itself when the holding tab goes away", async () => {
    const locks = new FakeLocks();
    const open = bus();
    const a = tab(locks, open());
    await settle();
    const b = tab(locks, open());
    await settle();
    a.lock.dispose();
    await settle();
    expect(b.lock.state().status).toBe("held");
    expect(b.log).toEqual([]);
    b.lock.dispose();
  });

  it("ignores stray messages and release requests while it does not hold the profile", async () => {
    const locks = new FakeLocks();
    const open = bus();
    const a = tab(locks, open());
    await settle();
    const intruder = open();
    intruder.postMessage({ type: "something else" });
    intruder.postMessage(null);
    await settle();
    expect(a.lock.state().status).toBe("held");
    const b = tab(locks, open());
    await settle();
    b.lock.useHere();
    b.lock.useHere(); // a second click is a no-op while the request is out
    await settle();
    expect(a.log).toEqual(["runtime stopped"]);
    a.lock.dispose();
    b.lock.dispose();
  });

  it("a disposed tab stops waiting and never holds the profile", async () => {
    const locks = new FakeLocks();
    const open = bus();
    const a = tab(locks, open());
    await settle();
    const b = tab(locks, open());
    await settle();
    b.lock.dispose();
    a.lock.dispose();
    await settle();
    expect(b.lock.state().status).toBe("disposed");
    const c = tab(locks, open());
    await settle();
    expect(c.lock.state().status).toBe("held");
    c.lock.dispose();
  });
});
