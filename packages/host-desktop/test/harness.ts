/**
 * Running the desktop host in tests: the GJS program built once per test file, started under `xvfb-run`
 * with software rendering and its test driver on, and driven over its standard streams (`src/driver.ts`).
 * Missing GJS, WebKitGTK or Xvfb is a failure with the command that installs them, never a skipped test.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { expect } from "vitest";
import { DEV_CREDENTIALS_FILE, silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { buildDesktop } from "../src/node/build.js";

export const DESKTOP_SCREENSHOTS = resolve(import.meta.dirname, "..", "..", "..", "test-output", "host-desktop");
const DRIVER_PREFIX = "LINEUP-DRIVER ";

/** Throws, with the install command, unless GJS, GTK 4, WebKitGTK 6.0, Xvfb, xdotool (real input) and xprop (a window's state) are here. */
export function requireDesktopTools(): void {
  const missing: string[] = [];
  if (spawnSync("gjs", ["--version"]).status !== 0) missing.push("gjs");
  if (spawnSync("xvfb-run", ["--help"]).error !== undefined) missing.push("xvfb-run");
  if (spawnSync("xdotool", ["version"]).error !== undefined) missing.push("xdotool");
  if (spawnSync("xprop", ["-version"]).error !== undefined) missing.push("xprop");
  if (spawnSync("dbus-daemon", ["--version"]).error !== undefined) missing.push("dbus-daemon");
  if (spawnSync("gnome-keyring-daemon", ["--version"]).error !== undefined) missing.push("gnome-keyring-daemon");
  const typelibs = ["/usr/lib/x86_64-linux-gnu/girepository-1.0", "/usr/lib/aarch64-linux-gnu/girepository-1.0", "/usr/lib/girepository-1.0"].filter(existsSync).flatMap((d) => readdirSync(d));
  if (!typelibs.includes("WebKit-6.0.typelib")) missing.push("WebKitGTK 6.0 typelib");
  if (!typelibs.includes("Gtk-4.0.typelib")) missing.push("GTK 4 typelib");
  if (missing.length > 0) throw new Error(`the desktop host's tests need ${missing.join(", ")}: apt-get install -y gjs gir1.2-webkit-6.0 gir1.2-gtk-4.0 xvfb xauth xdotool x11-utils dbus gnome-keyring`);
}

let program: Promise<string> | undefined;
/** The GJS program, built once per test file into a temp directory. */
export function buildProgramOnce(): Promise<string> {
  program ??= buildDesktop(join(mkdtempSync(join(tmpdir(), "lineup-desktop-build-")), "lineup-desktop.js"));
  return program;
}

export interface DriverEvent {
  readonly event: string;
  readonly [key: string]: unknown;
}

export interface DesktopWindow {
  /** Runs an async function body in the host page's own world (or the named isolated world) and returns its JSON value. */
  evaluate<T>(body: string, world?: string): Promise<T>;
  /** A driver command (`op` and its fields); resolves with its value, rejects with its error. */
  command<T>(op: string, fields?: Record<string, unknown>): Promise<T>;
  /** Every event the program reported, oldest first. */
  readonly events: readonly DriverEvent[];
  /** Every other line it printed (its own messages, GTK's and WebKit's warnings). */
  readonly output: readonly string[];
  /** Resolves when the program has exited, with its exit code. */
  readonly exited: Promise<number | null>;
  /** Closes the window as a person would (the page stops its Runtime first) and waits for the exit. */
  close(): Promise<number | null>;
  /** Ends the program at once (SIGKILL to its process group). */
  kill(): void;
  /** The pids of WebKit's web content processes under this window (the page and every frame run there). */
  webProcesses(): number[];
}

export interface LaunchOptions {
  readonly dist: string;
  readonly dataDir: string;
  readonly config?: string;
  readonly bundles?: readonly { readonly file: string; readonly path: string }[];
  /** Extra arguments (a test of the command line). */
  readonly args?: readonly string[];
  /** Default true. */
  readonly driver?: boolean;
  /** More environment for the program (a session bus's address). */
  readonly env?: Readonly<Record<string, string>>;
}

