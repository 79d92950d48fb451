import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateManifest } from "@lineup/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { buildApp, composePage, findExternalReferences } from "../src/node/index.js";

const FIXTURES = join(import.meta.dirname, "fixtures");
const dirs: string[] = [];
const scratch = async () => {
  const dir = await mkdtemp(join(tmpdir(), "sdk-build-"));
  dirs.push(dir);
  return dir;
};
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe("buildApp", () => {
  it("emits the manifest with the tools of the app's defineAgentTools module and one inline page", async () => {
    const outDir = await scratch();
    const built = await buildApp({ appDir: join(FIXTURES, "tiny-app"), outDir });
    const manifest = JSON.parse(await readFile(join(outDir, "lineup.app.json"), "utf8"));
    expect(validateManifest(manifest).ok).toBe(true);
    expect(manifest.tools).toEqual([
      { method: "tiny.echo", contract_version: "1", title: "Echo", call_model: "query", input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, output_schema: { type: "object" } },
    ]);
    expect(built.manifest).toEqual(manifest);
    const html = await readFile(join(outDir, "index.html"), "utf8");
    expect(html).toContain("<title>Tiny &lt;/title&gt; app</title>");
    expect(html).toMatch(/<style>[^<]*var\(--lineup-color-bg/);
    // The marker string was escaped: only the page's own script element is closed.
    expect(html.match(/<\/script>/gi)).toHaveLength(1);
    expect(html).toContain("<\\/script>");
    expect(findExternalReferences(html)).toEqual([]);
  }, 60_000);

  it("refuses a base manifest that lists tools by hand", async () => {
    await expect(buildApp({ appDir: join(FIXTURES, "base-with-tools"), outDir: await scratch() })).rejects.toMatchObject({ code: "manifest_invalid", path: "/tools" });
  });

  it("refuses a manifest that fails validateManifest, writing nothing", async () => {
    const outDir = join(await scratch(), "out");
    await expect(buildApp({ appDir: join(FIXTURES, "reserved-scope"), outDir })).rejects.toMatchObject({ code: "manifest_reserved_scope", path: "/app_scope" });
    await expect(readFile(join(outDir, "lineup.app.json"))).rejects.toThrow();
  });

  it("refuses an output directory that would hold the app's sources, and an app without main", async () => {
    await expect(buildApp({ appDir: join(FIXTURES, "tiny-app"), outDir: join(FIXTURES, "tiny-app") })).rejects.toMatchObject({ code: "manifest_invalid" });
    await expect(buildApp({ appDir: join(FIXTURES, "tiny-app"), outDir: FIXTURES })).rejects.toMatchObject({ code: "manifest_invalid" });
    await expect(buildApp({ appDir: FIXTURES, outDir: await scratch() })).rejects.toMatchObject({ code: "manifest_invalid" });
  });
});

describe("page composition", () => {
  it("finds external references in markup and CSS, and none in a composed page", () => {
    expect(findExternalReferences('<img src="https://x/y.png"><link href="a.css"><style>a{background:url(http://t/p)}</style>')).toHaveLength(3);
    expect(findExternalReferences('<style>a{background:url("data:image/png;base64,AA")}</style>')).toEqual([]);
    const page = composePage({ title: "t", lang: "en", script: 'x.src="y";</script>', style: "a{}" });
    expect(findExternalReferences(page)).toEqual([]);
    expect(page).toContain('x.src="y";<\\/script>');
  });
});
