/**
 * host: the web host in headless Chromium (IndexedDB on disk) against the real AppServer, beside floors in
 * the same page or browser and the same run (PERFORMANCE.md, rows "host" and "chat").
 *
 * - load_to_online_warm / load_to_online_fresh: navigation start → the Runtime online (the connection
 *   indicator's `data-lifecycle="online"`), read in the page as `performance.now()` when it flips, so no
 *   polling enters the figure. Warm is a reload of a profile that has been online; fresh is a new profile
 *   (a new persistent context) each load, navigated to once the new browser is quiet (`untilQuiet`). Floor: a
 *   minimal page, same browser and server, that opens an IndexedDB database on disk, opens the same WebSocket
 *   and waits for the `initialize` result with the same device token. Target ≤ 2× the time.
 * - load_to_online_fresh_over_same_bytes (for information, no target): the fresh load against a floor that does
 *   the minimal page's work and also fetches and compiles (modulepreload, not run) the very scripts the host page
 *   fetched before it was online, the same files: how much of a fresh start is compiling the code at all.
 * - chat_agent_message_p50: an agent's text message (agent SDK `send`, outside a turn) → its text in the
 *   chat's log and one animation frame after. Times are epoch-based on both sides (`performance.timeOrigin
 *   + performance.now()` in Node and in the page, one machine). Floor, a second tab of the same browser (the
 *   host page's policy lets its page reach the AppServer alone): a frame from a WebSocket server in the bench
 *   → one strict IndexedDB put → one animation frame. Rounds alternate; p50 and p99 reported. Target ≤ 2×.
 * - The same person after a while: the device then has 1,000 more conversations on the AppServer
 *   (LINEUP_BENCH_MANY_CONVERSATIONS), which the Runtime lists and follows.
 *   load_to_online_warm_with_1000_conversations: a warm reload beside a floor page that also lists every session and
 *   subscribes each at its head (the Runtime's window of subscriptions catching up), online at the last caughtUp;
 *   target ≤ 2×. chat_agent_message_p50_with_1000_conversations: the chat row on a new profile that follows them
 *   all (online_ms: its first start); target ≤ 2×.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectAgent } from "@lineup/agent-sdk/node";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { ensureHostBuilt, startHostServer, type HostServer } from "@lineup/host-web/node";
import type { BrowserContext, Page } from "playwright-core";
import { WebSocketServer, type WebSocket } from "ws";
import { launchPersistentChromium } from "../../test/support/chromium.js";
import { servePages, type ServedFile } from "../browser-pages.js";
import { Client, key } from "../load/client.js";
import { SUBSCRIPTIONS_CATCHING_UP } from "@lineup/runtime";
import { machine, median, pairedAsync, percentile, type BenchResult, type PairedRates, type SuiteResult, untilQuiet } from "../lib.js";

const WARM_LOADS = 9;
const FRESH_LOADS = 5;
const CHAT_ROUNDS = Number(process.env["LINEUP_BENCH_CHAT_ROUNDS"] ?? 60);

/**
 * In every page of a context: `window.__onlineAt` is `performance.now()` when the connection indicator first says
 * online (the floor page sets it itself), and the page says so on its console. The bench hears that line
 * (`loadedOnline`) rather than waiting in the page: Playwright's waiting functions inject a script of its own,
 * whose parse (about 10 ms of the page's main thread) would land in the start being timed.
 */
const ONLINE_LINE = "lineup-bench:online ";
export const ONLINE_WATCH = `(() => {
  let at;
  Object.defineProperty(window, "__onlineAt", { configurable: true, get: () => at, set: (value) => { if (at === undefined) { at = value; console.debug(${JSON.stringify(ONLINE_LINE)} + value); } } });
  const seen = () => { if (window.__onlineAt === undefined && document.querySelector('.connection[data-lifecycle="online"]')) window.__onlineAt = performance.now(); };
  new MutationObserver(seen).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-lifecycle"] });
})();`;

/**
 * The floor page: IndexedDB on disk, the same WebSocket, `initialize` with the same token; then `__onlineAt`. With
 * `scripts` (the same-bytes floor of a fresh load), it also fetches and compiles those module scripts, the ones the
 * host page fetched before it was online, as `<link rel="modulepreload">` does (fetched, parsed and compiled, not
 * run), and is online once they are compiled too.
 */
