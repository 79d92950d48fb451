export * from "./schemas.js";
export * from "./mapping.js";
export { adaptLegacy, decodeLegacy, isLegacyMessage, legacyInstantToTimestamp, type LegacyContext } from "./adapter.js";
export { toLegacy, type LegacyReverseContext } from "./reverse.js";
