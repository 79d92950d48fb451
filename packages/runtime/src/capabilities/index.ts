/** The Capability Gateway (spec 6.3): pure decisions over remembered user choices, policy and host support. */
export * from "./state.js";
export * from "./gateway.js";
export * from "./resolve.js";
export * from "./host-provider.js";
