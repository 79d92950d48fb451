/**
 * Launching Debian's Chromium for browser tests. `npm test` installs it when missing (scripts/system-packages.ts);
 * a missing browser is a failure with instructions, never a silently skipped test.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type LaunchOptions } from "playwright-core";

export const CHROMIUM_PATH = process.env["LINEUP_CHROMIUM"] ?? "/usr/bin/chromium";

/** Flags that keep headless Chromium quiet on a closed network. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

function executable(): string {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: install Debian's chromium (apt-get install -y chromium) or set LINEUP_CHROMIUM`);
  }
  return CHROMIUM_PATH;
}

/** Flags for a fake microphone (and camera) that Chromium grants without asking: the media tests' `extraArgs`. */
export const FAKE_MEDIA_ARGS = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"];

/**
 * A browser whose contexts keep IndexedDB in memory. `extraArgs` are added after `CHROMIUM_ARGS` (an
 * `options.args` still replaces them all, as before).
 */
export function launchChromium(options: LaunchOptions = {}, extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: executable(), headless: true, args: [...CHROMIUM_ARGS, ...extraArgs], ...options });
}

/**
 * A persistent context on a fresh profile directory, for real on-disk IndexedDB; `close()` removes the profile. `extraArgs` are added after
 * `CHROMIUM_ARGS`; `locale` is the browser's language (`navigator.languages`, Accept-Language), as a person's browser set to it.
 */
export async function launchPersistentChromium(extraArgs: readonly string[] = [], locale?: string): Promise<{ context: BrowserContext; profileDir: string; close(): Promise<void> }> {
  const profileDir = mkdtempSync(join(tmpdir(), "lineup-chromium-"));
  const context = await chromium.launchPersistentContext(profileDir, { executablePath: executable(), headless: true, args: [...CHROMIUM_ARGS, ...extraArgs], ...(locale === undefined ? {} : { locale }) });
  return {
    context,
    profileDir,
    async close() {
      await context.close();
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}
