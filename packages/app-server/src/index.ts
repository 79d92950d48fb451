/** The reference LineUp AppServer. */
export { startAppServer, RPC_PATH, SERVER_NAME, SERVER_VERSION, type AppServerHandle, type AppServerOptions, type AppServerStats } from "./server.js";
export { ADMIN_TOKEN_FILE, DEV_CREDENTIALS_FILE, type DevCredentials } from "./store/principals.js";
export { DATABASE_FILE } from "./store/database.js";
export { createLogger, silentLogger, stderrLogger, LOG_LEVELS, type Logger, type LogLevel, type LoggerOptions } from "./logger.js";
export { CONFIG_ENV, SERVER_SETTINGS, defaultDataDir, resolveServerConfig, serverHelp, settingEnv, settingFlag, type ServerConfig } from "./config.js";
export { runServerCli, serveAppServer, untilStopSignal } from "./cli.js";
export type { Clock, IdSource } from "./clock.js";