/** Starts the program (without waiting for anything); see `launchDesktop` for one that waits for its start. */
export async function spawnDesktop(options: LaunchOptions): Promise<{ child: ChildProcess; window: DesktopWindow }> {
  const built = await buildProgramOnce();
  mkdirSync(DESKTOP_SCREENSHOTS, { recursive: true });
  const args = [
    "--dist", options.dist,
    "--data", options.dataDir,
    ...(options.config === undefined ? [] : ["--config", options.config]),
    ...(options.bundles ?? []).flatMap((b) => ["--bundle", `${b.file}=${b.path}`]),
    ...(options.driver === false ? [] : ["--driver"]),
    ...(options.args ?? []),
  ];
  // -a takes the first free display from -n on; test files run in parallel workers, so each starts its search
  // elsewhere, and two workers do not race for the same display.
  const child = spawn("xvfb-run", ["-a", "-n", String(100 + (process.pid % 400)), "-s", "-screen 0 1280x900x24", "gjs", "-m", built, ...args], {
    env: { ...process.env, WEBKIT_DISABLE_COMPOSITING_MODE: "1", LIBGL_ALWAYS_SOFTWARE: "1", GDK_BACKEND: "x11", NO_AT_BRIDGE: "1", ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  const events: DriverEvent[] = [];
  const output: string[] = [];
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  const exited = new Promise<number | null>((resolveExit) => child.on("exit", (code) => {
    for (const p of pending.values()) p.reject(new Error(`the desktop host exited (${code}) before answering; it printed:\n${output.slice(-20).join("\n")}`));
    pending.clear();
    resolveExit(code);
  }));
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (!line.startsWith(DRIVER_PREFIX)) return void output.push(line);
    const message = JSON.parse(line.slice(DRIVER_PREFIX.length)) as { id?: number; ok?: boolean; value?: unknown; error?: string; event?: string };
    if (message.event !== undefined) return void events.push(message as DriverEvent);
    const waiter = message.id === undefined ? undefined : pending.get(message.id);
    if (waiter === undefined) return void output.push(line);
    pending.delete(message.id!);
    if (message.ok === true) waiter.resolve(message.value);
    else waiter.reject(new Error(String(message.error)));
  });
  createInterface({ input: child.stderr! }).on("line", (line) => output.push(line));
  const command = <T>(op: string, fields: Record<string, unknown> = {}): Promise<T> =>
    new Promise<T>((resolveCommand, reject) => {
      if (child.exitCode !== null) return reject(new Error("the desktop host is not running"));
      const id = nextId++;
      pending.set(id, { resolve: resolveCommand as (v: unknown) => void, reject });
      child.stdin!.write(`${JSON.stringify({ ...fields, op, id })}\n`);
    });
  const kill = () => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  };
  const window: DesktopWindow = {
    evaluate: (body, world) => command("eval", world === undefined ? { body } : { body, world }),
    command,
    events,
    output,
    exited,
    async close() {
      if (child.exitCode === null) await command("close").catch(() => undefined);
      const timer = setTimeout(kill, 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    kill,
    webProcesses: () => descendants(child.pid!).filter((pid) => readProc(pid, "comm").startsWith("WebKitWebProces")),
  };
  return { child, window };
}

function readProc(pid: number, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8").trim();
  } catch {
    return "";
  }
}

/** Every process below `root`, read from /proc. */
function descendants(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    // The parent is the 4th field of /proc/<pid>/stat, after the command in parentheses.
    const stat = readProc(Number(name), "stat");
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (Number.isInteger(parent)) parentOf.set(Number(name), parent);
  }
  const below = (pid: number): boolean => {
    for (let p = parentOf.get(pid); p !== undefined && p > 1; p = parentOf.get(p)) if (p === root) return true;
    return false;
  };
  return [...parentOf.keys()].filter(below);
}

