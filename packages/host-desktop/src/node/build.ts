/** Builds the GJS program (see scripts/build.ts); the tests and `npm run desktop` call it. */
import { resolve } from "node:path";
import { build } from "esbuild";

export const PACKAGE_DIR = resolve(import.meta.dirname, "..", "..");
export const DESKTOP_PROGRAM = resolve(PACKAGE_DIR, "dist", "lineup-desktop.js");

/** Bundles `src/main.ts` into `outFile` (default `dist/lineup-desktop.js`) and returns its path. */
export async function buildDesktop(outFile: string = DESKTOP_PROGRAM): Promise<string> {
  await build({
    entryPoints: [resolve(PACKAGE_DIR, "src", "main.ts")],
    outfile: outFile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "firefox102", // GJS 1.74 runs SpiderMonkey 102
    conditions: ["source"],
    mainFields: ["module", "main"],
    external: ["gi://*", "system"],
    legalComments: "none",
    logLevel: "warning",
    banner: { js: "// The LineUp desktop host, built by packages/host-desktop/scripts/build.ts. Run: gjs -m lineup-desktop.js --help" },
  });
  return outFile;
}
