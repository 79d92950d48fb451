/**
 * `buildApp({ appDir, outDir })`: turns an app's sources into a directory ready for `lineup pack`:
 * `lineup.app.json` (the manifest) and `index.html` (the whole app in one self-contained page).
 *
 * The manifest is the author's `lineup.app.base.json` plus the `tools` block generated from the
 * app's own `defineAgentTools(...)` module (spec 9: nobody maintains a second tool file), checked
 * with `validateManifest` before anything is written. The page is `src/main.ts(x)` bundled by
 * esbuild (JSX for Preact), with script and style inline and nothing external.
 *
 * Each back-end the manifest declares with an `entry` (docs/manifest.md §8b) is a file of the bundle: copied from the
 * same path in the app's directory, or — a `.wasm` module with `<name>.asc.ts` beside where it would be — compiled
 * from that AssemblyScript (the `assemblyscript` package, a development dependency) with the host's ABI: memory
 * imported (`--importMemory`), at most the back-end's `memory_mb`.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type BuildOptions } from "esbuild";
import { decodeJson, LineUpError, validateManifest, type AppManifest, type ToolDescriptor } from "@lineup/protocol";
import { checkAgentTools, isAgentTools, toolDescriptors } from "../tools/define.js";
import { composePage, findExternalReferences } from "./html.js";

export interface BuildAppOptions {
  /** The app's directory: `lineup.app.base.json`, `src/main.ts(x)`, optionally `src/tools.ts(x)`. */
  readonly appDir: string;
  /** Where `lineup.app.json` and `index.html` go. Emptied first; may not contain the app's sources. */
  readonly outDir: string;
  /** Minify the page (default true). */
  readonly minify?: boolean;
}

export interface BuiltApp {
  readonly manifest: AppManifest;
  readonly manifestPath: string;
  readonly htmlPath: string;
  readonly htmlBytes: number;
}

export const BASE_MANIFEST_FILE = "lineup.app.base.json";
export const MANIFEST_FILE = "lineup.app.json";
export const PAGE_FILE = "index.html";

/**
 * Export conditions: run from the repository's TypeScript sources (as in the tests), workspace packages
 * resolve to their sources too; run from a published build, only the standard conditions apply.
 */
const CONDITIONS = import.meta.url.endsWith(".ts") ? ["source"] : [];

function firstExisting(dir: string, names: readonly string[]): string | undefined {
  return names.map((name) => join(dir, name)).find((path) => existsSync(path));
}

function buildError(message: string): LineUpError {
  return new LineUpError("manifest_invalid", message);
}

async function readBaseManifest(appDir: string): Promise<Record<string, unknown>> {
  const path = join(appDir, BASE_MANIFEST_FILE);
  if (!existsSync(path)) throw buildError(`${path} is missing`);
  const json = decodeJson(await readFile(path));
  if (!json.ok) throw new LineUpError(json.error.code, `${BASE_MANIFEST_FILE}: ${json.error.message}`, json.error.path === undefined ? undefined : { path: json.error.path });
  const base = json.value;
  if (typeof base !== "object" || base === null || Array.isArray(base)) throw buildError(`${BASE_MANIFEST_FILE} must be a JSON object`);
  if (Object.prototype.hasOwnProperty.call(base, "tools")) {
    throw new LineUpError("manifest_invalid", `${BASE_MANIFEST_FILE} must not list tools: they are generated from defineAgentTools(...)`, { path: "/tools" });
  }
  return base;
}

/**
 * Loads the app's tools module in Node and returns its descriptors. The module is bundled first
 * (TypeScript, workspace sources), so it loads the same way under any runner.
 */
