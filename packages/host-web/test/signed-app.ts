/**
 * The world of the browser tests that install apps signed in the test: an app page built from a script
 * with the real surface SDK, packed and signed with a fresh publisher key; the real AppServer (SQLite,
 * ephemeral port) and the host's static server shipping that key as trusted and the bundles as built-in
 * apps; a persistent Chromium profile with one page; and installing an app through Apps as a person would.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import type { Locator, Page } from "playwright-core";
import { expect } from "vitest";
import { runCli } from "@lineup/cli";
import { DEV_CREDENTIALS_FILE, silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { generatePublisherKey, packBundle, signBundle, type PublisherKey } from "@lineup/runtime";
import { composePage } from "@lineup/surface-sdk/node";
import { launchPersistentChromium } from "../../../test/support/chromium.js";
import { startHostServer, type HostServer } from "../src/node/serve.js";
import { buildOnce, SCREENSHOTS } from "./support.js";

/** `script` (a module that may import `@lineup/surface-sdk`) bundled for the browser into a page titled `title`. */
export async function appPage(script: string, title: string): Promise<string> {
  const built = await build({
    stdin: { contents: script, resolveDir: import.meta.dirname, loader: "ts" },
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2022",
    conditions: ["source"],
    logLevel: "silent",
  });
  return composePage({ title, lang: "en", script: built.outputFiles[0]!.text, style: "" });
}

/** A bundle of `manifest` with `html` as its `index.html`, signed with `key`. */
export async function signedBundle(manifest: { readonly app_scope: string }, html: string, key: PublisherKey): Promise<Uint8Array> {
  const packed = await packBundle({ manifest, files: new Map([["index.html", new TextEncoder().encode(html)]]) });
  if (!packed.ok) throw new Error(`pack ${manifest.app_scope}: ${packed.error.code} ${packed.error.message}`);
  const signed = await signBundle(packed.value, key.privateKey);
  if (!signed.ok) throw new Error(`sign ${manifest.app_scope}: ${signed.error.code} ${signed.error.message}`);
  return signed.value;
}

/**
 * `lineup publish` of an app (`manifest`, its page `html`) signed with `publisher` to the catalog of `server`, as its
 * author would, from files in `work`; expects no error output and exit 0. Resolves with what it printed.
 */
export async function publishToCatalog(server: AppServerHandle, work: string, publisher: PublisherKey, manifest: { readonly app_scope: string; readonly version: string }, html: string): Promise<string> {
  const keyFile = join(work, "publisher.pub.json");
  writeFileSync(keyFile, JSON.stringify(publisher.trustedKey));
  const bundleFile = join(work, `${manifest.app_scope}-${manifest.version}.lineup`);
  writeFileSync(bundleFile, await signedBundle(manifest, html, publisher));
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(["publish", bundleFile, "--publisher", keyFile, "--url", server.url, "--token", server.devCredentials!.device_token], { out: (l) => out.push(l), err: (l) => err.push(l) });
  expect(err).toEqual([]);
  expect(code).toBe(0);
  return out.join("\n");
}

export interface SignedAppHostOptions {
  /** The Vite build of the host (`buildOnce()`). */
  readonly distDir: string;
  /** Prefix of the AppServer's temp data directory. */
  readonly dataDirPrefix: string;
  /** The key the host ships as trusted, under `publisherLabel`. */
  readonly publisher: PublisherKey;
  readonly publisherLabel: string;
  /** The built-in apps the host offers, each served from `bundles` under its `file`. */
  readonly builtinApps: readonly { readonly name: string; readonly file: string }[];
  readonly bundles: ReadonlyMap<string, Uint8Array>;
  /** Runs the host's local back-end service (as `npm start` does), its programs under the data directory. */
  readonly localBackends?: boolean;
  /** The served config's `suspend_idle_seconds` (the page's default otherwise). */
  readonly suspendIdleSeconds?: number;
  /** Added to Chromium's flags (`launchPersistentChromium`'s `extraArgs`): a fake microphone and camera, say. */
  readonly chromiumArgs?: readonly string[];
}

export interface SignedAppHost {
  readonly server: AppServerHandle;
  readonly host: HostServer;
  readonly browser: Awaited<ReturnType<typeof launchPersistentChromium>>;
  /** The profile's page, 1000×700, not yet navigated. */
  readonly page: Page;
  /** Every uncaught error of `page`, as text. */
  readonly pageErrors: readonly string[];
  /** Closes the browser, the host and the AppServer, and removes the data directory. */
  close(): Promise<void>;
}

