/**
 * Session data kept in memory with the Runtime's revision rule (`nextSessionDataRevision`, spec 6.3): an app's stand-in when its
 * page is opened outside LineUp (development), and the store behind an app's own unit tests. The first
 * subscription frame is the snapshot at registration; a stale `expected_revision` is `revision_conflict`.
 */
import { LineUpError, nextSessionDataRevision, type JsonObject } from "@lineup/protocol";
import { Emitter, throwLater, type Unsubscribe } from "./emitter.js";
import type { MiniAppSessionDataAPI, SessionDataSnapshot } from "./session-data.js";

export class LocalSessionData implements MiniAppSessionDataAPI {
  #snapshot: SessionDataSnapshot = { data: null, revision: 0 };
  readonly #changes = new Emitter<SessionDataSnapshot>(throwLater);

  get current(): SessionDataSnapshot {
    return this.#snapshot;
  }

  async get(): Promise<SessionDataSnapshot> {
    return this.#snapshot;
  }

  async replace(request: { data: JsonObject; expected_revision: number }): Promise<{ revision: number }> {
    const revision = nextSessionDataRevision(this.#snapshot.revision, request.expected_revision);
    if (!revision.ok) throw new LineUpError(revision.error.code, revision.error.message, { data: revision.error.data });
    this.#snapshot = { data: structuredClone(request.data), revision: revision.value };
    const snapshot = this.#snapshot;
    queueMicrotask(() => this.#changes.fire(snapshot));
    return { revision: snapshot.revision };
  }

  subscribe(listener: (snapshot: SessionDataSnapshot) => void): Unsubscribe {
    const subscribed = this.#changes.on(listener);
    const snapshot = this.#snapshot;
    queueMicrotask(() => listener(snapshot));
    return subscribed;
  }
}
