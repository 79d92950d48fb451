/**
 * Session data over the `RuntimeStore` port: the thin imperative shell around `decideReplace`.
 *
 * Every operation on one session (`app_scope + app_session_id`) runs in one serial queue, so
 * concurrent writers are decided one after another against the committed revision: exactly one
 * write wins per revision. A write is committed before it is acknowledged or shown to any
 * subscriber; a subscription is registered in the same queue, so its first frame is the full
 * snapshot at registration and every later frame has a strictly higher revision — a write between
 * `get()` and `subscribe()` is either in the first frame or the next one. After a restart the
 * service reads the last committed snapshot back from the store.
 */
import type { Unsubscribe } from "../core/emitter.js";
import { isStoreError } from "../persistence/store-error.js";
import type { RuntimeStore } from "../persistence/store.js";
import type { SessionContext, SessionContextRegistry } from "./context.js";
import {
  decideReplace,
  DEFAULT_SESSION_DATA_QUOTA,
  parseStoredSnapshot,
  type SessionDataError,
  type SessionDataQuota,
  type SessionDataSnapshot,
} from "./semantics.js";
import type { JsonValue, Result } from "@lineup/protocol";

export type SessionDataListener = (snapshot: SessionDataSnapshot) => void;

export interface SessionDataServiceOptions {
  readonly store: RuntimeStore;
  /** The store collection holding session data (declared by the Runtime's store schema). */
  readonly collection: string;
  readonly contexts: SessionContextRegistry;
  /** Per app: the manifest's requested size, else the default. */
  readonly quotaFor?: (appScope: string) => SessionDataQuota;
  /** Where a throwing listener's error goes; it never breaks the service. */
  readonly onListenerError?: (error: unknown) => void;
}

export interface SessionDataService {
  get(context: SessionContext): Promise<Result<SessionDataSnapshot, SessionDataError>>;
  replace(context: SessionContext, request: { readonly data: unknown; readonly expected_revision: unknown }): Promise<Result<{ readonly revision: number }, SessionDataError>>;
  /** The first call of `listener` is the full snapshot at registration. Refused for an invalid context. */
  subscribe(context: SessionContext, listener: SessionDataListener): Result<Unsubscribe, SessionDataError>;
  /** Deletes every session of an app (remove, or disable with the user's confirmation) and revokes its contexts. */
  removeApp(appScope: string): Promise<Result<void, SessionDataError>>;
}

interface Session {
  tail: Promise<void>;
  snapshot: SessionDataSnapshot | undefined;
  readonly listeners: Set<SessionDataListener>;
}

function storeFailure(error: unknown): { ok: false; error: SessionDataError } {
  return { ok: false, error: { code: isStoreError(error) ? error.code : "store_write_failed", message: "the session data store failed" } };
}

export function createSessionDataService(options: SessionDataServiceOptions): SessionDataService {
  const { store, collection, contexts } = options;
  const sessions = new Map<string, Session>();
  const quotaFor = options.quotaFor ?? (() => DEFAULT_SESSION_DATA_QUOTA);
  const report = options.onListenerError ?? (() => undefined);

  const session = (key: string): Session => {
    let s = sessions.get(key);
    if (s === undefined) sessions.set(key, (s = { tail: Promise.resolve(), snapshot: undefined, listeners: new Set() }));
    return s;
  };

  /** Runs `task` after everything queued before it on this session. */
  const enqueue = <T>(key: string, task: (s: Session) => Promise<T>): Promise<T> => {
    const s = session(key);
    const run = s.tail.then(() => task(s));
    s.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  };

  const load = async (key: string, s: Session): Promise<SessionDataSnapshot> => {
    if (s.snapshot === undefined) s.snapshot = parseStoredSnapshot(await store.get(collection, key));
    return s.snapshot;
  };

  const notify = (listener: SessionDataListener, snapshot: SessionDataSnapshot) => {
    try {
      listener(snapshot);
    } catch (error) {
      report(error);
    }
  };

  return {
    async get(context) {
      const key = contexts.resolve(context);
      if (!key.ok) return key;
      return enqueue(key.value, async (s) => {
        try {
          return { ok: true, value: await load(key.value, s) };
        } catch (error) {
          return storeFailure(error);
        }
      });
    },

    async replace(context, request) {
      const key = contexts.resolve(context);
      if (!key.ok) return key;
      return enqueue(key.value, async (s): Promise<Result<{ revision: number }, SessionDataError>> => {
        // Checked again in turn: a context revoked while this write waited writes nothing.
        if (!contexts.resolve(context).ok) return { ok: false, error: { code: "session_context_invalid", message: "the SDK context was revoked" } };
        let current: SessionDataSnapshot;
        try {
          current = await load(key.value, s);
        } catch (error) {
          return storeFailure(error);
        }
        const next = decideReplace(current, request, quotaFor(context.app_scope));
        if (!next.ok) return next;
        try {
          await store.commit([{ op: "put", collection, key: key.value, value: next.value as unknown as JsonValue }]);
        } catch (error) {
          s.snapshot = undefined; // re-read what is really stored
          return storeFailure(error);
        }
        s.snapshot = next.value;
        for (const listener of [...s.listeners]) notify(listener, next.value);
        return { ok: true, value: { revision: next.value.revision } };
      });
    },

    subscribe(context, listener) {
      const key = contexts.resolve(context);
      if (!key.ok) return key;
      let active = true;
      const s = session(key.value);
      void enqueue(key.value, async () => {
        if (!active) return;
        let snapshot: SessionDataSnapshot;
        try {
          snapshot = await load(key.value, s);
        } catch (error) {
          report(error);
          return;
        }
        if (!active) return;
        s.listeners.add(listener);
        notify(listener, snapshot);
      });
      return {
        ok: true,
        value: () => {
          active = false;
          s.listeners.delete(listener);
        },
      };
    },

    async removeApp(appScope) {
      contexts.revokeApp(appScope);
      const prefix = `${appScope}/`;
      const pending = [...sessions].filter(([key]) => key.startsWith(prefix)).map(([, s]) => s.tail);
      await Promise.all(pending);
      try {
        await store.commit([{ op: "deleteRange", collection, range: { prefix } }]);
      } catch (error) {
        return storeFailure(error);
      }
      for (const [key, s] of [...sessions]) {
        if (!key.startsWith(prefix)) continue;
        s.listeners.clear();
        sessions.delete(key);
      }
      return { ok: true, value: undefined };
    },
  };
}
