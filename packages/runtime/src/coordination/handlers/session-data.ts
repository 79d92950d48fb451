/**
 * Session data writes in the loop (spec 6.3). A replace is decided against the revision the store holds —
 * with the writes of earlier inputs of the same turn, through the loop's overlay — and committed like any
 * other decision, so it is ordered with everything else the Runtime writes: a write decided after an app's
 * removal finds no app and writes nothing (its data went in the removal's commit, never to come back), and
 * no cleanup outside the loop can delete what a reinstalled app wrote since. Subscribers hear the new
 * snapshot after the commit (`session_data.changed`). Not audited: it is the app's own data.
 */
import { LineUpError, type JsonValue } from "@lineup/protocol";
import { activeManifest, getManagedApp } from "../../app-lifecycle/manager/records.js";
import { RUNTIME_COLLECTIONS as C } from "../../persistence/runtime-schema.js";
import { sessionDataKey } from "../../session-data/context.js";
import { decideReplace, DEFAULT_SESSION_DATA_QUOTA, parseStoredSnapshot, type SessionDataQuota } from "../../session-data/semantics.js";
import { readId, unchanged, type ReadKey, type RuntimeInput, type Reads, type TransitionResult } from "../inputs.js";
import type { RuntimeState } from "../state.js";

type ReplaceInput = Extract<RuntimeInput, { kind: "session_data.replace" }>;

export function sessionDataReads(input: ReplaceInput): ReadKey[] {
  return [{ collection: C.sessionData, key: sessionDataKey(input.app_scope, input.app_session_id) }];
}

/** The manifest's requested size, else the default. */
function quotaOf(state: RuntimeState, appScope: string): SessionDataQuota {
  const app = getManagedApp(state.apps, appScope);
  const requested = app === undefined ? undefined : activeManifest(app)?.storage?.session_data_quota_bytes;
  return requested === undefined ? DEFAULT_SESSION_DATA_QUOTA : { ...DEFAULT_SESSION_DATA_QUOTA, maxBytes: requested };
}

export function onSessionDataReplace(state: RuntimeState, input: ReplaceInput, reads: Reads): TransitionResult {
  if (getManagedApp(state.apps, input.app_scope) === undefined) {
    return unchanged(state, { error: new LineUpError("session_context_invalid", `app ${input.app_scope} is not installed: its session data is gone`) });
  }
  const key = sessionDataKey(input.app_scope, input.app_session_id);
  const current = parseStoredSnapshot(reads.get(readId({ collection: C.sessionData, key })));
  const next = decideReplace(current, input.request, quotaOf(state, input.app_scope));
  if (!next.ok) {
    const { code, message, path, data } = next.error;
    return unchanged(state, { error: new LineUpError(code, message, { ...(path === undefined ? {} : { path }), ...(data === undefined ? {} : { data: { ...data } }) }) });
  }
  return unchanged(state, {
    writes: [{ op: "put", collection: C.sessionData, key, value: next.value as unknown as JsonValue }],
    deliveries: [{ kind: "session_data.changed", app_scope: input.app_scope, app_session_id: input.app_session_id, snapshot: next.value }],
    reply: { revision: next.value.revision },
  });
}
