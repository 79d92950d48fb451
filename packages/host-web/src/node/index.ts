// Node side of the host: building the page and serving it. Never bundled into the page.
export { startHostServer, policyFor, type HostServer, type HostServerOptions, type ServedConfig } from "./serve.js";
export { buildHost, ensureHostBuilt, isHostBuildStale, HOST_DIST_DIR, HOST_PACKAGE_DIR } from "./build.js";
export { startLocalBackendServer, type LocalBackendServer } from "./local-backends.js";
export { configInPage } from "../serving/site.js";
