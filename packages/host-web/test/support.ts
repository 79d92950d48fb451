/**
 * The browser tests' world: the host built into a temp directory, the real AppServer (SQLite, ephemeral
 * port) with the demo agent, and the host's static server handing out the dev credentials.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEV_CREDENTIALS_FILE, silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { startAgentCli, type RunningAgent } from "@lineup/agent-sdk/node";
import { buildHost } from "../src/node/build.js";
import { startHostServer, type HostServer } from "../src/node/serve.js";
import { prepareBuiltinApps } from "../../../scripts/builtin-apps.js";
import type { Page } from "playwright-core";
import { expect } from "vitest";

export const SCREENSHOTS = resolve(import.meta.dirname, "..", "..", "..", "test-output", "host-web");

export interface World {
  readonly server: AppServerHandle;
  readonly agent: RunningAgent;
  readonly host: HostServer;
  readonly distDir: string;
  close(): Promise<void>;
}

let built: Promise<string> | undefined;

/** One Vite build per test file, into its own directory (test files run in parallel). */
export function buildOnce(): Promise<string> {
  built ??= (async () => {
    const outDir = mkdtempSync(join(tmpdir(), "lineup-host-dist-"));
    await buildHost({ outDir });
    return outDir;
  })();
  return built;
}

export async function startWorld(options: { withConfig?: boolean; builtinApps?: boolean } = {}): Promise<World> {
  const distDir = await buildOnce();
  const dataDir = mkdtempSync(join(tmpdir(), "lineup-host-data-"));
  mkdirSync(dataDir, { recursive: true });
  const server = await startAppServer({ dataDir, port: 0, logger: silentLogger });
  const credentialsFile = join(dataDir, DEV_CREDENTIALS_FILE);
  const credentials = JSON.parse(readFileSync(credentialsFile, "utf8")) as { device_token: string };
  const agent = await startAgentCli(["demo", "--url", server.url, "--credentials", credentialsFile], {}, { log: () => undefined, error: () => undefined });
  // The built-in apps as `npm start` offers them: built, packed and signed with a dev key the Runtime trusts.
  const builtin = options.builtinApps === true ? await prepareBuiltinApps(resolve(import.meta.dirname, "..", "..", ".."), dataDir) : undefined;
  const config = {
    server_url: server.url,
    device_token: credentials.device_token,
    ...(builtin === undefined ? {} : { trusted_publishers: [builtin.trusted], builtin_apps: builtin.apps }),
  };
  const host = await startHostServer({ distDir, ...(options.withConfig === false ? {} : { config }), ...(builtin === undefined ? {} : { bundles: builtin.bundles }) });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    server,
    agent,
    host,
    distDir,
    async close() {
      await host.close();
      await agent.stop();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Installs a built-in app the way a person does: Apps → "Install <name>…" → the review of what it adds
 * (which must mention `expectInReview`; `onReview` runs while it is shown) → "Install & enable".
 */
export async function installBuiltinApp(page: Page, name: string, expectInReview: string, onReview?: () => Promise<unknown>): Promise<void> {
  await page.getByRole("tab", { name: "Apps" }).click();
  await page.getByRole("button", { name: `Install ${name}…` }).click();
  const review = page.getByRole("region", { name: "Review before installing" });
  await review.waitFor({ timeout: 15_000 });
  expect(await review.textContent()).toContain(expectInReview);
  await onReview?.();
  await review.getByRole("button", { name: "Install & enable" }).click();
  await expect.poll(() => page.locator(".install-live").textContent(), { timeout: 15_000 }).toMatch(new RegExp(`Installed ${name}`));
}
