/**
 * An app's built page in the sandboxed test host page (`app-host-page.ts`) in headless Chromium: builds
 * `appDir` with the surface SDK's build, opens the host page with the app's snapshot, waits for the app's
 * `lifecycle.ready`, and collects page errors. The browser tests of the apps under `apps/` start here.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "@lineup/surface-sdk/node";
import type { Browser, FrameLocator, Page } from "playwright-core";
import { hostPage } from "./app-host-page.js";
import { launchChromium } from "./chromium.js";

export interface BuiltAppPage {
  readonly browser: Browser;
  readonly page: Page;
  /** Uncaught page errors and console errors, in order. */
  readonly errors: string[];
  /** Runs `fn` in the page on `window.__host` (the test host's hooks). */
  host<T, H = never>(fn: (h: H) => T): Promise<T>;
  /** Sends `tool.invoke` to the app and resolves with its answer. */
  invoke(params: object): Promise<unknown>;
  /** Pushes a bridge event to the app. */
  event(name: string, data: object): Promise<void>;
  /** The app's sandboxed frame. */
  frame(): FrameLocator;
  /** Waits until the app has said `lifecycle.ready` `count` times on the current port. */
  ready(count?: number): Promise<void>;
  close(): Promise<void>;
}

export async function openBuiltApp(appDir: string, snapshot: object, viewport = { width: 800, height: 600 }): Promise<BuiltAppPage> {
  const outDir = await mkdtemp(join(tmpdir(), "lineup-app-"));
  await buildApp({ appDir, outDir });
  const html = await readFile(join(outDir, "index.html"), "utf8");
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  const built: BuiltAppPage = {
    browser,
    page,
    errors,
    host: <T, H>(fn: (h: H) => T) => page.evaluate(`(${fn.toString()})(window.__host)`) as Promise<T>,
    invoke: (params) => page.evaluate((p) => (window as unknown as { __host: { invoke(p: object): Promise<unknown> } }).__host.invoke(p), params),
    event: (name, data) => page.evaluate(([n, d]) => (window as unknown as { __host: { event(n: string, d: object): void } }).__host.event(n, d), [name, data] as const),
    frame: () => page.frameLocator("#app-frame"),
    ready: async (count = 1) => {
      await page.waitForFunction((n) => (window as unknown as { __host?: { requests(m: string): unknown[] } }).__host?.requests("lifecycle.ready").length === n, count, { timeout: 15_000 });
    },
    async close() {
      await browser.close();
      await rm(outDir, { recursive: true, force: true });
    },
  };
  await page.setContent(hostPage(html, snapshot));
  await built.ready(1);
  return built;
}
