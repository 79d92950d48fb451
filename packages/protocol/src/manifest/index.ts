/** App manifest `lineup.app.v1`, the Tool descriptor, and the feature and capability registries. */
export * from "./features.js";
export * from "./capabilities.js";
export * from "./capability-result-schema.js";
export * from "./schemas.js";
export * from "./app-code.js";
export * from "./app-code-rules.js";
export * from "./tool-defaults.js";
export * from "./json-schema-check.js";
export * from "./tool-schema.js";
export * from "./validate.js";
export * from "./capability-result-check.js";
export { validateToolDescriptor, type ManifestValidationOptions } from "./validate-tool.js";
export * from "./projection.js";
