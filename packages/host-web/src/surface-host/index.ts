export { createSandboxedFrame, mountSurface, PAGE_REFUSALS, type MountedSurface, type SurfaceDeath, type SurfaceHandlers, type SurfaceOptions } from "./mount-surface.js";
export { startHeartbeat, type Heartbeat, type HeartbeatClock, type HeartbeatOptions } from "./heartbeat.js";
export { createTokenBucket, type RateLimit, type TokenBucket } from "@lineup/protocol";
export { currentTheme, THEME_TOKENS } from "./theme-tokens.js";
export { newBridgeNonce } from "./nonce.js";
