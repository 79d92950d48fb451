/** The dashboard's build: a valid manifest that declares its task entries and its tool, and one self-contained page. */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeManifest } from "@lineup/protocol";
import { buildApp, findExternalReferences } from "@lineup/surface-sdk/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let outDir: string;

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), "td-build-"));
  await buildApp({ appDir: join(import.meta.dirname, ".."), outDir });
}, 60_000);
afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
});

describe("task dashboard build", () => {
  it("emits a valid manifest with the three task entries, the task feature and the tasks.open tool", async () => {
    expect((await readdir(outDir)).sort()).toEqual(["index.html", "lineup.app.json"]);
    const decoded = decodeManifest(await readFile(join(outDir, "lineup.app.json"), "utf8"));
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    const manifest = decoded.value;
    expect(manifest.agent_tasks?.entries.map((e) => e.id)).toEqual(["summarize_files", "plan_week", "write_note"]);
    expect(manifest.runtime_sdk.required_features).toEqual(expect.arrayContaining(["app.agent-task.v1", "artifact.read.v1", "app.tools.v1"]));
    expect(manifest.tools?.map((t) => [t.method, t.call_model, t.activation_requirement])).toEqual([["tasks.open", "command", "foreground_required"]]);
  });

  it("is one page with nothing external", async () => {
    const html = await readFile(join(outDir, "index.html"), "utf8");
    expect(findExternalReferences(html)).toEqual([]);
    expect(html).toMatch(/<style>[\s\S]*\.td-task[\s\S]*<\/style>/);
  });
});
