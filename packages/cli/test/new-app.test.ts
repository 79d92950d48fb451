/**
 * An app author's first steps end to end: `lineup new app` scaffolds an app; its own test passes as it
 * stands (vitest in a process of its own, in the app's directory); `lineup build-app`, `keygen`, `pack`
 * and `sign` make a signed bundle of it; a real Runtime (the testkit's) installs that bundle through the
 * App Manager, trusting the new key, and the agent's call of the scaffold's tool gets its one result.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, expect, it } from "vitest";
import { createTestRuntime, type TestRuntime } from "@lineup/app-sdk/testkit";
import type { AgentTools } from "@lineup/surface-sdk";
import { runCli } from "../src/index.js";

const repo = resolve(import.meta.dirname, "../../..");
const work = mkdtempSync(join(tmpdir(), "lineup-new-app-"));
// The scaffold's dependencies, as `npm install` would provide them.
symlinkSync(join(repo, "node_modules"), join(work, "node_modules"), "dir");
const appDir = join(work, "hello-notes");
let kit: TestRuntime | undefined;
afterAll(async () => {
  await kit?.stop();
  rmSync(work, { recursive: true, force: true });
});

async function lineup(...argv: string[]): Promise<string> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  expect(err, argv.join(" ")).toEqual([]);
  expect(code, argv.join(" ")).toBe(0);
  return out.join("\n");
}

it("new → test → build → sign → install into a Runtime and call its tool", async () => {
  expect(await lineup("new", "app", "hello-notes", "--dir", work)).toContain(appDir);

  // The app's own test, as `npm test` runs it there (this repository's packages through their sources).
  const config = join(work, "vitest.config.mjs");
  writeFileSync(config, `export default { resolve: { conditions: ["source", "module", "node", "import", "default"] }, ssr: { resolve: { conditions: ["source", "module", "node", "default"] } } };\n`);
  const tested = spawnSync(process.execPath, [join(repo, "node_modules/vitest/vitest.mjs"), "run", "--root", appDir, "--config", config], { encoding: "utf8", timeout: 180_000, env: { ...process.env, NO_COLOR: "1", CI: "1" } });
  expect(tested.status, tested.stdout + tested.stderr).toBe(0);
  expect(tested.stdout).toMatch(/Tests\s+2 passed/);

  expect(await lineup("build-app", appDir, "--out", join(appDir, "dist"))).toMatch(/^built hello-notes 0\.1\.0/);
  const manifest = JSON.parse(readFileSync(join(appDir, "dist/lineup.app.json"), "utf8"));
  expect(manifest.tools.map((t: { method: string }) => t.method)).toEqual(["hello_notes.greet"]);
  await lineup("keygen", join(appDir, "keys"));
  await lineup("pack", join(appDir, "dist"), join(appDir, "hello-notes.lineup"));
  await lineup("sign", join(appDir, "hello-notes.lineup"), join(appDir, "keys/publisher.key"));
  const publisher = JSON.parse(readFileSync(join(appDir, "keys/publisher.pub.json"), "utf8"));
  expect(await lineup("verify", join(appDir, "hello-notes.lineup"), join(appDir, "keys/publisher.pub.json"))).toContain("verified hello-notes 0.1.0");

  kit = await createTestRuntime({ runtime: { trustedPublishers: [publisher] } });
  const installed = await kit.runtime.appManager.install(readFileSync(join(appDir, "hello-notes.lineup")), { approved: true });
  expect(installed.status).toBe("succeeded");
  expect(kit.runtime.appManager.getApp("hello-notes")?.record).toMatchObject({ enabled: true, installed_version: "0.1.0" });
  // The page serves the tools in a surface; here the app's own module serves them through the app SDK.
  const { tools } = (await import(pathToFileURL(join(appDir, "src/tools.ts")).href)) as { tools: AgentTools };
  const sdk = kit.sdk("hello-notes");
  for (const [method, tool] of tools.tools) sdk.tools.register(method, (args, ctx) => tool.handler(args, ctx) as never);
  const outcome = await kit.agent.call("hello-notes", "hello_notes.greet", { name: "Grace" });
  expect(outcome.error).toBeUndefined();
  expect(outcome.result).toEqual({ greeting: "Hello, Grace!" });
}, 240_000);
