/**
 * `lineup dev APP_DIR --key KEY_DIR --url ws://HOST:PORT/rpc (--token T | --credentials FILE)`: builds the app,
 * signs it with the key `lineup keygen KEY_DIR` made and publishes it to the AppServer's catalog as a dev
 * release `<version>-dev.<seconds since 1970>`; then again on every change under APP_DIR (its build output, keys
 * and bundles aside), until interrupted. A running host lists each dev release in Apps → From the catalog and
 * offers it as the installed app's update. A build or publish that fails prints one line and waits for the
 * next change.
 */
import { watch } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { tokenFrom } from "@lineup/agent-sdk/node";
import { LineUpError, UsageError, type CatalogRelease } from "@lineup/protocol";
import { packDirectory, PRIVATE_KEY_FILE, PUBLIC_KEY_FILE, readTrustedKeys, signFile } from "@lineup/runtime/node";
import { buildApp, MANIFEST_FILE } from "@lineup/surface-sdk/node";
import type { CliIo, Command, LoadedCommand } from "../io.js";
import { publishBundle } from "./publish.js";

export const DEV_USAGE = `usage: lineup dev APP_DIR --key KEY_DIR --url ws://HOST:PORT/rpc (--token TOKEN | --credentials dev-credentials.json)
  APP_DIR   the app (lineup new app made it)
  --key     the directory lineup keygen wrote (publisher.key, publisher.pub.json)
  Publishes a dev release to the AppServer's catalog now and on every change, until interrupted.`;

/** Paths under the app whose changes are the build's own output or secrets, not the app's sources. */
const IGNORED = ["dist", "node_modules", "keys", ".git"];

export interface DevOptions {
  readonly appDir: string;
  readonly keyDir: string;
  readonly url: string;
  readonly token: string;
  /** Stops watching. */
  readonly signal: AbortSignal;
  /** Each dev release published. */
  readonly onPublished?: (release: CatalogRelease) => void;
}

/** Builds, signs and publishes the app once as a dev release; the release. */
export async function publishDevRelease(options: Omit<DevOptions, "signal" | "onPublished">, now = Date.now()): Promise<CatalogRelease> {
  const work = await mkdtemp(join(tmpdir(), "lineup-dev-"));
  try {
    const built = await buildApp({ appDir: options.appDir, outDir: join(work, "app") });
    const manifest = { ...built.manifest, version: `${built.manifest.version.replace(/[-+].*$/, "")}-dev.${Math.floor(now / 1000)}` };
    await writeFile(join(work, "app", MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    const bundleFile = join(work, `${manifest.app_scope}.lineup`);
    const packed = await packDirectory(join(work, "app"), bundleFile);
    if (!packed.ok) throw new LineUpError(packed.error.code, packed.error.message);
    const signed = await signFile(bundleFile, join(options.keyDir, PRIVATE_KEY_FILE));
    if (!signed.ok) throw new LineUpError(signed.error.code, signed.error.message);
    const keys = await readTrustedKeys(join(options.keyDir, PUBLIC_KEY_FILE));
    if (!keys.ok) throw new LineUpError(keys.error.code, keys.error.message);
    return await publishBundle(options.url, options.token, await readFile(bundleFile), keys.value[0]!);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Publishes now and on every change until `signal` aborts; a failed round is reported and the next change tries again. */
export async function runDev(options: DevOptions, io: CliIo): Promise<void> {
  const appDir = resolve(options.appDir);
  let running: Promise<void> | undefined;
  let again = false;
  const round = async (): Promise<void> => {
    do {
      again = false;
      try {
        const release = await publishDevRelease(options);
        io.out(`published ${release.app_scope} ${release.version}`);
        options.onPublished?.(release);
      } catch (error) {
        io.err(`not published: ${error instanceof LineUpError ? `${error.code}: ` : ""}${(error as Error).message.split("\n")[0]}`);
      }
      // A release is named by the second it was made in: two rounds never share one.
      await new Promise((r) => setTimeout(r, 1_000));
    } while (again && !options.signal.aborted);
    running = undefined;
  };
  const trigger = (): void => {
    if (options.signal.aborted) return;
    if (running !== undefined) again = true;
    else running = round();
  };
  const watcher = watch(appDir, { recursive: true }, (_event, file) => {
    const first = String(file ?? "").split(sep)[0] ?? "";
    if (IGNORED.includes(first) || first.endsWith(".lineup")) return;
    setTimeout(trigger, 200);
  });
  trigger();
  await new Promise<void>((done) => options.signal.addEventListener("abort", () => done(), { once: true }));
  watcher.close();
  await running;
}

export const devCommand: Command = async (argv, io) => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { key: { type: "string" }, url: { type: "string" }, token: { type: "string" }, credentials: { type: "string" } },
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError("expected one APP_DIR");
  const token = tokenFrom(values, "device_token", process.env);
  if (values.key === undefined || values.url === undefined || token === undefined) throw new UsageError("--key, --url and --token (or --credentials) are required");
  const keys = await readTrustedKeys(join(values.key, PUBLIC_KEY_FILE));
  if (!keys.ok) throw new LineUpError(keys.error.code, keys.error.message);
  const stop = new AbortController();
  const interrupt = (): void => stop.abort();
  process.once("SIGINT", interrupt);
  try {
    await runDev({ appDir: positionals[0]!, keyDir: values.key, url: values.url, token, signal: stop.signal }, io);
  } finally {
    process.off("SIGINT", interrupt);
  }
  return 0;
};

export const devCli: LoadedCommand = { run: devCommand, usage: DEV_USAGE };
