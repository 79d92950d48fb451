/** `lineup build-app APP_DIR [--out DIR]`: one self-contained HTML page + lineup.app.json, ready for `lineup pack`. */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { LineUpError, UsageError } from "@lineup/protocol";
import { buildApp } from "@lineup/surface-sdk/node";
import type { Command, LoadedCommand } from "../io.js";

export const BUILD_APP_USAGE = "usage: lineup build-app APP_DIR [--out DIR]   (default DIR: APP_DIR/dist)";

export const buildAppCommand: Command = async (argv, io) => {
  const parsed = parseArgs({ args: [...argv], allowPositionals: true, options: { out: { type: "string" } } });
  const appDir = parsed.positionals[0];
  if (appDir === undefined || parsed.positionals.length !== 1) throw new UsageError("expected one APP_DIR");
  try {
    const built = await buildApp({ appDir, outDir: parsed.values.out ?? join(resolve(appDir), "dist") });
    io.out(`built ${built.manifest.app_scope} ${built.manifest.version}: ${built.htmlPath} (${built.htmlBytes} bytes), ${built.manifestPath}`);
    return 0;
  } catch (error) {
    if (error instanceof LineUpError) {
      io.err(`refused: ${error.code}${error.path === undefined ? "" : ` at ${error.path}`}: ${error.message}`);
      return 1;
    }
    throw error;
  }
};

export const buildAppCli: LoadedCommand = { run: buildAppCommand, usage: BUILD_APP_USAGE };
