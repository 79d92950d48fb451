/**
 * `sdk.sessionData` (spec 6.3) over the `AppPort`: the data of one app session, `app_scope +
 * app_session_id`, both fixed by the SDK's context — no call takes a scope or a session id. The
 * Runtime issues the context once per SDK (at first use); after the app is removed that context stays
 * revoked, so a stale SDK is refused (`session_context_invalid`) instead of reaching new data.
 *
 * Refusals become a `LineUpError` with the Runtime's code and detail (`revision_conflict` carries
 * `current_revision`, `quota_exceeded` usage and limit). Subscribers get the full snapshot first,
 * then strictly increasing revisions: anything not newer than what a listener saw is dropped here.
 */
import { LineUpError, type JsonObject } from "@lineup/protocol";
import type { AppPort, AppSessionData, SessionDataError } from "@lineup/runtime";
import type { Diagnostics } from "./diagnostics.js";
import type { MiniAppSessionDataAPI, SessionDataSnapshot, Unsubscribe } from "./types.js";

function toError(error: SessionDataError): LineUpError {
  return new LineUpError(error.code, error.message, {
    ...(error.path === undefined ? {} : { path: error.path }),
    ...(error.data === undefined ? {} : { data: { ...error.data } }),
  });
}

export function createSessionData(port: AppPort, appSessionId: string, diagnostics: Diagnostics): MiniAppSessionDataAPI {
  let session: AppSessionData | undefined;
  const data = (): AppSessionData => (session ??= port.sessionData(appSessionId));

  type ReplaceArgs = readonly [data: JsonObject, expected_revision: number] | readonly [request: { readonly data: JsonObject; readonly expected_revision: number }];
  async function replace(...args: ReplaceArgs): Promise<{ readonly revision: number }> {
    // Two arguments: `replace(data, expected_revision)`; one: the spec's `replace({ data, expected_revision })`.
    const request: { readonly data: unknown; readonly expected_revision: unknown } = args.length === 2 ? { data: args[0], expected_revision: args[1] } : args[0];
    if (typeof request !== "object" || request === null) throw new LineUpError("invalid_params", "replace takes (data, expected_revision) or { data, expected_revision }");
    const result = await data().replace({ data: request.data, expected_revision: request.expected_revision });
    if (!result.ok) throw toError(result.error);
    return { revision: result.value.revision };
  }

  return {
    async get(): Promise<SessionDataSnapshot> {
      const result = await data().get();
      if (!result.ok) throw toError(result.error);
      return { data: result.value.data, revision: result.value.revision };
    },

    replace: replace as MiniAppSessionDataAPI["replace"],

    subscribe(listener: (snapshot: SessionDataSnapshot) => void): Unsubscribe {
      let last = -1;
      let active = true;
      const subscribed = data().subscribe((snapshot) => {
        if (!active || snapshot.revision <= last) return;
        last = snapshot.revision;
        try {
          listener({ data: snapshot.data, revision: snapshot.revision });
        } catch (error) {
          diagnostics.report("session data listener threw", error);
        }
      });
      if (!subscribed.ok) throw toError(subscribed.error);
      const off = subscribed.value;
      return () => {
        active = false;
        off();
      };
    },
  };
}