function floorPage(serverUrl: string, token: string, scripts: readonly string[] = [], follow = false): string {
  const initialize = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocol_version: "lineup.app-server.v1", client_info: { name: "bench-floor" }, token } });
  // Following many sessions, the floor takes the server's bursts as batch frames, as the Runtime does.
  const initialized = JSON.stringify({ jsonrpc: "2.0", method: "initialized", params: { receive_batches: { max_batch: 1024, max_message_bytes: 4 * 1024 * 1024 } } });
  return `<!doctype html><meta charset="utf-8"><title>floor</title><script>
  // With follow: every session the device has, listed page by page, then each subscribed at its head, at most
  // ${SUBSCRIPTIONS_CATCHING_UP} waiting for their caughtUp at once, as the Runtime does: the subscriptions go as JSON-RPC
  // batches within the server's max_batch, refilled after each frame that ended catch-ups.
  const follow = (socket, limits) => new Promise((resolve, reject) => {
    let id = 1;
    const answers = new Map();
    const send = (messages) => socket.send(JSON.stringify(messages.length === 1 ? messages[0] : messages));
    const call = (method, params) => new Promise((done) => { answers.set(++id, done); send([{ jsonrpc: "2.0", id, method, params }]); });
    let sessions;
    let next = 0;
    let waiting = 0;
    let caughtUp = 0;
    const fill = () => {
      while (waiting < ${SUBSCRIPTIONS_CATCHING_UP} && next < sessions.length) {
        const batch = [];
        while (waiting < ${SUBSCRIPTIONS_CATCHING_UP} && next < sessions.length && batch.length < limits.max_batch) {
          const session = sessions[next++];
          waiting++;
          batch.push({ jsonrpc: "2.0", id: ++id, method: "agentSession/subscribe", params: { session_id: session.session_id, after_seq: session.last_seq } });
        }
        send(batch);
      }
    };
    socket.onmessage = (event) => {
      const parsed = JSON.parse(event.data);
      for (const frame of Array.isArray(parsed) ? parsed : [parsed]) {
        if (frame.error) return reject(new Error(frame.error.message));
        if (frame.id !== undefined) { const done = answers.get(frame.id); answers.delete(frame.id); done?.(frame.result); }
        else if (frame.method === "agentSession/caughtUp") { waiting--; caughtUp++; }
      }
      if (sessions === undefined) return;
      if (caughtUp === sessions.length) resolve();
      else fill();
    };
    (async () => {
      const listed = [];
      let cursor;
      do {
        const page = await call("agentSession/list", cursor === undefined ? { limit: 200 } : { limit: 200, cursor });
        listed.push(...page.sessions);
        cursor = page.next_cursor;
      } while (cursor !== undefined);
      sessions = listed;
      if (sessions.length === 0) resolve();
      else fill();
    })().catch(reject);
  });
  const db = new Promise((resolve, reject) => {
    const request = indexedDB.open("floor", 1);
    request.onupgradeneeded = () => request.result.createObjectStore("records");
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const initialized = new Promise((resolve, reject) => {
    const socket = new WebSocket(${JSON.stringify(serverUrl)});
    socket.onopen = () => socket.send(${JSON.stringify(initialize)});
    socket.onmessage = (event) => { const answer = JSON.parse(event.data); if (answer.id === 1) resolve({ socket, limits: answer.result.limits }); };
    socket.onerror = () => reject(new Error("no connection"));
  }).then(({ socket, limits }) => {
    if (!${follow}) return socket;
    socket.send(${JSON.stringify(initialized)});
    return follow(socket, limits);
  });
  const compiled = Promise.all(${JSON.stringify(scripts)}.map((href) => new Promise((resolve, reject) => {
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.href = href;
    link.onload = resolve;
    link.onerror = () => reject(new Error(href));
    document.head.append(link);
  })));
  Promise.all([db, initialized, compiled]).then(() => { window.__onlineAt = performance.now(); });
  </script>`;
}

/**
 * The JavaScript the page had fetched by the time it was online (every `.js` resource whose response ended by
 * `__onlineAt`, decoded bytes as built, so comparable to the weight suite's `host_js_min`): the first-paint script
 * is within its budget, and this says what the page still runs before the Runtime is online.
 */
