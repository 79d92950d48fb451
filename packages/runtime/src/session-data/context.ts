/**
 * The SDK context that names a session (spec 6.3: "由不可伪造的 SDK context 推导"). The Runtime
 * issues one frozen object per app session it opens and recognises only the objects it issued —
 * by identity, not by their fields — so an app cannot reach another app's or another session's
 * data by writing `{ app_scope: "other" }`. Revoking (the surface closed, the app disabled or
 * removed) makes the object worthless at once: `session_context_invalid`.
 */
import { fail, isAppScope, isOpaqueId, ok, type Result } from "@lineup/protocol";

export interface SessionContext {
  readonly app_scope: string;
  readonly app_session_id: string;
}

export class SessionContextRegistry {
  private readonly valid = new WeakSet<SessionContext>();
  private readonly byApp = new Map<string, Set<SessionContext>>();
  /** The one context handed out per session by `contextOf`, by `sessionDataKey`. */
  private readonly handedOut = new Map<string, SessionContext>();

  /** Issues a context for a session the Runtime opened. Throws on a malformed scope or id (a Runtime bug, never app input). */
  issue(appScope: string, appSessionId: string): SessionContext {
    if (!isAppScope(appScope) || !isOpaqueId(appSessionId)) throw new TypeError(`invalid session context ${appScope}/${appSessionId}`);
    const context: SessionContext = Object.freeze({ app_scope: appScope, app_session_id: appSessionId });
    this.valid.add(context);
    let set = this.byApp.get(appScope);
    if (set === undefined) this.byApp.set(appScope, (set = new Set()));
    set.add(context);
    return context;
  }

  /** The context of an app's session the Runtime serves: issued on first ask, the same object after, until revoked. */
  contextOf(appScope: string, appSessionId: string): SessionContext {
    const key = sessionDataKey(appScope, appSessionId);
    let context = this.handedOut.get(key);
    if (context === undefined) this.handedOut.set(key, (context = this.issue(appScope, appSessionId)));
    return context;
  }

  revoke(context: SessionContext): void {
    if (this.handedOut.get(sessionDataKey(context.app_scope, context.app_session_id)) === context) this.handedOut.delete(sessionDataKey(context.app_scope, context.app_session_id));
    this.valid.delete(context);
    this.byApp.get(context.app_scope)?.delete(context);
  }

  /** Revokes every context of an app (disable, remove). */
  revokeApp(appScope: string): void {
    for (const context of this.byApp.get(appScope) ?? []) {
      this.valid.delete(context);
      this.handedOut.delete(sessionDataKey(context.app_scope, context.app_session_id));
    }
    this.byApp.delete(appScope);
  }

  /** The storage key of a context the Runtime issued and has not revoked. */
  resolve(context: unknown): Result<string> {
    if (typeof context !== "object" || context === null || !this.valid.has(context as SessionContext)) {
      return fail("session_context_invalid", "the SDK context is stale, revoked or was not issued by this Runtime");
    }
    const c = context as SessionContext;
    return ok(sessionDataKey(c.app_scope, c.app_session_id));
  }
}

/** `app_scope/app_session_id`: printable ASCII, so a valid store key; the scope prefix makes removal one range delete. */
export function sessionDataKey(appScope: string, appSessionId: string): string {
  return `${appScope}/${appSessionId}`;
}
