/**
 * `lineup dev` against the real AppServer: the scaffold is built, signed and published to the catalog as a
 * dev release at once, and again when one of its sources changes; each release is newer than the one
 * before, and the catalog lists both. A running device (a Node Runtime on the same AppServer, trusting the dev
 * key) that installed the first release is updated to the second by itself, through its verified update path.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { compareVersions } from "@lineup/runtime";
import { createNodeRuntime, PUBLIC_KEY_FILE, readTrustedKeys, type NodeRuntime } from "@lineup/runtime/node";
import type { CatalogRelease } from "@lineup/protocol";
import { runDev } from "../src/commands/dev.js";
import { runCli } from "../src/index.js";

const repo = resolve(import.meta.dirname, "../../..");
const work = mkdtempSync(join(tmpdir(), "lineup-dev-"));
symlinkSync(join(repo, "node_modules"), join(work, "node_modules"), "dir");
const appDir = join(work, "dev-notes");
let server: AppServerHandle;
let device: NodeRuntime | undefined;

beforeAll(async () => {
  server = await startAppServer({ dataDir: join(work, "server"), port: 0, logger: silentLogger });
  const io = { out: () => undefined, err: (l: string) => console.error(l) };
  expect(await runCli(["new", "app", "dev-notes", "--dir", work], io)).toBe(0);
  expect(await runCli(["keygen", join(work, "keys")], io)).toBe(0);
}, 60_000);
afterAll(async () => {
  await device?.stop();
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

it("publishes a dev release at once and a newer one after a change", async () => {
  const releases: CatalogRelease[] = [];
  const lines: string[] = [];
  const stop = new AbortController();
  const dev = runDev(
    { appDir, keyDir: join(work, "keys"), url: server.url, token: server.devCredentials!.device_token, signal: stop.signal, onPublished: (r) => releases.push(r) },
    { out: (l) => lines.push(l), err: (l) => lines.push(l) },
  );
  await expect.poll(() => releases.length, { timeout: 60_000 }).toBe(1);
  // The person installs the first dev release on a running device, from the catalog.
  const keys = await readTrustedKeys(join(work, "keys", PUBLIC_KEY_FILE));
  if (!keys.ok) throw new Error(keys.error.message);
  device = await createNodeRuntime({ serverUrl: server.url, token: server.devCredentials!.device_token, dataDir: join(work, "device"), trustedPublishers: keys.value });
  await device.start();
  await device.whenOnline();
  const firstBundle = await device.catalog.fetchBundle("dev-notes", releases[0]!.version);
  expect(await device.appManager.install(firstBundle, { approved: true })).toMatchObject({ status: "succeeded" });
  const tools = join(appDir, "src/tools.ts");
  writeFileSync(tools, readFileSync(tools, "utf8").replace("Hello, ", "Hi, "));
  await expect.poll(() => releases.length, { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
  stop.abort();
  await dev;
  const [first, second] = releases;
  expect(first!.version).toMatch(/^0\.1\.0-dev\.\d+$/);
  expect(compareVersions(second!.version, first!.version)).toBe(1);
  expect(second!.sha256).not.toBe(first!.sha256);
  expect(lines[0]).toBe(`published dev-notes ${first!.version}`);
  // Nobody pressed Update: the device followed the dev release it was told of.
  await expect.poll(() => device!.appManager.getApp("dev-notes")?.record.installed_version, { timeout: 30_000 }).toBe(releases.at(-1)!.version);
  expect(device!.appManager.operations().some((op) => op.kind === "update" && op.to_version === second!.version && op.status === "succeeded")).toBe(true);
}, 180_000);