/** Starts the AppServer, the host's server and Chromium; if one fails, closes what had started. */
export async function startSignedAppHost(options: SignedAppHostOptions): Promise<SignedAppHost> {
  const dataDir = mkdtempSync(join(tmpdir(), options.dataDirPrefix));
  let server: AppServerHandle | undefined;
  let host: HostServer | undefined;
  let browser: SignedAppHost["browser"] | undefined;
  const close = async (): Promise<void> => {
    await browser?.close();
    await host?.close();
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    server = await startAppServer({ dataDir, port: 0, logger: silentLogger });
    const credentials = JSON.parse(readFileSync(join(dataDir, DEV_CREDENTIALS_FILE), "utf8")) as { device_token: string };
    host = await startHostServer({
      distDir: options.distDir,
      config: {
        server_url: server.url,
        device_token: credentials.device_token,
        trusted_publishers: [{ ...options.publisher.trustedKey, label: options.publisherLabel }],
        builtin_apps: options.builtinApps.map(({ name, file }) => ({ name, file })),
        ...(options.suspendIdleSeconds === undefined ? {} : { suspend_idle_seconds: options.suspendIdleSeconds }),
      },
      bundles: options.bundles,
      ...(options.localBackends === true ? { localBackends: { dataDir: join(dataDir, "local-backends") } } : {}),
    });
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await launchPersistentChromium(options.chromiumArgs ?? []);
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize({ width: 1000, height: 700 });
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(String(error)));
    return { server, host, browser, page, pageErrors, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The world of a test with one app: its page built from `script` (with the real surface SDK), packed with
 * `manifest` and signed with a fresh publisher key the host ships as trusted (`publisherLabel`), and offered
 * as a built-in app.
 */
export async function startOneAppHost(
  app: { readonly name: string; readonly file: string },
  manifest: { readonly app_scope: string },
  script: string,
  options: { readonly dataDirPrefix: string; readonly publisherLabel: string; readonly suspendIdleSeconds?: number; readonly chromiumArgs?: readonly string[] },
): Promise<SignedAppHost> {
  const [distDir, publisher, html] = await Promise.all([buildOnce(), generatePublisherKey(), appPage(script, app.name)]);
  const bundle = await signedBundle(manifest, html, publisher);
  return startSignedAppHost({ distDir, ...options, publisher, builtinApps: [app], bundles: new Map([[app.file, bundle]]) });
}

/**
 * On the Apps tab, installs the built-in app `name`: Install…, the review (`review` reads it first, if
 * given), Install & enable, and waits for the live region to say it is installed.
 */
export async function installFromApps(page: Page, name: string, review?: (region: Locator) => Promise<void>): Promise<void> {
  await page.getByRole("button", { name: `Install ${name}…` }).click();
  const region = page.getByRole("region", { name: "Review before installing" });
  await region.waitFor({ timeout: 15_000 });
  await review?.(region);
  await region.getByRole("button", { name: "Install & enable" }).click();
  await expect.poll(() => page.locator(".install-live").textContent(), { timeout: 15_000 }).toContain(`Installed ${name}`);
}

/**
 * What a person does to have an app open in front: opens the host, waits until it is online, installs the
 * built-in app `name` from Apps (`review` reads the review first), makes it the default app and reloads.
 */
export async function installAsDefaultApp(page: Page, hostUrl: string, name: string, review?: (region: Locator) => Promise<void>): Promise<void> {
  await page.goto(hostUrl);
  await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
  await page.getByRole("tab", { name: "Apps" }).click();
  await installFromApps(page, name, review);
  await page.getByRole("button", { name: `Make ${name} the default app` }).click();
  await page.reload();
}

/**
 * What a person does before talking about an app: opens the host, waits until it is online, installs the built-in
 * app `name` from Apps and starts a new conversation with the demo agent in Chat.
 */
export async function installAndStartConversation(page: Page, hostUrl: string, name: string): Promise<void> {
  await page.goto(hostUrl);
  await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
  await page.getByRole("tab", { name: "Apps" }).click();
  await installFromApps(page, name);
  await page.getByRole("tab", { name: "Chat" }).click();
  await page.getByRole("button", { name: "New conversation with the demo agent" }).click();
  await page.getByRole("log").waitFor();
}

/** A probe app's one tool: the agent calls it to bring the probe to the front in its conversation. */
export const PROBE_OPEN_TOOL = {
  method: "probe.open",
  contract_version: "1",
  title: "Open the probe",
  description: "Brings the probe to the front in this conversation.",
  activation_requirement: "foreground_required",
  input_schema: { type: "object", additionalProperties: false, properties: {} },
  output_schema: { type: "object", additionalProperties: false, required: ["opened"], properties: { opened: { const: true } } },
} as const;