async function loadToolDescriptors(toolsModule: string): Promise<ToolDescriptor[]> {
  const scratch = await mkdtemp(join(tmpdir(), "lineup-build-tools-"));
  try {
    const outfile = join(scratch, "tools.mjs");
    await build({
      entryPoints: [toolsModule],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      conditions: CONDITIONS,
      jsx: "automatic",
      jsxImportSource: "preact",
      logLevel: "silent",
    });
    const loaded = (await import(pathToFileURL(outfile).href)) as Record<string, unknown>;
    const candidates = Object.entries(loaded).filter(([, value]) => isAgentTools(value));
    const chosen = candidates.find(([name]) => name === "tools") ?? candidates.find(([name]) => name === "default") ?? candidates[0];
    if (chosen === undefined || (candidates.length > 1 && chosen[0] !== "tools" && chosen[0] !== "default")) {
      throw buildError(`${toolsModule} must export the result of defineAgentTools(...) as "tools" (found ${candidates.length} candidates)`);
    }
    if (!isAgentTools(chosen[1])) throw buildError(`${toolsModule}: export ${chosen[0]} is not from defineAgentTools(...)`);
    checkAgentTools(chosen[1]);
    return toolDescriptors(chosen[1]);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Puts `tools` where the manifest documents it, after the subscriptions. */
function withTools(base: Record<string, unknown>, tools: readonly ToolDescriptor[]): Record<string, unknown> {
  if (tools.length === 0) return { ...base };
  const out: Record<string, unknown> = {};
  let placed = false;
  for (const [key, value] of Object.entries(base)) {
    if (!placed && (key === "capabilities" || key === "events" || key === "storage")) {
      out["tools"] = tools;
      placed = true;
    }
    out[key] = value;
  }
  if (!placed) out["tools"] = tools;
  return out;
}

/** An app page's script and style, and the bytes each input file contributes to the script. */
export interface PageBundle {
  readonly script: string;
  readonly style: string;
  /** Input path (relative to the working directory, as esbuild names it) → bytes it adds to the minified script. */
  readonly scriptInputs: ReadonlyMap<string, number>;
}

/** Bundles `src/main.ts(x)` the way `buildApp` does: one script and one style, nothing external. */
export async function bundlePage(entry: string, minify: boolean): Promise<PageBundle> {
  const options: BuildOptions = {
    entryPoints: [entry],
    bundle: true,
    write: false,
    outdir: "out",
    platform: "browser",
    format: "iife",
    target: "es2022",
    minify,
    conditions: CONDITIONS,
    jsx: "automatic",
    jsxImportSource: "preact",
    define: { "process.env.NODE_ENV": '"production"' },
    loader: { ".png": "dataurl", ".svg": "dataurl", ".woff2": "dataurl", ".woff": "dataurl" },
    legalComments: "none",
    logLevel: "silent",
    metafile: true,
  };
  const result = await build(options);
  const files = result.outputFiles ?? [];
  const script = files.filter((f) => f.path.endsWith(".js")).map((f) => f.text).join("\n");
  const style = files.filter((f) => f.path.endsWith(".css")).map((f) => f.text).join("\n");
  const scriptInputs = new Map<string, number>();
  for (const [path, output] of Object.entries(result.metafile?.outputs ?? {})) {
    if (!path.endsWith(".js")) continue;
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) scriptInputs.set(input, (scriptInputs.get(input) ?? 0) + bytesInOutput);
  }
  return { script, style, scriptInputs };
}

function checkEntrypointPaths(manifest: AppManifest): void {
  for (const [i, entrypoint] of manifest.entrypoints.entries()) {
    if (entrypoint.kind !== "background" && (entrypoint.path ?? PAGE_FILE) !== PAGE_FILE) {
      throw new LineUpError("manifest_invalid", `the build emits one page, ${PAGE_FILE}; entrypoint ${entrypoint.id} names ${entrypoint.path}`, { path: `/entrypoints/${i}/path` });
    }
  }
}

function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && rel !== "..");
}

