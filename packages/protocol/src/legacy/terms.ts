/**
 * The legacy `lineup.v1.*` shapes as plain values: the types and the ids of their schemas, under which the generated
 * validators are found. The schemas are declared in schemas.ts, for the generator and for types.
 */
import { schemaId } from "../schema-id.js";

export const LEGACY_TYPE_PREFIX = "lineup.v1.";

/** Every legacy type; schemas.ts declares one payload schema for each. */
export const LEGACY_TYPES = [
  "lineup.v1.message",
  "lineup.v1.status",
  "lineup.v1.task.progress",
  "lineup.v1.choice",
  "lineup.v1.confirm",
  "lineup.v1.input",
  "lineup.v1.interaction.response",
  "lineup.v1.tool.call",
  "lineup.v1.tool.result",
  "lineup.v1.tool.error",
  "lineup.v1.surface.state",
  "lineup.v1.surface.event",
  "lineup.v1.artifact",
] as const;
export type LegacyType = (typeof LEGACY_TYPES)[number];

const LEGACY_TYPE_SET: ReadonlySet<string> = new Set(LEGACY_TYPES);

export function isLegacyType(value: unknown): value is LegacyType {
  return typeof value === "string" && LEGACY_TYPE_SET.has(value);
}

export const LEGACY_FRAME_SCHEMA_ID = /* @__PURE__ */ schemaId("legacy.lineup.v1.frame");
export const legacyPayloadSchemaId = (type: string): string => schemaId(`legacy.payload.${type}`);
