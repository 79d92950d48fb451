/** The Capability Gateway (spec 6.3): pure decisions over remembered user choices, policy and host support. */
export * from "./state.js";
export * from "./gateway.js";
export * from "./resolve.js";
export * from "./host-provider.js";
export { EMPTY_CAPABILITIES, type CapabilitiesState, type CapabilityHostSnapshot } from "./loop-state.js";
export type { AppCapabilityRequest } from "./shell.js";
