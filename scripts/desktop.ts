/**
 * `npm run desktop`: the desktop host (GTK 4 + WebKitGTK 6.0 through GJS) against the LineUp that `npm start`
 * runs. It takes the sign-in config and the built-in apps from the running web host (so both hosts trust the
 * same publisher and offer the same apps), builds the web host and the GJS program, and opens the window.
 * `npm run desktop -- --install` writes a launcher and a `.desktop` entry for this user instead.
 *
 * Apps' MCP servers and other local back-ends run in this process (the desktop's local back-end service, answering
 * the desktop's page alone), their programs under the profile's backends/ folder, and stop when the window closes.
 *
 * Environment: LINEUP_WEB_URL (the web host of `npm start`, default http://127.0.0.1:8788/), LINEUP_DATA_DIR
 * (default .lineup-data; the desktop profile is its desktop/ folder).
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { buildDesktop, desktopEntry, launcherScript, startDesktopBackends } from "@lineup/host-desktop/node";
import { configInPage, ensureHostBuilt } from "@lineup/host-web/node";

const root = resolve(import.meta.dirname, "..");
const fail = (message: string): never => {
  console.error(`npm run desktop: ${message}`);
  process.exit(1);
};

if (process.argv.includes("--install")) {
  const dataHome = process.env["XDG_DATA_HOME"] ?? join(homedir(), ".local", "share");
  const launcher = join(homedir(), ".local", "bin", "lineup-desktop");
  mkdirSync(join(homedir(), ".local", "bin"), { recursive: true });
  writeFileSync(launcher, launcherScript(root));
  chmodSync(launcher, 0o755);
  const entry = join(dataHome, "applications", "lineup.desktop");
  mkdirSync(join(dataHome, "applications"), { recursive: true });
  writeFileSync(entry, desktopEntry({ launcher, icon: join(root, "packages", "host-web", "public", "favicon.svg") }));
  console.log(`Installed the launcher ${launcher}\nand the desktop entry ${entry}`);
  process.exit(0);
}

if (process.env["DISPLAY"] === undefined && process.env["WAYLAND_DISPLAY"] === undefined) fail("no graphical session (DISPLAY or WAYLAND_DISPLAY): run it on a desktop, or under Xvfb with xvfb-run -a npm run desktop");
const webUrl = process.env["LINEUP_WEB_URL"] ?? "http://127.0.0.1:8788/";
const profile = join(resolve(root, process.env["LINEUP_DATA_DIR"] ?? ".lineup-data"), "desktop");
mkdirSync(join(profile, "bundles"), { recursive: true, mode: 0o700 });

// The config the web host writes into its page.
const webPage = await fetch(webUrl).catch(() => undefined);
const pageConfig = webPage?.ok === true ? configInPage(await webPage.text()) : undefined;
if (pageConfig === undefined) fail(`LineUp is not running at ${webUrl}: start it first with npm start (in another terminal)`);
// The web host's local back-end service answers only its own page's origin: the desktop's page gets a service of its own.
const { local_backends: _webBackends, ...served } = pageConfig as { builtin_apps?: { file: string }[]; local_backends?: unknown };
const backends = await startDesktopBackends(join(profile, "backends"), (error, context) => console.error(`npm run desktop: ${context}: ${error instanceof Error ? error.message : String(error)}`));
const config = { ...served, local_backends: backends.config };
const bundles: { file: string; path: string }[] = [];
for (const { file } of config.builtin_apps ?? []) {
  const response = await fetch(new URL(`apps/${file}`, webUrl));
  if (!response.ok) fail(`the web host did not serve the built-in app ${file}`);
  const path = join(profile, "bundles", file);
  writeFileSync(path, new Uint8Array(await response.arrayBuffer()));
  bundles.push({ file, path });
}
// The config holds the device token: readable by this user only.
const configFile = join(profile, "config.json");
writeFileSync(configFile, JSON.stringify(config), { mode: 0o600 });
chmodSync(configFile, 0o600);

const host = await ensureHostBuilt(undefined, (message) => console.log(message));
const program = await buildDesktop();
const child = spawn("gjs", ["-m", program, "--dist", host.distDir, "--config", configFile, "--data", profile, ...bundles.flatMap((b) => ["--bundle", `${b.file}=${b.path}`])], { stdio: "inherit" });
child.on("error", () => fail("gjs is not installed: apt-get install -y gjs gir1.2-webkit-6.0 gir1.2-gtk-4.0"));
child.on("exit", (code) => void backends.close().finally(() => process.exit(code ?? 1)));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill("SIGTERM"));