/** The back-ends' entry files, into the output at the paths the manifest names. */
async function writeBackendEntries(appDir: string, outDir: string, manifest: AppManifest): Promise<void> {
  for (const [i, backend] of (manifest.backends ?? []).entries()) {
    if (backend.entry === undefined) continue;
    const source = join(appDir, backend.entry);
    const target = join(outDir, backend.entry);
    await mkdir(dirname(target), { recursive: true });
    if (existsSync(source)) {
      await writeFile(target, await readFile(source));
      continue;
    }
    const script = source.endsWith(".wasm") ? `${source.slice(0, -".wasm".length)}.asc.ts` : undefined;
    if (script === undefined || !existsSync(script)) throw new LineUpError("manifest_invalid", `back-end ${backend.id}'s entry ${backend.entry} is not in the app's directory`, { path: `/backends/${i}/entry` });
    await writeFile(target, await compileAssemblyScript(script, backend.limits?.memory_mb ?? 64));
  }
}

/** AssemblyScript → a wasm module that imports its memory (the host caps it) and exports the ABI's functions. */
async function compileAssemblyScript(file: string, memoryMb: number): Promise<Uint8Array> {
  let asc: { main(argv: string[], options: object): Promise<{ error: Error | null; stderr: { toString(): string } }> };
  try {
    asc = ((await import("assemblyscript/asc")) as unknown as { default: typeof asc }).default;
  } catch (error) {
    throw new LineUpError("internal_error", `compiling ${file} needs the assemblyscript package (npm install -D assemblyscript)`, { cause: error });
  }
  let wasm: Uint8Array | undefined;
  const errors: string[] = [];
  const result = await asc.main([file, "--outFile", "module.wasm", "--importMemory", "--initialMemory", "2", "--maximumMemory", String(memoryMb * 16), "--optimize", "--runtime", "incremental"], {
    writeFile: (name: string, contents: Uint8Array | string) => {
      if (name.endsWith(".wasm") && contents instanceof Uint8Array) wasm = contents;
    },
    stdout: { write: () => true },
    stderr: { write: (text: string | Uint8Array) => errors.push(typeof text === "string" ? text : new TextDecoder().decode(text)) },
  });
  if (result.error !== null || wasm === undefined) throw new LineUpError("internal_error", `compiling ${file} failed: ${result.error?.message ?? "no module"}\n${errors.join("").slice(0, 2_000)}`);
  return wasm;
}

/** Builds the app. Rejects with a `LineUpError`: a manifest code for manifest and tool problems, `internal_error` for a failed bundle. */
export async function buildApp(options: BuildAppOptions): Promise<BuiltApp> {
  const appDir = resolve(options.appDir);
  const outDir = resolve(options.outDir);
  if (isInside(appDir, outDir) || isInside(join(appDir, "src"), outDir)) throw buildError(`outDir ${outDir} would hold the app's own sources`);

  const base = await readBaseManifest(appDir);
  const src = join(appDir, "src");
  const entry = firstExisting(src, ["main.tsx", "main.ts"]);
  if (entry === undefined) throw buildError(`${src}/main.ts(x) is missing`);
  const toolsModule = firstExisting(src, ["tools.ts", "tools.tsx"]);

  const tools = toolsModule === undefined ? [] : await loadToolDescriptors(toolsModule);
  const checked = validateManifest(withTools(base, tools));
  if (!checked.ok) throw new LineUpError(checked.error.code, `${MANIFEST_FILE}: ${checked.error.message}`, checked.error.path === undefined ? undefined : { path: checked.error.path });
  const manifest = checked.value;
  checkEntrypointPaths(manifest);

  let page: PageBundle;
  try {
    page = await bundlePage(entry, options.minify ?? true);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    throw new LineUpError("internal_error", `bundling ${relative(appDir, entry)} failed: ${text}`, { cause: error });
  }
  const html = composePage({ title: manifest.name ?? manifest.app_scope, lang: "en", script: page.script, style: page.style });
  const external = findExternalReferences(html);
  if (external.length > 0) throw new LineUpError("internal_error", `the page refers to external resources: ${external.join(", ")}`);

  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const manifestPath = join(outDir, MANIFEST_FILE);
  const htmlPath = join(outDir, PAGE_FILE);
  await mkdir(dirname(htmlPath), { recursive: true });
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(htmlPath, html);
  await writeBackendEntries(appDir, outDir, manifest);
  return { manifest, manifestPath, htmlPath, htmlBytes: Buffer.byteLength(html) };
}
