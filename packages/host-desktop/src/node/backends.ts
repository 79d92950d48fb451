/**
 * The desktop's MCP and other local back-ends: its Node side (`npm run desktop`) runs the host's local back-end service
 * on a loopback port of its own, answering the desktop's page alone — its origin is `lineup://app`, which no web page
 * can send, and the per-start secret is in the config file only this user can read. The GJS program lets the page reach
 * that one URL through its content filter and CSP (`confinement.ts`).
 */
import { startLocalBackendServer, type LocalBackendServer } from "@lineup/host-web/node";
import { ORIGIN } from "../confinement.js";

/** Starts the service for the desktop's page; its programs and files go under `dataDir`. */
export function startDesktopBackends(dataDir: string, diagnostics?: (error: unknown, context: string) => void): Promise<LocalBackendServer> {
  return startLocalBackendServer({ dataDir, origins: [ORIGIN], ...(diagnostics === undefined ? {} : { diagnostics }) });
}