/** Starts the program and waits until its window is up and its page is loading. */
export async function launchDesktop(options: LaunchOptions): Promise<DesktopWindow> {
  const { window } = await spawnDesktop(options);
  const started = Date.now();
  while (!window.events.some((e) => e.event === "started")) {
    if (Date.now() - started > 30_000) {
      window.kill();
      throw new Error(`the desktop host did not start; it printed:\n${window.output.join("\n")}`);
    }
    const code = await Promise.race([window.exited, new Promise<"waiting">((r) => setTimeout(() => r("waiting"), 50))]);
    if (code !== "waiting") throw new Error(`the desktop host exited (${code}); it printed:\n${window.output.join("\n")}`);
  }
  return window;
}

/**
 * Polls the function `body` in the window every `everyMs` until it returns `expected` (a failed evaluation,
 * as while the page reloads, counts as not yet), or fails with what it last read.
 */
export async function waitInWindow<T>(window: DesktopWindow, body: string, expected: T, timeoutMs = 30_000, everyMs = 150): Promise<void> {
  const started = Date.now();
  let last: unknown;
  while (Date.now() - started < timeoutMs) {
    last = await window.evaluate<T>(body).catch((error: unknown) => `failed: ${String(error)}`);
    if (JSON.stringify(last) === JSON.stringify(expected)) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`waited ${timeoutMs} ms for ${body} to be ${JSON.stringify(expected)}; last ${JSON.stringify(last)}`);
}

/**
 * Reloads the window's page and waits for the new document: the reload is scheduled after the evaluation answers
 * (reloading inside it can leave its answer unreachable), and the old document is marked, so a wait that follows
 * never reads it.
 */
export async function reloadWindow(window: DesktopWindow): Promise<void> {
  await window.evaluate("window.__lineupOldDocument = true; setTimeout(() => location.reload(), 0); return true");
  await waitInWindow(window, `return window.__lineupOldDocument !== true && document.readyState === "complete"`, true);
}

/** Sends one host-channel request from the host page's own world, as its bootstrap does, and returns the raw answer to `id`. */
export const channelFromPage = (text: string, id: number) => `return await new Promise((resolve) => {
  addEventListener("message", (e) => e.source === window && e.data?.["lineup-host"] === "answer" && JSON.parse(e.data.text).id === ${id} && resolve(e.data.text));
  postMessage({ "lineup-host": "request", text: ${JSON.stringify(text)} }, "*");
  setTimeout(() => resolve("no answer"), 3000);
});`;

/** The connection indicator's lifecycle ("online" once the Runtime reached the AppServer). */
export const LIFECYCLE = `return document.querySelector(".connection")?.getAttribute("data-lifecycle") ?? null`;

/**
 * The real AppServer (SQLite in `root/server`, an ephemeral port) and a sign-in config for the window in
 * `root/config.json`: its URL, the dev device token, and `extra` (trusted publishers, built-in apps).
 */
export async function startServerAndConfig(root: string, extra: Record<string, unknown> = {}): Promise<{ server: AppServerHandle; configFile: string }> {
  const server = await startAppServer({ dataDir: join(root, "server"), port: 0, logger: silentLogger });
  const credentials = JSON.parse(readFileSync(join(root, "server", DEV_CREDENTIALS_FILE), "utf8")) as { device_token: string };
  const configFile = join(root, "config.json");
  writeFileSync(configFile, JSON.stringify({ server_url: server.url, device_token: credentials.device_token, ...extra }));
  return { server, configFile };
}

/** What each frame other than the top one answers to a driver frame command (an installed app's frame among them). */
export const inFrames = <T>(window: DesktopWindow, command: Record<string, unknown>) => window.command<{ url: string; result: T }[]>("frames", { command });

/** Clicks, in the host page, the first element matching `selector` whose text or label is `text`; false when there is none. */
export const clickInPage = (window: DesktopWindow, selector: string, text: string) =>
  window.evaluate<boolean>(`const el = [...document.querySelectorAll(${JSON.stringify(selector)})].find((e) => e.textContent.trim() === ${JSON.stringify(text)} || e.getAttribute("aria-label") === ${JSON.stringify(text)});
  if (!el) return false; el.click(); return true;`);