const scriptsBeforeOnline = (page: Page): Promise<{ bytes: number; scripts: number; paths: string[] }> =>
  page.evaluate(() => {
    const online = (window as { __onlineAt?: number }).__onlineAt ?? Infinity;
    const scripts = performance.getEntriesByType("resource").filter((e): e is PerformanceResourceTiming => e.name.endsWith(".js") && (e as PerformanceResourceTiming).responseEnd <= online);
    return { bytes: scripts.reduce((n, e) => n + e.decodedBodySize, 0), scripts: scripts.length, paths: scripts.map((e) => new URL(e.name).pathname) };
  });

/** Loads a page (`load`: a goto or a reload) and resolves with its `__onlineAt`, as its console line says it. */
export const loadedOnline = async (page: Page, load: () => Promise<unknown>): Promise<number> => {
  const online = page.waitForEvent("console", { predicate: (message) => message.text().startsWith(ONLINE_LINE), timeout: 60_000 });
  await load();
  return Number((await online).text().slice(ONLINE_LINE.length));
};

async function loadBench(world: { server: AppServerHandle; host: HostServer; distDir: string }): Promise<BenchResult[]> {
  const token = world.server.devCredentials!.device_token;
  const floorSite = await servePages({ "/": { type: "text/html", body: floorPage(world.server.url, token) } });
  const floorUrl = `${floorSite.origin}/`;
  let sameBytesSite: Awaited<ReturnType<typeof servePages>> | undefined;
  try {
    // Warm: one profile, each page reloaded after it has been online.
    const browser = await launchPersistentChromium();
    let warm: PairedRates;
    let js: Awaited<ReturnType<typeof scriptsBeforeOnline>>;
    try {
      await browser.context.addInitScript(ONLINE_WATCH);
      const host = browser.context.pages()[0] ?? (await browser.context.newPage());
      const floorTab = await browser.context.newPage();
      await loadedOnline(host, () => host.goto(world.host.url));
      js = await scriptsBeforeOnline(host);
      await loadedOnline(floorTab, () => floorTab.goto(floorUrl));
      const reload = (page: Page): Promise<number> => loadedOnline(page, () => page.reload());
      warm = await pairedAsync(() => reload(host), () => reload(floorTab), WARM_LOADS);
    } finally {
      await browser.close();
    }

    // The same-bytes floor: the floor, and the very scripts the host page fetched before it was online, served by
    // path from the same build, fetched and compiled but not run.
    const scripts: Record<string, ServedFile> = {};
    for (const path of js.paths) scripts[path] = { type: "text/javascript", body: readFileSync(join(world.distDir, path), "utf8") };
    sameBytesSite = await servePages({ "/": { type: "text/html", body: floorPage(world.server.url, token, js.paths) }, ...scripts });
    const sameBytesUrl = `${sameBytesSite.origin}/`;

    // Fresh: a new profile for each load, of the host and of each floor.
    const freshLoad = async (url: string): Promise<number> => {
      const fresh = await launchPersistentChromium();
      try {
        await fresh.context.addInitScript(ONLINE_WATCH);
        const page = fresh.context.pages()[0] ?? (await fresh.context.newPage());
        // The browser's own first second on a new profile is not the page's (untilQuiet).
        await untilQuiet();
        return await loadedOnline(page, () => page.goto(url));
      } finally {
        await fresh.close();
      }
    };
    const fresh = await pairedAsync(() => freshLoad(world.host.url), () => freshLoad(floorUrl), FRESH_LOADS);
    const freshSameBytes = await pairedAsync(() => freshLoad(world.host.url), () => freshLoad(sameBytesUrl), FRESH_LOADS);

    const row = (metric: string, paired: typeof warm, loads: number, notes: string, floor = { name: "minimal_page_indexeddb_open_ws_initialize", target: 2 as number | undefined }): BenchResult => ({
      metric,
      unit: "ms",
      value: Math.round(paired.ours),
      baseline: floor.name,
      baseline_value: Math.round(paired.baseline),
      ratio: Number(paired.ratio.toFixed(3)),
      ...(floor.target === undefined ? {} : { target_ratio: floor.target }),
      higher_is_better: false,
      loads,
      js_bytes_before_online: js.bytes,
      js_scripts_before_online: js.scripts,
      notes: `${notes}; js_bytes_before_online: the JavaScript (decoded, as built) the page had fetched when it went online, in js_scripts_before_online scripts`,
    });
    return [
      row("load_to_online_warm", warm, WARM_LOADS, "a reload of a profile that has been online; navigation start → the connection indicator online, timed in the page"),
      row("load_to_online_fresh", fresh, FRESH_LOADS, "a new Chromium profile on disk for each load (first start of the Runtime: its store created, first sync), navigated to once the new browser is quiet (untilQuiet: its own first second, about 85% of both cores, is not the page's); timed in the page"),
      row(
        "load_to_online_fresh_over_same_bytes",
        freshSameBytes,
        FRESH_LOADS,
        "For information, no target: load_to_online_fresh against a floor that also fetches and compiles (modulepreload: fetched, parsed and compiled, not run) the js_scripts_before_online scripts the host page fetched before it was online, the same files served by path. On a new profile no code cache helps, so a page that runs this Runtime compiles about as much as it fetches; this row says how much of the fresh start is that compiling and how much is running it",
        { name: "same_bytes_page_modulepreload_indexeddb_open_ws_initialize", target: undefined },
      ),
    ];
  } finally {
    await floorSite.close();
    await sameBytesSite?.close();
  }
}

