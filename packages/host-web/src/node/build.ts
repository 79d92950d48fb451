/**
 * Building the host with Vite's JS API, and deciding whether `dist/` is stale: `npm start` builds only
 * when a source of the host or of a workspace package it bundles is newer than the built page.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

export const HOST_PACKAGE_DIR = resolve(import.meta.dirname, "..", "..");
export const HOST_DIST_DIR = join(HOST_PACKAGE_DIR, "dist");

/** Everything the bundle is made from: the host's sources and the workspace packages it imports. */
function sourceRoots(): string[] {
  const packages = resolve(HOST_PACKAGE_DIR, "..");
  return [
    join(HOST_PACKAGE_DIR, "src"),
    join(HOST_PACKAGE_DIR, "index.html"),
    join(HOST_PACKAGE_DIR, "vite.config.ts"),
    join(packages, "protocol", "src"),
    join(packages, "runtime", "src"),
    join(packages, "app-sdk", "src"),
  ];
}

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(path)) {
    if (name === "node_modules" || name === "dist") continue;
    newest = Math.max(newest, newestMtime(join(path, name)));
  }
  return newest;
}

/** True when `dist/index.html` is missing or older than any source it is built from. */
export function isHostBuildStale(distDir = HOST_DIST_DIR): boolean {
  const built = join(distDir, "index.html");
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return sourceRoots().some((root) => newestMtime(root) > builtAt);
}

/** Runs the Vite production build into `outDir` (default `dist/`). */
export async function buildHost(options: { outDir?: string } = {}): Promise<string> {
  const { build } = await import("vite");
  const outDir = options.outDir ?? HOST_DIST_DIR;
  await build({ configFile: join(HOST_PACKAGE_DIR, "vite.config.ts"), build: { outDir, emptyOutDir: true }, logLevel: "warn" });
  return outDir;
}

/**
 * Builds when stale; returns the dist directory. A build takes a while (most of a minute on a small
 * machine): `progress` hears when it starts, every 10 s while it runs, and when it is done.
 */
export async function ensureHostBuilt(distDir = HOST_DIST_DIR, progress?: (message: string) => void): Promise<{ distDir: string; built: boolean }> {
  if (!isHostBuildStale(distDir)) return { distDir, built: false };
  const started = performance.now();
  const seconds = () => Math.round((performance.now() - started) / 1000);
  progress?.(`Building the web host into ${distDir} (first start, or its sources changed)…`);
  const ticker = progress === undefined ? undefined : setInterval(() => progress(`  still building the web host (${seconds()} s)…`), 10_000);
  try {
    await buildHost({ outDir: distDir });
  } finally {
    clearInterval(ticker);
  }
  progress?.(`Built the web host in ${seconds()} s`);
  return { distDir, built: true };
}