export async function clickWhenThere(window: DesktopWindow, selector: string, text: string): Promise<void> {
  await expect.poll(() => clickInPage(window, selector, text), { timeout: 20_000, message: `${selector} "${text}"` }).toBe(true);
}

/** On Apps, installs the built-in app `name` as a person would (`review` gets the review's text first). */
export async function installInWindow(window: DesktopWindow, name: string, review?: (text: string) => void): Promise<void> {
  await waitInWindow(window, LIFECYCLE, "online");
  await clickWhenThere(window, '[role="tab"]', "Apps");
  await clickWhenThere(window, "button", `Install ${name}…`);
  const reviewText = `return document.querySelector('[aria-label="Review before installing"]')?.textContent ?? ""`;
  await expect.poll(() => window.evaluate<string>(reviewText), { timeout: 15_000 }).not.toBe("");
  review?.(await window.evaluate<string>(reviewText));
  await clickWhenThere(window, '[aria-label="Review before installing"] button', "Install & enable");
  await expect.poll(() => window.evaluate<string>(`return document.querySelector(".install-live")?.textContent ?? ""`), { timeout: 15_000 }).toContain(`Installed ${name}`);
}

/**
 * What a person does to have a built-in app open in front, in the window: installs it, makes it the default
 * app, reloads, and waits until `appScope` is in front.
 */
export async function installAsDefaultInWindow(window: DesktopWindow, name: string, appScope: string, review?: (text: string) => void): Promise<void> {
  await installInWindow(window, name, review);
  const makeDefault = `Make ${name} the default app`;
  await clickWhenThere(window, "button", makeDefault);
  // The choice is committed once the card no longer offers it; a reload before that would start with the old default.
  const offered = `return [...document.querySelectorAll("button")].some((e) => e.getAttribute("aria-label") === ${JSON.stringify(makeDefault)})`;
  await expect.poll(() => window.evaluate<boolean>(offered), { timeout: 15_000, message: `"${makeDefault}" still offered` }).toBe(false);
  await reloadWindow(window);
  await waitInWindow(window, `return document.querySelector("#app-area")?.getAttribute("data-app") ?? null`, appScope);
}

/** Runs an X client (xdotool, xprop) on the window's X display; returns what it printed. */
export function onDisplay(window: DesktopWindow, command: string, ...args: string[]): string {
  const started = window.events.find((e) => e.event === "started");
  if (started === undefined) throw new Error("the window has not started");
  return execFileSync(command, args, { env: { ...process.env, DISPLAY: String(started["display"]), XAUTHORITY: String(started["xauthority"]) }, encoding: "utf8" }).trim();
}

/** Runs xdotool on the window's X display: real input, with the user activation a script's click lacks. */
export const xdotool = (window: DesktopWindow, ...args: string[]): string => onDisplay(window, "xdotool", ...args);

/** The X screen point of the page's CSS point (x, y) (scale 1). */
async function screenPoint(window: DesktopWindow, x: number, y: number): Promise<{ x: number; y: number }> {
  const page = await window.command<{ page_x: number; page_y: number }>("window");
  const id = xdotool(window, "search", "--name", "^LineUp").split("\n")[0]!;
  const position = /Position: (\d+),(\d+)/.exec(xdotool(window, "getwindowgeometry", id));
  if (position === null) throw new Error("xdotool did not say where the window is");
  return { x: Math.round(Number(position[1]) + page.page_x + x), y: Math.round(Number(position[2]) + page.page_y + y) };
}

type Rect = { x: number; y: number; width: number; height: number };

