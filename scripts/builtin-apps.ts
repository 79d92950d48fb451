/**
 * The built-in apps `npm start` offers: each app under `apps/` is built into one page, packed and
 * signed with the local dev publisher key (made once, in `<dataDir>/dev-publisher/`), and served by
 * the host for the App Registry to install. The Runtime trusts the dev key from its first start; a
 * person still reads what each app adds and approves it before it is installed.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { buildApp } from "@lineup/surface-sdk/node";
import { keygenToFiles, packDirectory, signFile, PRIVATE_KEY_FILE, PUBLIC_KEY_FILE } from "@lineup/runtime/node";
import type { LocalizedTexts } from "@lineup/protocol";

export interface BuiltinApps {
  readonly trusted: { readonly key_id: string; readonly public_key: string; readonly label: string };
  readonly apps: readonly { readonly name: string; readonly file: string; readonly app_scope: string; readonly version: string; readonly localized?: LocalizedTexts }[];
  readonly bundles: ReadonlyMap<string, Uint8Array>;
}

const BUILTIN = [
  { dir: "whiteboard", file: "whiteboard.lineup" },
  { dir: "pomodoro", file: "pomodoro.lineup" },
  { dir: "draw-and-guess", file: "draw-and-guess.lineup" },
  { dir: "voice", file: "voice.lineup" },
  { dir: "task-dashboard", file: "task-dashboard.lineup" },
  { dir: "journal", file: "journal.lineup" },
] as const;

export async function prepareBuiltinApps(root: string, dataDir: string): Promise<BuiltinApps> {
  const keyDir = join(dataDir, "dev-publisher");
  if (!existsSync(join(keyDir, PRIVATE_KEY_FILE))) {
    const made = await keygenToFiles(keyDir);
    if (!made.ok) throw new Error(`dev publisher key: ${made.error.message}`);
  }
  const trusted = JSON.parse(readFileSync(join(keyDir, PUBLIC_KEY_FILE), "utf8")) as { key_id: string; public_key: string };
  const outDir = join(dataDir, "builtin");
  await mkdir(outDir, { recursive: true });
  const apps: { name: string; file: string; app_scope: string; version: string; localized?: LocalizedTexts }[] = [];
  const bundles = new Map<string, Uint8Array>();
  for (const app of BUILTIN) {
    const built = await buildApp({ appDir: join(root, "apps", app.dir), outDir: join(outDir, app.dir) });
    const bundleFile = join(outDir, app.file);
    const packed = await packDirectory(join(outDir, app.dir), bundleFile);
    if (!packed.ok) throw new Error(`pack ${app.dir}: ${packed.error.message}`);
    const signed = await signFile(bundleFile, join(keyDir, PRIVATE_KEY_FILE));
    if (!signed.ok) throw new Error(`sign ${app.dir}: ${signed.error.message}`);
    apps.push({ name: built.manifest.name ?? app.dir, file: app.file, app_scope: built.manifest.app_scope, version: built.manifest.version, ...(built.manifest.localized === undefined ? {} : { localized: built.manifest.localized }) });
    bundles.set(app.file, new Uint8Array(await readFile(bundleFile)));
  }
  return { trusted: { key_id: trusted.key_id, public_key: trusted.public_key, label: "Local dev key (npm start)" }, apps, bundles };
}
