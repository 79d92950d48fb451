/** MiniApp session data (spec 6.3): the pure semantics, the unforgeable context, the store-backed service. */
export * from "./semantics.js";
export * from "./context.js";
export * from "./service.js";
