/**
 * The browser tests' world: the host built into a temp directory, the real AppServer (SQLite, ephemeral
 * port) with the demo agent (or the LLM adapter, `agent: { llm }`), and the host's static server handing
 * out the dev credentials.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DATABASE_FILE, DEV_CREDENTIALS_FILE, silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { startAgentCli, type RunningAgent } from "@lineup/agent-sdk/node";
import { buildHost } from "../src/node/build.js";
import { startHostServer, type HostServer } from "../src/node/serve.js";
import { configInPage } from "../src/serving/site.js";
import { prepareBuiltinApps } from "../../../scripts/builtin-apps.js";
import Database from "better-sqlite3";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { build } from "esbuild";
import { launchChromium, launchPersistentChromium } from "../../../test/support/chromium.js";
import type { CaseResult } from "./browser/vitest-shim.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";

export const SCREENSHOTS = resolve(import.meta.dirname, "..", "..", "..", "test-output", "host-web");

export interface World {
  readonly server: AppServerHandle;
  /** The demo agent now running (undefined while stopped by `stopAgent`). */
  readonly agent: RunningAgent | undefined;
  /** Stops the demo agent: its connection closes, as when its process ends. */
  stopAgent(): Promise<void>;
  /** Starts the demo agent again. */
  startAgent(): Promise<void>;
  readonly host: HostServer;
  readonly distDir: string;
  /** What the demo agent printed (its log and errors), oldest first. */
  readonly agentLog: readonly string[];
  /** The AppServer's stored events, newest last: `seq kind body` per line, each body whole. */
  serverEvents(limit?: number): string[];
  /**
   * The titles of the chat's conversations as the person should see them listed, read from the AppServer's database:
   * by the time of the newest event in which something was said (a turn or an action asked for or answered, a
   * `lineup.message`), or the start for one where nothing was, newer first; the same instant by id, greater first.
   */
  listedTitles(): string[];
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

export interface WorldOptions {
  readonly withConfig?: boolean;
  readonly builtinApps?: boolean;
  /** The agent to run: the demo agent (default), or the LLM adapter with these `LINEUP_LLM_*` variables. */
  readonly agent?: { readonly llm: Readonly<Record<string, string>> };
}

