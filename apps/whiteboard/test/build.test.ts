import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeManifest } from "@lineup/protocol";
import { buildApp, findExternalReferences } from "@lineup/surface-sdk/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const APP_DIR = join(import.meta.dirname, "..");
let outDir: string;
let html: string;
let manifestText: string;

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), "wb-build-"));
  await buildApp({ appDir: APP_DIR, outDir });
  html = await readFile(join(outDir, "index.html"), "utf8");
  manifestText = await readFile(join(outDir, "lineup.app.json"), "utf8");
}, 60_000);
afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
});

describe("whiteboard build", () => {
  it("writes exactly the manifest and one page, ready for lineup pack", async () => {
    expect((await readdir(outDir)).sort()).toEqual(["index.html", "lineup.app.json"]);
  });

  it("emits a valid lineup.app.v1 manifest whose tools come from defineAgentTools", () => {
    const decoded = decodeManifest(manifestText);
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    const manifest = decoded.value;
    expect(manifest).toMatchObject({ format: "lineup.app.v1", app_scope: "whiteboard", entrypoints: [{ id: "canvas", display_modes: ["foreground", "pip", "inline_card"] }] });
    expect(manifest.tools?.map((t) => [t.method, t.call_model, t.contract_version])).toEqual([
      ["board.create", "command", "1"],
      ["board.add_shapes", "command", "1"],
      ["board.summary", "query", "1"],
      ["board.export", "operation", "1"],
    ]);
    expect(manifest.runtime_sdk.required_features).toContain("app.tools.v1");
    // Non-executable: no handler or code in the descriptors.
    expect(manifestText).not.toMatch(/handler|function|=>/);
  });

  it("is one self-contained HTML page: inline script and style, nothing external", () => {
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(findExternalReferences(html)).toEqual([]);
    const scripts = [...html.matchAll(/<script\b([^>]*)>/gi)];
    expect(scripts).toHaveLength(1);
    expect(scripts[0]![1]).toBe("");
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/<(?:img|iframe|embed|object)\b[^>]*\ssrc=/i);
    expect(html).toMatch(/<style>[\s\S]*\.wb-toolbar[\s\S]*<\/style>/);
    expect(html).toContain('<div id="app"></div>');
  });

  it("admits exactly its own script through the page CSP and forbids the network", () => {
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    expect(csp).toBeDefined();
    expect(csp).toContain("default-src 'none'");
    const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
    const hash = createHash("sha256").update(script, "utf8").digest("base64");
    expect(csp).toContain(`script-src 'sha256-${hash}'`);
    expect(csp).not.toMatch(/unsafe-eval|connect-src|https?:/);
  });

  it("contains no Node code and no eval", () => {
    const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
    expect(script).not.toMatch(/\brequire\(\s*["']node:|process\.versions|\beval\(/);
    expect(script).not.toMatch(/new Function\(/);
  });
});
