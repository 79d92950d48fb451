/** @lineup/surface-sdk/node — the app build command (Node only). */
export { buildApp, bundlePage, BASE_MANIFEST_FILE, MANIFEST_FILE, PAGE_FILE, type BuildAppOptions, type BuiltApp, type PageBundle } from "./build-app.js";
export { composePage, findExternalReferences, sha256Base64, type PageParts } from "./html.js";
