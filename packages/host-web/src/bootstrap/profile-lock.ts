/**
 * One active Runtime per profile across tabs (issue 6). The tab holding the Web Lock named for the profile
 * runs the Runtime; any other tab shows "LineUp is open in another tab" instead of fighting over the
 * IndexedDB store. "Use here" asks the holder, over a BroadcastChannel, to let go: the holder stops its
 * Runtime (so every write is committed), releases the lock, and the asking tab's queued request is granted.
 * A tab that does not hold the lock always keeps one queued request, so closing the holder hands over too.
 *
 * Platform objects come in as small ports, so the logic is tested without a browser.
 */
import { Emitter } from "@lineup/protocol";

/** The subset of `navigator.locks` used here. */
export interface LockPort {
  request(name: string, options: { ifAvailable?: boolean; signal?: AbortSignal }, callback: (lock: unknown) => Promise<void>): Promise<unknown>;
}

/** The subset of `BroadcastChannel` used here. */
export interface ChannelPort {
  postMessage(message: unknown): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  close(): void;
}

export type ProfileLockState =
  /** Asking for the lock for the first time. */
  | { readonly status: "acquiring" }
  /** This tab holds the lock: it runs the Runtime. */
  | { readonly status: "held" }
  /** Another tab holds it; this tab waits (and may ask for it with `useHere`). */
  | { readonly status: "elsewhere"; readonly requested: boolean }
  /** Another tab asked for the profile; this tab is stopping its Runtime before letting go. */
  | { readonly status: "handing_over" }
  | { readonly status: "disposed" };

export interface ProfileLockOptions {
  readonly locks: LockPort;
  readonly channel: ChannelPort;
  /** The profile's lock name (one per IndexedDB database). */
  readonly name: string;
  /** Called when another tab asked to take over; the lock is released once it settles (even if it fails). */
  readonly onHandOver: () => Promise<void>;
}

export interface ProfileLock {
  state(): ProfileLockState;
  /** The listener runs on every change; returns its unsubscribe. */
  subscribe(listener: (state: ProfileLockState) => void): () => void;
  /** From `elsewhere`: asks the holding tab to let go. Our queued request is granted once it does. */
  useHere(): void;
  /** Releases the lock (if held) and cancels the queued request. */
  dispose(): void;
}

const RELEASE_REQUEST = "lineup.profile.release-request";

export function claimProfileLock(options: ProfileLockOptions): ProfileLock {
  let current: ProfileLockState = { status: "acquiring" };
  // A throwing listener must not stop the others (STYLE 11); the shell reports its own errors.
  const changes = new Emitter<ProfileLockState>((error) => console.error("[lineup] a profile lock listener failed", error));
  const aborter = new AbortController();
  let release: (() => void) | undefined;

  const set = (next: ProfileLockState): void => {
    if (current.status === "disposed") return;
    current = next;
    changes.fire(next);
  };

  const hold = (): Promise<void> => {
    set({ status: "held" });
    return new Promise<void>((resolve) => {
      release = resolve;
    });
  };

  /** Queues a waiting request: granted when the holder releases (hand-over or tab closed). */
  const wait = (): void => {
    if (current.status === "disposed") return;
    options.locks
      .request(options.name, { signal: aborter.signal }, async () => {
        if (current.status === "disposed") return;
        await hold();
      })
      .then(afterRelease, () => undefined);
  };

  const afterRelease = (): void => {
    release = undefined;
    if (current.status === "disposed") return;
    set({ status: "elsewhere", requested: false });
    wait();
  };

  options.channel.addEventListener("message", (event) => {
    const data = event.data as { type?: unknown } | null;
    if (data === null || typeof data !== "object" || data.type !== RELEASE_REQUEST) return;
    if (current.status !== "held" || release === undefined) return;
    const letGo = release;
    set({ status: "handing_over" });
    options.onHandOver().then(letGo, letGo);
  });

  options.locks
    .request(options.name, { ifAvailable: true }, async (lock) => {
      if (current.status === "disposed") return;
      if (lock === null) {
        set({ status: "elsewhere", requested: false });
        wait();
        return;
      }
      await hold();
    })
    .then(() => {
      // Resolves after the callback: either we never got the lock (already waiting) or we released it.
      if (current.status === "handing_over") afterRelease();
    }, () => undefined);

  return {
    state: () => current,
    subscribe: (listener) => changes.on(listener),
    useHere() {
      if (current.status !== "elsewhere") return;
      set({ status: "elsewhere", requested: true });
      options.channel.postMessage({ type: RELEASE_REQUEST });
    },
    dispose() {
      if (current.status === "disposed") return;
      current = { status: "disposed" };
      changes.clear();
      aborter.abort();
      release?.();
      options.channel.close();
    },
  };
}