export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const distDir = await buildOnce();
  const dataDir = mkdtempSync(join(tmpdir(), "lineup-host-data-"));
  mkdirSync(dataDir, { recursive: true });
  const server = await startAppServer({ dataDir, port: 0, logger: silentLogger });
  const credentialsFile = join(dataDir, DEV_CREDENTIALS_FILE);
  const credentials = JSON.parse(readFileSync(credentialsFile, "utf8")) as { device_token: string };
  const agentLog: string[] = [];
  const [mode, env] = options.agent === undefined ? ["demo", {}] : ["llm", options.agent.llm];
  const launchAgent = () => startAgentCli([mode, "--url", server.url, "--credentials", credentialsFile], env, { log: (line) => agentLog.push(line), error: (line) => agentLog.push(`error: ${line}`) });
  let agent: RunningAgent | undefined = await launchAgent();
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
    get agent() {
      return agent;
    },
    async stopAgent() {
      await agent?.stop();
      agent = undefined;
    },
    async startAgent() {
      agent ??= await launchAgent();
    },
    host,
    distDir,
    agentLog,
    serverEvents(limit = 40) {
      // A second, read-only connection to the server's WAL database: it sees every committed event.
      const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
      try {
        const rows = db.prepare("SELECT session_id, seq, kind, body FROM events ORDER BY created_at DESC, seq DESC LIMIT ?").all(limit) as { session_id: string; seq: number; kind: string; body: string }[];
        return rows.reverse().map((r) => `${r.session_id.slice(0, 12)} #${r.seq} ${r.kind} ${r.body}`);
      } finally {
        db.close();
      }
    },
    listedTitles() {
      const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
      try {
        const rows = db
          .prepare(
            `SELECT s.title AS title FROM sessions s LEFT JOIN (
               SELECT session_id, MAX(created_at) AS said FROM events
               WHERE kind IN ('turn.started', 'turn.completed', 'turn.failed', 'action.required', 'action.responded')
                  OR (kind = 'envelope' AND json_extract(body, '$.data.envelope.type') = 'lineup.message')
               GROUP BY session_id
             ) a ON a.session_id = s.session_id
             WHERE s.app_scope = 'chat'
             ORDER BY COALESCE(a.said, s.created_at) DESC, s.session_id DESC`,
          )
          .all() as { title: string }[];
        return rows.map((r) => r.title);
      } finally {
        db.close();
      }
    },
    async close() {
      await host.close();
      await agent?.stop();
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

/**
 * What a person would see when a wait runs out: each app surface (app, status, placement) with the text
 * of its page, the chat log, the connection, and the page's last console lines. Browser tests print it
 * before they rethrow, so a failure on a loaded CI machine says where the flow stopped.
 */
export async function describeScene(page: Page, consoleLines: readonly string[] = [], world?: World): Promise<string> {
  const lines: string[] = [];
  const text = async (read: () => Promise<string | null>): Promise<string> => {
    try {
      return ((await read()) ?? "").replace(/\s+/g, " ").trim().slice(0, 600);
    } catch (error) {
      return `(unreadable: ${error instanceof Error ? error.message.split("\n")[0] : String(error)})`;
    }
  };
  lines.push(`connection: ${await text(() => page.locator(".connection").getAttribute("data-lifecycle", { timeout: 1_000 }))}`);
  lines.push(`app area shows: ${await text(() => page.locator("#app-area").getAttribute("data-app", { timeout: 1_000 }))}`);
  const surfaces = page.locator(".instance-surface");
  const count = await surfaces.count().catch(() => 0);
  for (let i = 0; i < count; i++) {
    const surface = surfaces.nth(i);
    const attrs = await surface.evaluate((el) => `${el.getAttribute("data-app")} ${el.getAttribute("data-instance")} status=${el.getAttribute("data-status")} ${el.className}`, undefined, { timeout: 1_000 }).catch(() => "(gone)");
    const body = await text(() => surface.locator("iframe").contentFrame().locator("body").textContent({ timeout: 1_000 }));
    lines.push(`surface ${attrs}: ${body}`);
  }
  // The chat is mounted only while it is shown: bring it up to read it (the test has failed already).
  await page.getByRole("tab", { name: "Chat" }).click({ timeout: 2_000 }).catch(() => undefined);
  lines.push(`chat log: ${await text(() => page.getByRole("log").textContent({ timeout: 2_000 }))}`);
  lines.push(...consoleLines.slice(-20).map((line) => `console ${line}`));
  if (world !== undefined) {
    lines.push(...world.agentLog.slice(-20).map((line) => `agent ${line}`));
    try {
      lines.push(...world.serverEvents().map((line) => `server ${line.slice(0, 420)}`));
    } catch (error) {
      lines.push(`server events unreadable: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return lines.join("\n");
}

/** Runs `step`; when it fails, prints `describeScene` first and rethrows. */
export async function explained<T>(page: Page, consoleLines: readonly string[], world: World, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    console.error(`--- the scene when this failed ---\n${await describeScene(page, consoleLines, world)}`);
    throw error;
  }
}

/** The whole product in one browser page: the world, and a persistent Chromium profile that records page errors and console lines. */
export interface ProductPage {
  readonly world: World;
  readonly page: Page;
  readonly pageErrors: string[];
  readonly consoleLines: string[];
  close(): Promise<void>;
}

/** Starts the world with the built-in apps and opens a 1100×760 page on a fresh profile (`chromiumArgs` after the defaults; `locale`: the browser's language). */
export async function openProduct(options: { readonly chromiumArgs?: readonly string[]; readonly locale?: string } = {}): Promise<ProductPage> {
  const world = await startWorld({ builtinApps: true });
  const browser = await launchPersistentChromium(options.chromiumArgs, options.locale);
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.setViewportSize({ width: 1100, height: 760 });
  const pageErrors: string[] = [];
  const consoleLines: string[] = [];
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  page.on("console", (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
  return {
    world,
    page,
    pageErrors,
    consoleLines,
    async close() {
      await browser.close();
      await world.close();
    },
  };
}

/**
 * The whole product for one test file: opened before its first test, closed after its last. Read `product`
 * and `page` inside tests (they throw before the product is open).
 */
export function productForFile(options: { readonly chromiumArgs?: readonly string[]; readonly locale?: string } = {}): { readonly product: ProductPage; readonly page: Page } {
  let opened: ProductPage | undefined;
  beforeAll(async () => {
    opened = await openProduct(options);
  }, 180_000);
  afterAll(async () => {
    await opened?.close();
  });
  const product = (): ProductPage => {
    if (opened === undefined) throw new Error("the product is not open yet: read it inside a test");
    return opened;
  };
  return {
    get product() {
      return product();
    },
    get page() {
      return product().page;
    },
  };
}

/** Types `text` into the chat's message box and sends it, as a person does. */
export async function say(page: Page, text: string): Promise<void> {
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill(text);
  await box.press("Enter");
}

/**
 * How the whole-product tests of an installed app begin: the page open and online, `app` installed from
 * Apps (its review lists `tool`), a new conversation with the demo agent open in Chat, `text` said in it.
 */
export async function installAndAsk(product: ProductPage, app: string, tool: string, text: string): Promise<void> {
  const { page } = product;
  await page.goto(product.world.host.url);
  await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
  await installBuiltinApp(page, app, tool);
  await page.getByRole("tab", { name: "Chat" }).click();
  await page.getByRole("button", { name: "New conversation with the demo agent" }).click();
  await page.getByRole("log").waitFor();
  await say(page, text);
}

/**
 * Runs a shared contract suite in a real Chromium page on a loopback origin (IndexedDB needs a real one): `entry` is
 * bundled with esbuild (`vitest` aliased to the browser shim) and registers its cases; the page runs them through
 * `window[runner]()` and the outcomes come back. The caller closes the browser and server with `close`.
 */
export async function runSuiteInChromium(entry: string, runner: string): Promise<{ readonly results: CaseResult[]; close(): Promise<void> }> {
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["source"],
    alias: { vitest: resolve(import.meta.dirname, "browser/vitest-shim.ts") },
  });
  const script = bundle.outputFiles[0]!.text;
  const server = createServer((req, res) => {
    if (req.url === "/suite.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(script);
    } else {
      res.writeHead(200, { "content-type": "text/html" });
      res.end('<!doctype html><script type="module" src="/suite.js"></script>');
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const browser = await launchChromium();
  const close = async () => {
    await browser.close();
    await new Promise<void>((r) => server.close(() => r()));
  };
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  await page.waitForFunction((name) => typeof (window as unknown as Record<string, unknown>)[name] === "function", runner);
  const results = await page.evaluate((name) => (window as unknown as Record<string, () => Promise<CaseResult[]>>)[name]!(), runner);
  return { results, close };
}

/** The Runtime's audit records in the page's profile (its IndexedDB), oldest first: all, or those of one `type`. */
export async function auditRecords(page: Page, type?: string): Promise<{ readonly type: string; readonly subject?: string; readonly detail?: string; readonly code?: string }[]> {
  return page.evaluate(async (wanted) => {
    const found: { type: string; subject?: string; detail?: string; code?: string }[] = [];
    for (const info of await indexedDB.databases()) {
      if (info.name === undefined) continue;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open(info.name!);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      try {
        if (!db.objectStoreNames.contains("entries")) continue;
        const records = await new Promise<unknown[]>((resolve, reject) => {
          const request = db.transaction("entries", "readonly").objectStore("entries").getAll(IDBKeyRange.bound(["audit"], ["audit", []]));
          request.onsuccess = () => resolve(request.result as unknown[]);
          request.onerror = () => reject(request.error);
        });
        for (const record of records as { kind: string; text?: string }[]) {
          if (record.kind !== "json" || record.text === undefined) continue;
          const body = JSON.parse(record.text) as { type: string; subject?: string; detail?: string; code?: string };
          if (wanted === null || body.type === wanted) found.push(body);
        }
      } finally {
        db.close();
      }
    }
    return found;
  }, type ?? null);
}


/** The sign-in config the host server at `url` serves in its page. */
export async function servedConfig(url: string): Promise<unknown> {
  return configInPage(await (await fetch(new URL("/", url))).text());
}
