/**
 * Session data for apps: the SDK contexts, reads and subscriptions. Writes are not made here: `replace`
 * hands the decision to the Runtime's loop (`write`: the input `session_data.replace`, decided against the
 * stored revision and committed in a turn like any other), so the loop stays the one writer of the store —
 * exactly one write wins per revision, and removing an app and writing its data are ordered by the loop.
 *
 * A write is committed before it is acknowledged or shown to a subscriber (`changed`, called by the shell
 * for each committed change). A subscription's first frame is the full snapshot read at registration; a
 * change committed meanwhile is held and shown after it if newer, so every later frame has a strictly higher
 * revision and a write between `get()` and `subscribe()` is either in the first frame or the next one.
 */
import type { Unsubscribe } from "../core/emitter.js";
import { isStoreError } from "../persistence/store-error.js";
import type { RuntimeStore } from "../persistence/store.js";
import { sessionDataKey, type SessionContext, type SessionContextRegistry } from "./context.js";
import { parseStoredSnapshot, type ReplaceRequest, type SessionDataError, type SessionDataSnapshot } from "./semantics.js";
import { LineUpError, type JsonValue, type Result } from "@lineup/protocol";
import type { RuntimeInput } from "../coordination/inputs.js";

export type SessionDataListener = (snapshot: SessionDataSnapshot) => void;

export interface SessionDataServiceOptions {
  /** Reads the committed snapshots; nothing here writes. */
  readonly store: Pick<RuntimeStore, "get">;
  /** The store collection holding session data (declared by the Runtime's store schema). */
  readonly collection: string;
  readonly contexts: SessionContextRegistry;
  /** Posts to the Runtime's loop, which decides and commits a replace; resolves after the commit with `{ revision }`, or rejects with the refusal. */
  readonly post: (input: Extract<RuntimeInput, { kind: "session_data.replace" }>) => Promise<JsonValue | undefined>;
  /** Where a throwing listener's error goes; it never breaks the service. */
  readonly onListenerError?: (error: unknown) => void;
}

export interface SessionDataService {
  get(context: SessionContext): Promise<Result<SessionDataSnapshot, SessionDataError>>;
  replace(context: SessionContext, request: ReplaceRequest): Promise<Result<{ readonly revision: number }, SessionDataError>>;
  /** The first call of `listener` is the full snapshot at registration. Refused for an invalid context. */
  subscribe(context: SessionContext, listener: SessionDataListener): Result<Unsubscribe, SessionDataError>;
  /** A committed change of one session (the loop's `session_data.changed`), for its subscribers. */
  changed(appScope: string, appSessionId: string, snapshot: SessionDataSnapshot): void;
  /** The app was removed (its data went in that commit): its contexts are revoked and its subscribers dropped. */
  removeApp(appScope: string): void;
}

interface Subscriber {
  readonly listener: SessionDataListener;
  /** The revision of the last frame shown; -1 before the first. */
  last: number;
  /** Changes committed before the first frame was read, shown after it if newer. */
  held: SessionDataSnapshot[] | undefined;
}

function storeFailure(error: unknown): { ok: false; error: SessionDataError } {
  return { ok: false, error: { code: isStoreError(error) ? error.code : "store_write_failed", message: "the session data store failed" } };
}

export function createSessionDataService(options: SessionDataServiceOptions): SessionDataService {
  const { store, collection, contexts } = options;
  const subscribers = new Map<string, Set<Subscriber>>();
  const report = options.onListenerError ?? (() => undefined);

  const show = (subscriber: Subscriber, snapshot: SessionDataSnapshot): void => {
    if (snapshot.revision <= subscriber.last) return;
    subscriber.last = snapshot.revision;
    try {
      subscriber.listener(snapshot);
    } catch (error) {
      report(error);
    }
  };

  return {
    async get(context) {
      const key = contexts.resolve(context);
      if (!key.ok) return key;
      try {
        return { ok: true, value: parseStoredSnapshot(await store.get(collection, key.value)) };
      } catch (error) {
        return storeFailure(error);
      }
    },

    async replace(context, request) {
      if (!contexts.resolve(context).ok) return { ok: false, error: { code: "session_context_invalid", message: "the SDK context is stale, revoked or was not issued by this Runtime" } };
      try {
        const reply = (await options.post({ kind: "session_data.replace", app_scope: context.app_scope, app_session_id: context.app_session_id, request })) as { revision: number };
        return { ok: true, value: { revision: reply.revision } };
      } catch (error) {
        if (!(error instanceof LineUpError)) return storeFailure(error);
        const refusal: SessionDataError = { code: error.code, message: error.message, ...(error.path === undefined ? {} : { path: error.path }), ...(error.data === undefined ? {} : { data: error.data as unknown as NonNullable<SessionDataError["data"]> }) };
        return { ok: false, error: refusal };
      }
    },

    subscribe(context, listener) {
      const key = contexts.resolve(context);
      if (!key.ok) return key;
      const subscriber: Subscriber = { listener, last: -1, held: [] };
      let set = subscribers.get(key.value);
      if (set === undefined) subscribers.set(key.value, (set = new Set()));
      set.add(subscriber);
      const unsubscribe = () => {
        const current = subscribers.get(key.value);
        current?.delete(subscriber);
        if (current?.size === 0) subscribers.delete(key.value);
      };
      store.get(collection, key.value).then(
        (value) => {
          if (subscribers.get(key.value)?.has(subscriber) !== true) return;
          const held = subscriber.held ?? [];
          subscriber.held = undefined;
          show(subscriber, parseStoredSnapshot(value));
          for (const snapshot of held) show(subscriber, snapshot);
        },
        (error: unknown) => {
          unsubscribe();
          report(error);
        },
      );
      return { ok: true, value: unsubscribe };
    },

    changed(appScope, appSessionId, snapshot) {
      for (const subscriber of [...(subscribers.get(sessionDataKey(appScope, appSessionId)) ?? [])]) {
        if (subscriber.held !== undefined) subscriber.held.push(snapshot);
        else show(subscriber, snapshot);
      }
    },

    removeApp(appScope) {
      contexts.revokeApp(appScope);
      const prefix = `${appScope}/`;
      for (const key of [...subscribers.keys()]) if (key.startsWith(prefix)) subscribers.delete(key);
    },
  };
}
