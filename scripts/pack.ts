/**
 * `npm run pack [-- OUT_DIR]`: the publishable packages as the registry would get them, one tarball each
 * in OUT_DIR (default `dist-packages/`), from their `dist` (built first with `tsc -b`, which does
 * nothing when the build is up to date).
 *
 * Each package is staged with its `files`, the repository's LICENSE and its published package.json:
 * the `source` export condition (TypeScript sources, for the workspace only) removed from `exports`,
 * and no `scripts` or `devDependencies`. Then `npm pack` packs the staged directory, so the working
 * tree is never rewritten.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(import.meta.dirname, "..");

/** Workspace directories under packages/ that are published, dependencies first. */
export const PUBLISHED_PACKAGES: readonly string[] = ["protocol", "runtime", "surface-sdk", "app-sdk", "agent-sdk", "mcp-server", "app-server", "cli"];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** `exports` with every `source` condition removed, at any depth. */
export function withoutSourceCondition(exports: Json): Json {
  if (Array.isArray(exports)) return exports.map(withoutSourceCondition);
  if (exports === null || typeof exports !== "object") return exports;
  return Object.fromEntries(Object.entries(exports).filter(([key]) => key !== "source").map(([key, value]) => [key, withoutSourceCondition(value)]));
}

/** The package.json a package is published with. */
export function publishedManifest(manifest: Record<string, Json>): Record<string, Json> {
  const { scripts: _scripts, devDependencies: _dev, private: _private, ...published } = manifest;
  if (published["exports"] !== undefined) published["exports"] = withoutSourceCondition(published["exports"]!);
  return published;
}

export interface PackedPackage {
  readonly name: string;
  readonly tarball: string;
}

/** Builds and packs every published package into `outDir`. */
export function packPackages(outDir: string): PackedPackage[] {
  // The CLI's project references every other published package.
  execFileSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-b", join(ROOT, "packages", "cli")], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
  mkdirSync(outDir, { recursive: true });
  const staging = mkdtempSync(join(tmpdir(), "lineup-pack-"));
  try {
    return PUBLISHED_PACKAGES.map((dir) => {
      const source = join(ROOT, "packages", dir);
      const manifest = JSON.parse(readFileSync(join(source, "package.json"), "utf8")) as Record<string, Json>;
      const stage = join(staging, dir);
      mkdirSync(stage);
      for (const entry of (manifest["files"] as string[] | undefined) ?? []) {
        if (!existsSync(join(source, entry))) throw new Error(`${String(manifest["name"])}: ${entry} is missing after the build`);
        cpSync(join(source, entry), join(stage, entry), { recursive: true, filter: (path) => !path.endsWith(".tsbuildinfo") });
      }
      cpSync(join(ROOT, "LICENSE"), join(stage, "LICENSE"));
      if (existsSync(join(source, "README.md"))) cpSync(join(source, "README.md"), join(stage, "README.md"));
      writeFileSync(join(stage, "package.json"), `${JSON.stringify(publishedManifest(manifest), null, 2)}\n`);
      const out = execFileSync("npm", ["pack", "--json", "--pack-destination", resolve(outDir)], { cwd: stage, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      const [{ filename }] = JSON.parse(out) as [{ filename: string }];
      return { name: String(manifest["name"]), tarball: join(resolve(outDir), filename) };
    });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const packed of packPackages(resolve(process.argv[2] ?? join(ROOT, "dist-packages")))) console.log(packed.tarball);
}
