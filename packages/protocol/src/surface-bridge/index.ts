export * from "./schemas.js";
export * from "./catalogue.js";
export * from "./decode.js";
export * from "./decode-in-app.js";
export * from "./decode-in-host.js";
export * from "./encode.js";
