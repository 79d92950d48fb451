/** The App Server protocol: JSON-RPC 2.0 framing, the method catalogue, records, events, evidence packs. */
export * from "./records.js";
export * from "./events.js";
export * from "./schemas.js";
export * from "./catalogue.js";
export * from "./catalog.js";
export * from "./jsonrpc.js";
export * from "./rpc-client.js";
export * from "./validate.js";
export * from "./evidence.js";
export * from "./evidence-provenance.js";
export * from "./base64.js";
export * from "./heartbeat.js";

export { APP_SERVER_SCHEMAS } from "./all-schemas.js";
