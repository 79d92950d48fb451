/** Tools (spec 7): registry, inventory, router, call lifecycle, activation queue, runtime-owned operations. */
export * from "./payloads.js";
export * from "./registry.js";
export * from "./inventory.js";
export * from "./router.js";
export * from "./call-state.js";
export * from "./activation.js";
export * from "./invoke.js";
export * from "./reports.js";
export * from "./operations.js";
export * from "./restart.js";
export * from "./call-view.js";
export { loadToolSchemaEngine } from "./schema-engine.js";
