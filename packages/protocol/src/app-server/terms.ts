/**
 * Plain values of the App Server contract that run-time code reads: schema ids, under which the generated validators
 * are found. The schemas themselves are declared beside them (events.ts, jsonrpc.ts, evidence.ts) for the generator
 * and for types, so a bundle that only checks frames carries neither the declarations nor TypeBox.
 */
import { schemaId } from "../schema-id.js";

/** A session event (the params of `agentSession/event`). */
export const SESSION_EVENT_SCHEMA_ID = /* @__PURE__ */ schemaId("app-server.event");
/** The data of a session event of `kind`. */
export const sessionEventDataSchemaId = (kind: string): string => schemaId(`app-server.event.${kind}`);

export const JSONRPC_REQUEST_SCHEMA_ID = /* @__PURE__ */ schemaId("jsonrpc.request");
export const JSONRPC_NOTIFICATION_SCHEMA_ID = /* @__PURE__ */ schemaId("jsonrpc.notification");
export const JSONRPC_SUCCESS_SCHEMA_ID = /* @__PURE__ */ schemaId("jsonrpc.success");
export const JSONRPC_FAILURE_SCHEMA_ID = /* @__PURE__ */ schemaId("jsonrpc.failure");
export const EVIDENCE_PACK_SCHEMA_ID = /* @__PURE__ */ schemaId("app-server.evidence-pack");

/**
 * The params schema id of each notification the server sends a client: what `checkServerNotificationParams` checks
 * against. The catalogue (`APP_SERVER_NOTIFICATIONS`) names the same schemas (test/terms.test.ts).
 */
export const SERVER_NOTIFICATION_PARAMS_SCHEMA_IDS: Readonly<Record<string, string>> = {
  "connection/pong": /* @__PURE__ */ schemaId("app-server.connection.pong.params"),
  "agentSession/event": SESSION_EVENT_SCHEMA_ID,
  "agentSession/caughtUp": /* @__PURE__ */ schemaId("app-server.agentSession.caughtUp.params"),
  "agentSession/bound": /* @__PURE__ */ schemaId("app-server.agentSession.bound.params"),
  "agentSession/presence": /* @__PURE__ */ schemaId("app-server.agentSession.presence.params"),
  "catalog/released": /* @__PURE__ */ schemaId("app-server.catalog.released.params"),
};
