/**
 * `@lineup/runtime/bundle`: the app bundle format on its own (pack, sign, verify; docs/bundle.md) and the order of app
 * versions, without the Runtime: what an AppServer's catalog or a tool needs of a bundle loads in a few modules.
 */
export * from "./app-lifecycle/bundle/index.js";
export { compareVersions } from "./app-lifecycle/manager/versions.js";
