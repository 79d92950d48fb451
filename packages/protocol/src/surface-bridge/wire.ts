/**
 * The Surface Bridge's fixed words, as plain data (no schema builder), so an app's page can name
 * them without carrying the schemas (schemas.ts declares the frames with them).
 */
export const BRIDGE_PROTOCOL = "lineup.surface";
export const BRIDGE_VERSION = 1;
export const BRIDGE_KINDS = ["request", "response", "event"] as const;
export type BridgeKind = (typeof BRIDGE_KINDS)[number];
/** Which way a message flows: app → host (`to_host`) or host → app (`to_app`). */
export const BRIDGE_DIRECTIONS = ["to_host", "to_app"] as const;
export type BridgeDirection = (typeof BRIDGE_DIRECTIONS)[number];

/** The per-instance nonce: 16–128 URL-safe characters, fresh for each launch. */
export const BRIDGE_NONCE_PATTERN = "^[A-Za-z0-9_-]{16,128}$";
/** Method and event names: dotted lowercase words (`session_data.replace`). */
export const BRIDGE_NAME_PATTERN = "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)*$";
