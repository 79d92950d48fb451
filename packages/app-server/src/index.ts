/** The reference LineUp AppServer. */
export { startAppServer, RPC_PATH, SERVER_NAME, SERVER_VERSION, type AppServerHandle, type AppServerOptions, type AppServerStats } from "./server.js";
export { DEV_CREDENTIALS_FILE, type DevCredentials } from "./store/principals.js";
export { DATABASE_FILE } from "./store/database.js";
export { silentLogger, stderrLogger, type Logger } from "./logger.js";
export type { Clock, IdSource } from "./clock.js";
