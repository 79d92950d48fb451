/**
 * The desktop host's command line. Pure: argv in, options or a one-line error out (the program prints it
 * with the usage and exits 2).
 */
export interface DesktopOptions {
  /** The built web host (`packages/host-web/dist`), served over `lineup://app/`. */
  readonly dist: string;
  /** A JSON file with the sign-in config (what the web host writes into its page); without it the page shows its sign-in form. */
  readonly config?: string;
  /** The profile: the webview's IndexedDB and cache, the window's size, the instance lock. */
  readonly dataDir: string;
  /** Signed bundles served at `lineup://app/apps/<file>`, as `file=path` pairs. */
  readonly bundles: readonly { readonly file: string; readonly path: string }[];
  /** Test driver on stdin/stdout (`driver.ts`); never on in a person's window. */
  readonly driver: boolean;
  /** Under the driver only: file dialogs answered from this folder instead of shown (`dialogs.ts`). */
  readonly fakeDialogs?: string;
  /** Under the driver only: WebKit's mock microphone instead of the machine's. */
  readonly mockCapture: boolean;
}

export const USAGE = `Usage: lineup-desktop --dist DIR [--config FILE] [--data DIR] [--bundle FILE=PATH ...] [--driver [--fake-dialogs DIR] [--mock-capture]]
  --dist DIR       the built web host (npm run build in packages/host-web)
  --config FILE    the sign-in config (server_url, device_token, ...) as JSON
  --data DIR       the profile folder (default: $XDG_DATA_HOME/lineup/desktop)
  --bundle F=PATH  a signed bundle offered by Apps as lineup://app/apps/F (repeatable)
  --driver         answer test commands on stdin (one JSON object per line)
  --fake-dialogs DIR  with --driver: file dialogs answered from DIR/pick/ and saved into DIR/saved/
  --mock-capture   with --driver: WebKit's mock microphone instead of the machine's`;

export function parseOptions(argv: readonly string[], defaultDataDir: string): { ok: true; value: DesktopOptions } | { ok: false; error: string } {
  let dist: string | undefined;
  let config: string | undefined;
  let fake: string | undefined;
  let dataDir = defaultDataDir;
  let driver = false;
  let mockCapture = false;
  const bundles: { file: string; path: string }[] = [];
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = (): string | undefined => {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("--")) return undefined;
      i += 1;
      return next;
    };
    if (flag === "--driver") driver = true;
    else if (flag === "--mock-capture") mockCapture = true;
    else if (flag === "--dist" || flag === "--config" || flag === "--data" || flag === "--bundle" || flag === "--fake-dialogs") {
      const v = value();
      if (v === undefined || v === "") return { ok: false, error: `${flag} needs a value` };
      if (flag === "--dist") dist = v;
      else if (flag === "--fake-dialogs") fake = v;
      else if (flag === "--config") config = v;
      else if (flag === "--data") dataDir = v;
      else {
        const eq = v.indexOf("=");
        const file = v.slice(0, eq);
        if (eq <= 0 || !/^[a-z0-9][a-z0-9._-]*\.lineup$/.test(file)) return { ok: false, error: `--bundle takes FILE=PATH with FILE like name.lineup: ${v}` };
        bundles.push({ file, path: v.slice(eq + 1) });
      }
    } else return { ok: false, error: `unknown option ${flag}` };
  }
  if (dist === undefined) return { ok: false, error: "--dist is required" };
  // A person's window always shows the real dialogs.
  if (fake !== undefined && !driver) return { ok: false, error: "--fake-dialogs is for tests: it needs --driver" };
  if (mockCapture && !driver) return { ok: false, error: "--mock-capture is for tests: it needs --driver" };
  return { ok: true, value: { dist, dataDir, bundles, driver, mockCapture, ...(config === undefined ? {} : { config }), ...(fake === undefined ? {} : { fakeDialogs: fake }) } };
}
