/**
 * The journal end to end on the Node host's parts (issue 20 "An app that uses it"): its build (manifest, page, the
 * wasm module and the importer program), then the built app installed on a Runtime with app storage on SQLite, the
 * wasm and stdio back-end runners, and an agent answering through the fake AppServer: entries kept, searched by the
 * wasm back-end, imported by the stdio program through the host's storage calls, and the week summarized by the
 * workflow — storage → agent task → confirm → storage → artifact → evidence.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeManifest, type AppManifest } from "@lineup/protocol";
import { buildApp, findExternalReferences } from "@lineup/surface-sdk/node";
import { RUNTIME_SCHEMA, createMemoryStore, createRuntime, generatePublisherKey, packBundle, signBundle, type LineUpRuntime, type WorkflowRun } from "@lineup/runtime";
import { createNodeWasmRunner, createSqliteAppStorageHost, createStdioRunner } from "@lineup/runtime/node";
import { createFakeClock, createSequentialIds, FakeAppServer } from "@lineup/runtime/testing";

let outDir: string;
let dataDir: string;
let manifest: AppManifest;
const files = new Map<string, Uint8Array>();

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), "journal-build-"));
  dataDir = await mkdtemp(join(tmpdir(), "journal-data-"));
  await buildApp({ appDir: join(import.meta.dirname, ".."), outDir });
  const decoded = decodeManifest(await readFile(join(outDir, "lineup.app.json"), "utf8"));
  if (!decoded.ok) throw new Error(decoded.error.message);
  manifest = decoded.value;
  for (const name of ["index.html", "backends/search.wasm", "backends/importer.mjs"]) files.set(name, new Uint8Array(await readFile(join(outDir, name))));
}, 90_000);
afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

describe("the journal's build", () => {
  it("emits a valid manifest, one self-contained page, the wasm module and the importer", async () => {
    expect((await readdir(outDir)).sort()).toEqual(["backends", "index.html", "lineup.app.json"]);
    expect(manifest.backends?.map((b) => [b.id, b.protocol, b.entry])).toEqual([
      ["search", "wasm", "backends/search.wasm"],
      ["importer", "stdio-jsonrpc", "backends/importer.mjs"],
    ]);
    expect(findExternalReferences(new TextDecoder().decode(files.get("index.html")))).toEqual([]);
    const module = new WebAssembly.Module(files.get("backends/search.wasm")! as Uint8Array<ArrayBuffer>);
    expect(WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}`).sort()).toEqual(["env.abort", "env.memory"]);
  });
});

describe("the journal on a Runtime with its back-ends", () => {
  let runtime: LineUpRuntime;
  let server: FakeAppServer;

  beforeAll(async () => {
    const key = await generatePublisherKey();
    const packed = await packBundle({ manifest, files });
    if (!packed.ok) throw new Error(packed.error.message);
    const signed = await signBundle(packed.value, key.privateKey);
    if (!signed.ok) throw new Error(signed.error.message);
    server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    runtime = createRuntime({
      store: await createMemoryStore(RUNTIME_SCHEMA),
      transport: server.transport,
      serverUrl: "mem://server",
      token: server.deviceToken,
      clock: createFakeClock(),
      ids: createSequentialIds({ run: "j" }),
      relistIntervalMs: 0,
      trustedPublishers: [key.trustedKey],
      appStorage: createSqliteAppStorageHost(join(dataDir, "app-storage")),
      backends: { wasm: createNodeWasmRunner, "stdio-jsonrpc": (spec) => createStdioRunner({ ...spec, dataDir }) },
    });
    await runtime.start();
    await runtime.whenOnline();
    const installed = await runtime.appManager.install(signed.value, { approved: true });
    if (installed.status !== "succeeded") throw new Error(JSON.stringify(installed));
  }, 60_000);
  afterAll(async () => runtime?.stop());

  it("keeps entries, searches them with the wasm back-end and imports text with the stdio program", async () => {
    const port = runtime.appPort("journal");
    await port.storage().put("entries", "2026-11-30", { title: "Monday", body: "A quiet start to the week", mood: "calm" });
    await expect(port.storage().put("entries", "2026-12-01", { title: "No body" })).rejects.toMatchObject({ code: "invalid_params" });
    const imported = await port.callBackend("importer", "import.text", { text: "2026-12-01\nTuesday\nBusy, many calls.\n\n2026-12-02\nWednesday, quiet again\n" });
    expect(imported).toEqual({ imported: 2, days: ["2026-12-01", "2026-12-02"] });
    const entries = await port.storage().list("entries");
    expect(entries.map((e) => e.key)).toEqual(["2026-11-30", "2026-12-01", "2026-12-02"]);
    expect(entries[1]!.value).toEqual({ title: "Tuesday", body: "Tuesday\nBusy, many calls." });
    expect(entries[1]!.provenance.app_version).toBe("1.0.0");
    const found = await port.callBackend("search", "search", { query: "quiet", entries: entries.map((e) => ({ key: e.key, text: `${(e.value as { title: string }).title}\n${(e.value as { body: string }).body}` })) });
    // The Wednesday says "quiet" in its title and again in its body: it comes first.
    expect(found).toEqual({ matches: [{ key: "2026-12-02", score: 2 }, { key: "2026-11-30", score: 1 }] });
  }, 30_000);

  it("summarizes the week: the workflow reads the entries, asks the agent, asks the person, keeps the summary, the file and the evidence", async () => {
    const port = runtime.appPort("journal");
    const run = await port.startWorkflow("summarize-week", { from: "2026-11-30", to: "2026-12-06" }, { conversation_id: "s-1", idempotency_key: "week-49" });
    const until = async (test: () => boolean, what: string) => {
      for (let i = 0; i < 400 && !test(); i++) await new Promise((r) => setTimeout(r, 10));
      if (!test()) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(port.getWorkflowRun(run.run_id))}`);
    };
    await until(() => [...(server.sessions.get("s-1")?.turns.values() ?? [])].some((t) => t.state === "running"), "the agent's turn");
    const [turnId, turn] = [...server.sessions.get("s-1")!.turns.entries()].find(([, t]) => t.state === "running")!;
    expect(turn).toBeDefined();
    // What the agent is given: the week's entries, read from the journal's storage by the workflow's first step.
    const started = server.sessions.get("s-1")!.events.find((e) => e.kind === "turn.started")!.data as { turn: { options?: { lineup_task?: { context?: { entries?: { key: string }[] } } } } };
    expect(started.turn.options?.lineup_task?.context?.entries?.map((e) => e.key)).toEqual(["2026-11-30", "2026-12-01", "2026-12-02"]);
    server.agentCompletesTurn("s-1", turnId, "A calm week.", { summary: "3 entries: a calm, busy, quiet week." });
    await until(() => port.getWorkflowRun(run.run_id).status === "waiting_for_user", "the confirm step");
    await port.controlWorkflow(run.run_id, { op: "confirm", step_id: "keep", confirmed: true });
    await until(() => port.getWorkflowRun(run.run_id).status !== "running", "the run's end");
    const done: WorkflowRun = port.getWorkflowRun(run.run_id);
    expect(done.status).toBe("completed");
    expect((await port.storage().get("summaries", "2026-11-30"))?.value).toEqual({ summary: "3 entries: a calm, busy, quiet week.", to: "2026-12-06" });
    const shared = await port.listArtifacts({ conversation_id: "s-1" });
    expect(shared.map((a) => a.artifact.name)).toEqual(expect.arrayContaining(["week-summary.md", `summarize-week-${run.run_id}.evidence.json`]));
  }, 30_000);
});
