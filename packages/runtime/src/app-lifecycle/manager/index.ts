/** The App Manager's pure decisions (spec 4.3): records, operations and the package pipeline checks. */
export * from "./audit-fact.js";
export * from "./versions.js";
export * from "./records.js";
export * from "./operation.js";
export * from "./pipeline.js";
export * from "./decide-install.js";
export * from "./decide-update.js";
export * from "./decide-state.js";
export * from "./decide-rollback.js";
export * from "./decide-remove.js";
export * from "./openable.js";
