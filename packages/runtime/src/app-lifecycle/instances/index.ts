/** App instances, the focus stack and the start-up target (spec 4.3–4.5). */
export * from "./lifecycle.js";
export * from "./state.js";
export * from "./transitions.js";
export * from "./snapshot.js";
export * from "./startup.js";
export * from "./suspend.js";
