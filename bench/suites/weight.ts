/**
 * weight: what a browser parses before a first frame. Deterministic, so each row is a size beside
 * its absolute budget (PERFORMANCE.md), not a floor: the ratio is size / budget, ≤ 1 passes.
 *
 * - the web host's JavaScript, minified and gzip: a fresh production build (Vite) into a scratch
 *   directory; every script it emits, and the ones its page loads first;
 * - the surface SDK as bundled into each shipped app: the bytes of the app's page script that come
 *   from outside the app's own code and its UI library (Preact), i.e. @lineup/surface-sdk and what it
 *   pulls in; the row reports the heaviest app;
 * - each shipped app's page (`buildApp`: the one self-contained index.html).
 */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { buildHost } from "@lineup/host-web/node";
import { buildApp, bundlePage } from "@lineup/surface-sdk/node";
import { machine, type BenchResult, type SuiteResult } from "../lib.js";

const KB = 1000;
const HOST_MIN_BUDGET = 500 * KB;
const HOST_GZIP_BUDGET = 150 * KB;
const SDK_BUDGET = 40 * KB;
const PAGE_BUDGET = 120 * KB;

const repo = resolve(import.meta.dirname, "..", "..");

function row(metric: string, bytes: number, budget: number, extra: Record<string, unknown> = {}): BenchResult {
  return { metric, unit: "bytes", value: bytes, baseline: "budget", baseline_value: budget, ratio: bytes / budget, target_ratio: 1, higher_is_better: false, ...extra };
}

/** The scripts `index.html` names (its entry and the modules it preloads), then every script in assets/. */
async function hostScripts(outDir: string): Promise<{ initial: string[]; all: string[] }> {
  const html = await readFile(join(outDir, "index.html"), "utf8");
  const initial = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  const all = (await readdir(join(outDir, "assets"))).filter((f) => f.endsWith(".js")).map((f) => `assets/${f}`);
  return { initial, all };
}

async function sizes(outDir: string, files: readonly string[]): Promise<{ min: number; gzip: number }> {
  let min = 0;
  let gzip = 0;
  for (const file of files) {
    const bytes = await readFile(join(outDir, file));
    min += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  return { min, gzip };
}

/** The bytes of an app's script that are not the app's own and not Preact. */
function sdkBytes(appDir: string, inputs: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const [input, bytes] of inputs) {
    const path = resolve(repo, input);
    if (path.startsWith(`${appDir}/`) || path.includes("/node_modules/preact/")) continue;
    total += bytes;
  }
  return total;
}

export async function run(): Promise<SuiteResult> {
  const results: BenchResult[] = [];
  const scratch = await mkdtemp(join(tmpdir(), "lineup-bench-weight-"));
  try {
    const hostOut = await buildHost({ outDir: join(scratch, "host") });
    const scripts = await hostScripts(hostOut);
    const first = await sizes(hostOut, scripts.initial);
    const all = await sizes(hostOut, scripts.all);
    const notes = `${scripts.initial.length} script(s) before first paint, ${scripts.all.length} in all (${all.min} B min, ${all.gzip} B gzip)`;
    results.push(row("host_js_min", first.min, HOST_MIN_BUDGET, { notes, all_scripts_bytes: all.min }));
    results.push(row("host_js_gzip", first.gzip, HOST_GZIP_BUDGET, { notes, all_scripts_bytes: all.gzip }));

    const appsDir = join(repo, "apps");
    const apps = (await readdir(appsDir)).filter((name) => existsSync(join(appsDir, name, "lineup.app.base.json"))).sort();
    let heaviest = { app: "", bytes: 0 };
    for (const app of apps) {
      const appDir = join(appsDir, app);
      const entry = ["main.tsx", "main.ts"].map((f) => join(appDir, "src", f)).find((f) => existsSync(f));
      if (entry === undefined) throw new Error(`${app} has no src/main.ts(x)`);
      const page = await bundlePage(entry, true);
      const sdk = sdkBytes(appDir, page.scriptInputs);
      if (sdk >= heaviest.bytes) heaviest = { app, bytes: sdk };
      const built = await buildApp({ appDir, outDir: join(scratch, "apps", app) });
      results.push(row(`app_page_${app.replace(/-/g, "_")}`, built.htmlBytes, PAGE_BUDGET, { notes: `surface SDK ${sdk} B of it` }));
    }
    results.push(row("surface_sdk_in_app", heaviest.bytes, SDK_BUDGET, { notes: `heaviest: ${heaviest.app}` }));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const order = ["host_js_min", "host_js_gzip", "surface_sdk_in_app"];
  results.sort((a, b) => rank(a.metric, order) - rank(b.metric, order));
  return { suite: "weight", machine: machine(), results };
}

const rank = (metric: string, order: readonly string[]): number => (order.includes(metric) ? order.indexOf(metric) : order.length);
