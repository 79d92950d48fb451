/**
 * The plain terms run-time code reads instead of the schemas (the `terms.ts` modules): each names exactly what the schema
 * registries declare, so checking by id and name finds the same generated validator the schema would.
 */
import { describe, expect, it } from "vitest";
import {
  APP_SERVER_NOTIFICATIONS,
  AppManifestSchema,
  ENVELOPE_TYPES,
  ENVELOPE_TYPE_TERMS,
  LEGACY_PAYLOAD_SCHEMAS,
  LegacyFrameSchema,
  RuntimeEnvelopeSchema,
  RUNTIME_ENVELOPE_SCHEMA_ID,
  SESSION_EVENT_KINDS,
  SessionEventSchema,
  envelopePayloadSchemaId,
  isEnvelopeType,
  isLegacyType,
  validators,
} from "../src/index.js";
import { EVIDENCE_PACK_SCHEMA_ID, JSONRPC_FAILURE_SCHEMA_ID, JSONRPC_NOTIFICATION_SCHEMA_ID, JSONRPC_REQUEST_SCHEMA_ID, JSONRPC_SUCCESS_SCHEMA_ID, SERVER_NOTIFICATION_PARAMS_SCHEMA_IDS, SESSION_EVENT_SCHEMA_ID, sessionEventDataSchemaId } from "../src/app-server/terms.js";
import { EvidencePackSchema } from "../src/app-server/evidence.js";
import { JsonRpcFailureSchema, JsonRpcNotificationSchema, JsonRpcRequestSchema, JsonRpcSuccessSchema } from "../src/app-server/jsonrpc.js";
import { APP_MANIFEST_SCHEMA_ID } from "../src/manifest/validate.js";
import { LEGACY_FRAME_SCHEMA_ID, LEGACY_TYPES, legacyPayloadSchemaId } from "../src/legacy/terms.js";

describe("run-time terms", () => {
  it("name the envelope types of the registry, with its senders, targets, correlation and delivery, and its payload ids", () => {
    expect(Object.keys(ENVELOPE_TYPE_TERMS)).toEqual(Object.keys(ENVELOPE_TYPES));
    for (const [type, spec] of Object.entries(ENVELOPE_TYPES)) {
      const { payload, ...terms } = spec;
      expect(ENVELOPE_TYPE_TERMS[type as keyof typeof ENVELOPE_TYPE_TERMS]).toEqual(terms);
      expect(payload.$id).toBe(envelopePayloadSchemaId(type));
      expect(validators[envelopePayloadSchemaId(type)]).toBeTypeOf("function");
      expect(isEnvelopeType(type)).toBe(true);
    }
    expect(isEnvelopeType("lineup.unknown")).toBe(false);
    expect(isEnvelopeType("toString")).toBe(false);
    expect(RuntimeEnvelopeSchema.$id).toBe(RUNTIME_ENVELOPE_SCHEMA_ID);
  });

  it("name the App Server's frame, event and notification schemas", () => {
    expect([JsonRpcRequestSchema.$id, JsonRpcNotificationSchema.$id, JsonRpcSuccessSchema.$id, JsonRpcFailureSchema.$id]).toEqual([
      JSONRPC_REQUEST_SCHEMA_ID,
      JSONRPC_NOTIFICATION_SCHEMA_ID,
      JSONRPC_SUCCESS_SCHEMA_ID,
      JSONRPC_FAILURE_SCHEMA_ID,
    ]);
    expect(SessionEventSchema.$id).toBe(SESSION_EVENT_SCHEMA_ID);
    for (const [kind, spec] of Object.entries(SESSION_EVENT_KINDS)) expect(spec.data.$id).toBe(sessionEventDataSchemaId(kind));
    expect(EvidencePackSchema.$id).toBe(EVIDENCE_PACK_SCHEMA_ID);
    const fromCatalogue = Object.fromEntries(
      Object.values(APP_SERVER_NOTIFICATIONS)
        .filter((n) => n.direction === "server_to_client")
        .map((n) => [n.method, n.params.$id]),
    );
    expect(SERVER_NOTIFICATION_PARAMS_SCHEMA_IDS).toEqual(fromCatalogue);
  });

  it("name the legacy types and their schemas, and the manifest's", () => {
    expect(LEGACY_TYPES).toEqual(Object.keys(LEGACY_PAYLOAD_SCHEMAS));
    for (const [type, schema] of Object.entries(LEGACY_PAYLOAD_SCHEMAS)) {
      expect(schema.$id).toBe(legacyPayloadSchemaId(type));
      expect(isLegacyType(type)).toBe(true);
    }
    expect(isLegacyType("lineup.v1.inventory")).toBe(false);
    expect(LegacyFrameSchema.$id).toBe(LEGACY_FRAME_SCHEMA_ID);
    expect(AppManifestSchema.$id).toBe(APP_MANIFEST_SCHEMA_ID);
  });
});