/** Where, on the X screen, the middle of an element is: in the host page, or in the frame `frame` selects. */
export async function screenCenter(window: DesktopWindow, target: { readonly selector: string; readonly text?: string; readonly frame?: string }): Promise<{ x: number; y: number; rect: Rect }> {
  let rect: Rect | undefined;
  if (target.frame === undefined) {
    rect = await window.evaluate<Rect | undefined>(`const el = [...document.querySelectorAll(${JSON.stringify(target.selector)})].find((e) => ${JSON.stringify(target.text ?? null)} === null || e.textContent.trim() === ${JSON.stringify(target.text ?? null)});
      if (!el) return undefined; const r = el.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height };`);
  } else {
    const inner = (await inFrames<Rect | null>(window, { op: "rect", selector: target.selector, ...(target.text === undefined ? {} : { text: target.text }) })).map((f) => f.result).find((r) => r !== null);
    const frame = await window.evaluate<Rect | undefined>(`const f = document.querySelector(${JSON.stringify(target.frame)}); if (!f) return undefined; const r = f.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height };`);
    if (inner !== undefined && frame !== undefined) rect = { ...inner, x: frame.x + inner.x, y: frame.y + inner.y };
  }
  if (rect === undefined) throw new Error(`no ${target.selector} ${target.text ?? ""} ${target.frame === undefined ? "in the page" : `in ${target.frame}`}`);
  const point = await screenPoint(window, rect.x + rect.width / 2, rect.y + rect.height / 2);
  return { ...point, rect };
}

/** Moves the X pointer onto an element and clicks it, as a person would. */
export async function realClick(window: DesktopWindow, target: { readonly selector: string; readonly text?: string; readonly frame?: string }): Promise<void> {
  const { x, y } = await screenCenter(window, target);
  xdotool(window, "mousemove", String(x), String(y), "click", "1");
}

/** A D-Bus session bus of the test's own (`dbus-daemon --session`, its socket in `dir`): its address, and its end. */
export async function startSessionBus(dir: string): Promise<{ readonly address: string; stop(): void }> {
  const daemon = spawn("dbus-daemon", ["--session", "--nofork", "--print-address=1", `--address=unix:path=${join(dir, "bus")}`], { stdio: ["ignore", "pipe", "pipe"] });
  const address = await new Promise<string>((resolve, reject) => {
    createInterface({ input: daemon.stdout! }).once("line", resolve);
    daemon.once("exit", (code) => reject(new Error(`dbus-daemon exited (${code})`)));
  });
  return { address, stop: () => daemon.kill("SIGKILL") };
}

/**
 * GNOME's keyring on the session bus at `address`, its files in `home`: a login keyring made with a password
 * from standard input (no prompt), then its Secret Service started — the keyring a person's session has.
 */
export async function startKeyring(address: string, home: string): Promise<void> {
  mkdirSync(join(home, "run"), { recursive: true, mode: 0o700 });
  const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: address, HOME: home, XDG_RUNTIME_DIR: join(home, "run") };
  const login = spawnSync("gnome-keyring-daemon", ["--daemonize", "--login"], { env, input: "lineup-test", encoding: "utf8", timeout: 10_000 });
  const start = spawnSync("gnome-keyring-daemon", ["--start", "--components=secrets"], { env, encoding: "utf8", timeout: 10_000 });
  if (login.status !== 0 || start.status !== 0) throw new Error(`gnome-keyring-daemon did not start: ${login.stderr}${start.stderr}`);
}

/** A notification the test's notification service was asked to show. */
export interface ShownNotification {
  readonly id: number;
  readonly summary: string;
  readonly body: string;
  readonly actions: string[];
}

/**
 * A notification service of the test's own on the session bus at `address` (`fixtures/fake-notifications.js`): what
 * it was asked to show, in order, and `click(id)` to click one as a person would.
 */
export async function startNotificationService(address: string): Promise<{ readonly shown: readonly ShownNotification[]; click(id: number): void; stop(): void }> {
  const service = spawn("gjs", ["-m", join(import.meta.dirname, "fixtures", "fake-notifications.js")], { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: address }, stdio: ["pipe", "pipe", "inherit"] });
  const shown: ShownNotification[] = [];
  await new Promise<void>((resolve, reject) => {
    service.once("exit", (code) => reject(new Error(`the notification service exited (${code})`)));
    createInterface({ input: service.stdout! }).on("line", (line) => {
      const message = JSON.parse(line) as { ready?: boolean; notify?: ShownNotification };
      if (message.ready === true) resolve();
      if (message.notify !== undefined) shown.push(message.notify);
    });
  });
  return { shown, click: (id) => void service.stdin!.write(`click ${id}\n`), stop: () => void service.kill() };
}