/** Epoch time with sub-millisecond resolution, comparable between Node and the page on one machine. */
const epochNow = (): number => performance.timeOrigin + performance.now();

/** What one chat measurement gives: the two sides' times, and the page's start. */
interface ChatTimes {
  readonly ours: number[];
  readonly floor: number[];
  /** Navigation start → online of the page, ms (a new profile). */
  readonly onlineMs: number;
}

/**
 * The device's sessions on the AppServer before the page's first start, besides the one the bench talks in: a
 * person who has used LineUp for a while. The Runtime lists them when it goes online and follows each.
 */
export async function seedConversations(server: AppServerHandle, count: number): Promise<void> {
  const device = await Client.open(server.url, server.devCredentials!.device_token);
  try {
    for (let start = 0; start < count; start += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, count - start) }, (_, i) =>
          device.call("agentSession/start", { idempotency_key: key(), session_id: `bench-earlier-${start + i}`, app_scope: "chat", workspace_id: "w", agent_id: "demo-agent", title: `Earlier conversation ${start + i + 1}` }),
        ),
      );
    }
  } finally {
    device.close();
  }
}

async function chatTimes(world: { server: AppServerHandle; host: HostServer }, rounds = CHAT_ROUNDS): Promise<ChatTimes> {
  const agent = await connectAgent({ url: world.server.url, token: world.server.devCredentials!.agent_token, sessionPollMs: 50 });
  let sessionId: string | undefined;
  agent.onTurn((turn) => {
    sessionId = turn.sessionId;
    void (async () => {
      await agent.send(turn.sessionId, { kind: "text", text: "ready" });
      await agent.completeTurn(turn.sessionId, turn.turnId, { text: "ready" });
    })().catch(() => undefined);
  });
  const floorWss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((r) => floorWss.once("listening", r));
  const floorSocket = new Promise<WebSocket>((r) => floorWss.once("connection", r));
  const browser = await launchPersistentChromium();
  try {
    const context: BrowserContext = browser.context;
    await context.addInitScript(ONLINE_WATCH);
    const page = context.pages()[0] ?? (await context.newPage());
    const onlineMs = await loadedOnline(page, () => page.goto(world.host.url));
    // A conversation with the agent: opened as a person does, and the person's first message starts a turn.
    await page.getByRole("button", { name: "New conversation with the demo agent" }).click();
    await page.getByRole("log").waitFor();
    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill("hello");
    await box.press("Enter");
    await page.getByRole("log").getByText("ready", { exact: true }).first().waitFor({ timeout: 30_000 }).catch(async (error: unknown) => {
      await page.screenshot({ path: join(tmpdir(), "lineup-bench-chat.png") });
      throw error;
    });
    const session = sessionId;
    if (session === undefined) throw new Error("the conversation's turn did not reach the agent");

    // In the host page: a watcher for the chat's log.
    await page.evaluate(() => {
      const w = window as unknown as { __seen: Record<string, number>; __expect: (m: string) => void };
      w.__seen = {};
      const log = document.querySelector('[role="log"]')!;
      const pending = new Set<string>();
      new MutationObserver(() => {
        const text = log.textContent ?? "";
        for (const marker of [...pending]) {
          if (!text.includes(marker)) continue;
          pending.delete(marker);
          requestAnimationFrame(() => void (w.__seen[marker] = performance.timeOrigin + performance.now()));
        }
      }).observe(log, { subtree: true, childList: true, characterData: true });
      w.__expect = (marker) => void pending.add(marker);
    });
    // In a second tab, on a page without the host's policy: the floor's socket and database.
    const floorPageServer = await servePages({ "/": { type: "text/html", body: "<!doctype html><title>chat floor</title>" } });
    const floorTab = await context.newPage();
    await floorTab.goto(`${floorPageServer.origin}/`);
    await floorTab.evaluate((floorUrl) => {
      const w = window as unknown as { __seen: Record<string, number> };
      w.__seen = {};
      return new Promise<void>((resolve, reject) => {
        const request = indexedDB.open("chat-floor", 1);
        request.onupgradeneeded = () => request.result.createObjectStore("messages");
        request.onerror = () => reject(new Error("no database"));
        request.onsuccess = () => {
          const db = request.result;
          const socket = new globalThis.WebSocket(floorUrl);
          socket.onmessage = (event) => {
            const marker = String(event.data);
            const tx = db.transaction("messages", "readwrite", { durability: "strict" });
            tx.objectStore("messages").put({ text: marker, at: Date.now() }, marker);
            tx.oncomplete = () => requestAnimationFrame(() => void (w.__seen[marker] = performance.timeOrigin + performance.now()));
          };
          socket.onopen = () => resolve();
          socket.onerror = () => reject(new Error("no floor connection"));
        };
      });
    }, `ws://127.0.0.1:${(floorWss.address() as AddressInfo).port}`);
    const socket = await floorSocket;

    const seenAt = async (tab: Page, marker: string): Promise<number> =>
      (await tab.waitForFunction((m) => (window as unknown as { __seen: Record<string, number> }).__seen[m], marker, { timeout: 30_000, polling: "raf" })).jsonValue() as Promise<number>;
    let n = 0;
    // Each side's tab is brought to the front before its round (outside the timed part): Chromium runs a
    // background tab's animation frames about once a second.
    const ours = async (): Promise<number> => {
      await page.bringToFront();
      const marker = `agent-says-${n++}`;
      await page.evaluate((m) => (window as unknown as { __expect: (m: string) => void }).__expect(m), marker);
      const sent = epochNow();
      await agent.send(session, { kind: "text", text: marker });
      return (await seenAt(page, marker)) - sent;
    };
    const floorRound = async (): Promise<number> => {
      await floorTab.bringToFront();
      const marker = `floor-${n++}`;
      const sent = epochNow();
      socket.send(marker);
      return (await seenAt(floorTab, marker)) - sent;
    };
    const oursTimes: number[] = [];
    const floorTimes: number[] = [];
    await pairedAsync(
      async () => {
        const t = await ours();
        oursTimes.push(t);
        return t;
      },
      async () => {
        const t = await floorRound();
        floorTimes.push(t);
        return t;
      },
      rounds,
    );
    await floorPageServer.close();
    return { ours: oursTimes, floor: floorTimes, onlineMs };
  } finally {
    await browser.close();
    await agent.close();
    await new Promise((r) => floorWss.close(r));
  }
}

