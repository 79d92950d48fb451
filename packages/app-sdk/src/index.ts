// @lineup/app-sdk: the Runtime SDK for core apps (spec 6). Platform-neutral.
export { createAppSdk, type AppSdkOptions } from "./create-app-sdk.js";
export { APP_TOOL_ERROR_CODES, isAppToolErrorCode } from "./tools.js";
export { ignoreAppDiagnostics } from "./diagnostics.js";
export { TASK_EVENTS_PAGE } from "@lineup/protocol";
export type * from "./types.js";
