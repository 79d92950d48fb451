#!/usr/bin/env node
/**
 * `lineup-build-app <appDir> [--out <dir>]`: builds an app into `<dir>` (default `<appDir>/dist`):
 * `lineup.app.json` + `index.html`, ready for `lineup pack`.
 * From the repository: `node --conditions=source --import tsx packages/surface-sdk/src/node/bin.ts apps/whiteboard`.
 */
import { join, resolve } from "node:path";
import { LineUpError } from "@lineup/protocol";
import { buildApp } from "./build-app.js";

async function main(argv: readonly string[]): Promise<number> {
  const args = [...argv];
  let out: string | undefined;
  const outAt = args.indexOf("--out");
  if (outAt >= 0) {
    out = args[outAt + 1];
    args.splice(outAt, 2);
  }
  const appDir = args[0];
  if (appDir === undefined || args.length !== 1 || (outAt >= 0 && out === undefined)) {
    process.stderr.write("usage: lineup-build-app <appDir> [--out <dir>]\n");
    return 2;
  }
  try {
    const built = await buildApp({ appDir, outDir: out ?? join(resolve(appDir), "dist") });
    const tools = (built.manifest.tools ?? []).map((t) => t.method).join(", ") || "none";
    process.stdout.write(`built ${built.manifest.app_scope} ${built.manifest.version}: ${built.htmlPath} (${built.htmlBytes} bytes), ${built.manifestPath} (tools: ${tools})\n`);
    return 0;
  } catch (error) {
    const code = error instanceof LineUpError ? `${error.code}${error.path === undefined ? "" : ` at ${error.path}`}: ` : "";
    process.stderr.write(`build failed: ${code}${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