const CHAT_NOTES = "agent SDK send (text, outside a turn) → AppServer → the Runtime commits it to IndexedDB (strict) → the chat renders it, plus one animation frame; epoch times in Node and the page";

/** The chat row: our p50 beside the floor's, measured in the same rounds. */
function chatRow(metric: string, times: ChatTimes, notes: string, extra: Record<string, number> = {}): BenchResult {
  const p50 = median(times.ours);
  const floorP50 = median(times.floor);
  return {
    metric,
    unit: "ms",
    value: Number(p50.toFixed(2)),
    baseline: "ws_frame_strict_indexeddb_put_animation_frame_same_page",
    baseline_value: Number(floorP50.toFixed(2)),
    ratio: Number((p50 / floorP50).toFixed(3)),
    target_ratio: 2,
    higher_is_better: false,
    p99_ms: Number(percentile(times.ours, 99).toFixed(2)),
    baseline_p99_ms: Number(percentile(times.floor, 99).toFixed(2)),
    rounds: times.ours.length,
    ...extra,
    notes,
  };
}

/** Conversations the device has in the "with many conversations" rows: a person who has used LineUp for a while. */
const MANY_CONVERSATIONS = Number(process.env["LINEUP_BENCH_MANY_CONVERSATIONS"] ?? 1000);

/**
 * A warm start with MANY_CONVERSATIONS: the host page reloaded on a profile that has been online with them, beside a
 * floor page that does the least a device must do to be online with them (open IndexedDB, initialize, list every
 * session, subscribe each at its head with the Runtime's window of subscriptions catching up, wait for every caughtUp).
 */
async function manyConversationsWarm(world: { server: AppServerHandle; host: HostServer }): Promise<BenchResult> {
  const floorSite = await servePages({ "/": { type: "text/html", body: floorPage(world.server.url, world.server.devCredentials!.device_token, [], true) } });
  const browser = await launchPersistentChromium();
  try {
    await browser.context.addInitScript(ONLINE_WATCH);
    const host = browser.context.pages()[0] ?? (await browser.context.newPage());
    const floorTab = await browser.context.newPage();
    await loadedOnline(host, () => host.goto(world.host.url));
    await loadedOnline(floorTab, () => floorTab.goto(`${floorSite.origin}/`));
    const reload = (page: Page): Promise<number> => loadedOnline(page, () => page.reload());
    const warm = await pairedAsync(() => reload(host), () => reload(floorTab), WARM_LOADS);
    return {
      metric: `load_to_online_warm_with_${MANY_CONVERSATIONS}_conversations`,
      unit: "ms",
      value: Math.round(warm.ours),
      baseline: `minimal_page_indexeddb_open_ws_initialize_list_and_subscribe_${MANY_CONVERSATIONS}_sessions`,
      baseline_value: Math.round(warm.baseline),
      ratio: Number(warm.ratio.toFixed(3)),
      target_ratio: 2,
      higher_is_better: false,
      loads: WARM_LOADS,
      conversations: MANY_CONVERSATIONS,
      notes:
        `load_to_online_warm for a device with ${MANY_CONVERSATIONS} conversations on the AppServer (started by the bench through the device's token, listed and followed by the Runtime on its first start): a reload of a profile that has been online with them, navigation start → online. ` +
        `Floor, a second tab of the same browser: the minimal page, which also lists every session (pages of 200) and subscribes each at its head, at most SUBSCRIPTIONS_CATCHING_UP (${SUBSCRIPTIONS_CATCHING_UP}) waiting for their caughtUp at once, as the Runtime does, its subscriptions in JSON-RPC batches within the server's max_batch (refilled after each frame that ended catch-ups) and the server's bursts taken as batch frames (receive_batches in initialized); online at the last caughtUp. The target is the host row's, for a person who has used LineUp for a while.`,
    };
  } finally {
    await browser.close();
    await floorSite.close();
  }
}

export async function run(): Promise<SuiteResult> {
  const root = mkdtempSync(join(tmpdir(), "lineup-bench-host-"));
  const server = await startAppServer({ dataDir: join(root, "server"), port: 0, logger: silentLogger });
  const { distDir } = await ensureHostBuilt();
  const host = await startHostServer({ distDir, config: { server_url: server.url, device_token: server.devCredentials!.device_token } });
  try {
    const world = { server, host, distDir };
    const results = [...(await loadBench(world)), chatRow("chat_agent_message_p50", await chatTimes(world), CHAT_NOTES)];
    // The same person after a while: the device has MANY_CONVERSATIONS more on the AppServer.
    await seedConversations(server, MANY_CONVERSATIONS);
    results.push(await manyConversationsWarm(world));
    const many = await chatTimes(world);
    results.push(
      chatRow(`chat_agent_message_p50_with_${MANY_CONVERSATIONS}_conversations`, many, `${CHAT_NOTES}; the device also follows ${MANY_CONVERSATIONS} other conversations (a new profile lists and follows them first); online_ms: that first start, navigation → online`, {
        conversations: MANY_CONVERSATIONS,
        online_ms: Math.round(many.onlineMs),
      }),
    );
    return { suite: "host", machine: machine(), results };
  } finally {
    await host.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}
