import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { projectManifest, type AppManifest, type AppScope, type JsonValue } from "@lineup/protocol";
import { createMemoryAppStorageHost, type AppStorageHost, type BackendRunner, type BackendRunners, type RuntimeOptions, type RuntimeStore, type TraceEntry, type WorkflowRun } from "../src/index.js";
import { createStdioRunner } from "../src/node/index.js";
import { onlineDevice, publisherKey, serve, signedBundle } from "./helpers/apps-harness.js";
import { auditOf, createFakeClock, createMemoryStoreData, FakeAppServer, startDevice, until, type Device } from "./helpers/runtime-harness.js";

// Issue 20 "Workflow runtime" through the Runtime (RELIABILITY W1): a declared workflow runs as a durable run —
// storage steps, an agent task, a confirm step the person answers, an artifact and evidence — and killed at any
// commit, restarted, it finishes with each step's effect made once.

const JOURNAL: AppManifest = {
  format: "lineup.app.v1",
  app_scope: "journal" as AppScope,
  version: "1.0.0",
  name: "Journal",
  runtime_sdk: { api_version: "1", required_features: ["app.storage.v1", "app.workflow.v1", "app.agent-task.v1"] },
  entrypoints: [{ id: "main", kind: "primary" }],
  storage: { collections: [{ name: "entries" }] },
  agent_tasks: { entries: [{ id: "summarize_week", title: "Summarize my week" }] },
  workflows: [
    {
      id: "summarize-week",
      title: "Summarize my week",
      input_schema: { type: "object", required: ["day", "text"], properties: { day: { type: "string" }, text: { type: "string" } } },
      steps: [
        { id: "save", kind: "storage.put", collection: "entries", input: { key: { $from: "/input/day" }, value: { text: { $from: "/input/text" } } } },
        { id: "read", kind: "storage.list", collection: "entries", input: { limit: 50 } },
        { id: "ask", kind: "agent.task", entry: "summarize_week", input: { text: "Summarize my week", context: { entries: { $from: "/steps/read/output" } } }, output_schema: { type: "object", required: ["summary"] } },
        { id: "ok", kind: "confirm", input: { prompt: "Keep this summary?" } },
        { id: "note", kind: "artifact.create", input: { name: "week.md", mime_type: "text/markdown", text: { $from: "/steps/ask/output/summary" } } },
        { id: "proof", kind: "evidence.record" },
      ],
      output: { summary: { $from: "/steps/ask/output/summary" }, note: { $from: "/steps/note/output" } },
    },
  ],
};

/** The one turn the agent runs for the run's task, answered with a summary. */
async function agentAnswers(server: FakeAppServer): Promise<void> {
  await until(() => server.sessions.get("s-1")?.turns.size === 1 && [...server.sessions.get("s-1")!.turns.values()][0]!.state === "running", 5_000, "the task's turn");
  const [turnId] = [...server.sessions.get("s-1")!.turns.keys()];
  server.agentCompletesTurn("s-1", turnId!, "Done.", { summary: "A calm week." });
}

const kinds = (trace: readonly TraceEntry[]) => trace.map((t) => `${t.kind}${t.step_id === undefined ? "" : `:${t.step_id}`}`);

async function traceOf(d: Device, runId: string): Promise<TraceEntry[]> {
  const out: TraceEntry[] = [];
  for (;;) {
    const page = await d.runtime.appPort("journal").workflowTrace(runId, out.length, 3);
    if (page.length === 0) return out;
    out.push(...page);
  }
}

describe("a workflow run", () => {
  it("runs each step in order, waits for the person's answer, and ends with its output, trace and evidence", async () => {
    const { server, d } = await onlineDevice({ install: JOURNAL, extra: { appStorage: createMemoryAppStorageHost() } });
    try {
      const port = d.runtime.appPort("journal");
      const seen: WorkflowRun[] = [];
      port.subscribeWorkflows((run) => seen.push(run));

      await expect(port.startWorkflow("summarize-week", { day: 5 }, { conversation_id: "s-1" })).rejects.toMatchObject({ code: "invalid_params" });
      await expect(port.startWorkflow("nope", {}, { conversation_id: "s-1" })).rejects.toMatchObject({ code: "not_found" });
      // It asks the agent: without a conversation it cannot start.
      await expect(port.startWorkflow("summarize-week", { day: "2026-12-01", text: "x" })).rejects.toMatchObject({ code: "invalid_state" });
      const run = await port.startWorkflow("summarize-week", { day: "2026-12-01", text: "Quiet Monday" }, { conversation_id: "s-1", idempotency_key: "week-49" });
      expect((await port.startWorkflow("summarize-week", { day: "2026-12-01", text: "Quiet Monday" }, { conversation_id: "s-1", idempotency_key: "week-49" })).run_id).toBe(run.run_id);
      await expect(port.startWorkflow("summarize-week", { day: "2026-12-02", text: "Other" }, { conversation_id: "s-1", idempotency_key: "week-49" })).rejects.toMatchObject({ code: "idempotency_conflict" });

      await agentAnswers(server);
      await until(() => port.getWorkflowRun(run.run_id).status === "waiting_for_user", 5_000, "the confirm step");
      await expect(port.controlWorkflow(run.run_id, { op: "confirm", step_id: "note", confirmed: true })).rejects.toMatchObject({ code: "invalid_state" });
      await port.controlWorkflow(run.run_id, { op: "confirm", step_id: "ok", confirmed: true });
      await until(() => port.getWorkflowRun(run.run_id).status !== "running", 5_000, "the run's end").catch(() => undefined);
      if (port.getWorkflowRun(run.run_id).status !== "completed") throw new Error(JSON.stringify({ run: port.getWorkflowRun(run.run_id), errors: d.errors.map((e) => String((e as { error: unknown }).error) + " " + (e as { context: string }).context) }, null, 1));

      const done = port.getWorkflowRun(run.run_id);
      expect(done.output).toMatchObject({ summary: "A calm week.", note: { name: "week.md", mime_type: "text/markdown" } });
      expect((await port.storage().get("entries", "2026-12-01"))?.value).toEqual({ text: "Quiet Monday" });
      const trace = await traceOf(d, run.run_id);
      expect(trace.map((t) => t.index)).toEqual(trace.map((_, i) => i + 1));
      expect(kinds(trace)).toEqual([
        "run.started",
        ...["save", "read", "ask"].flatMap((s) => [`step.started:${s}`, `step.succeeded:${s}`]),
        "step.started:ok",
        "step.waiting:ok",
        "step.succeeded:ok",
        ...["note", "proof"].flatMap((s) => [`step.started:${s}`, `step.succeeded:${s}`]),
        "run.completed",
      ]);
      expect(trace.filter((t) => t.kind === "step.succeeded").every((t) => /^[0-9a-f]{64}$/.test(t.output_hash ?? ""))).toBe(true);
      // The note is shared with the conversation; the evidence step exported the AppServer's pack too, which is
      // one of the conversation's files (export-1.json) beside the run's own evidence.
      await expect
        .poll(async () => (await port.listArtifacts({ conversation_id: "s-1" })).map((a) => a.artifact.name).sort())
        .toEqual(["export-1.json", `summarize-week-${run.run_id}.evidence.json`, "week.md"].sort());
      expect(server.applied.filter((w) => w.method === "evidence/export")).toHaveLength(1);
      expect(seen.at(-1)?.status).toBe("completed");
      // The run's own evidence on demand.
      const evidence = await port.exportWorkflowEvidence(run.run_id);
      expect(evidence).toMatchObject({ ended: true, pack_digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    } finally {
      await d.stop();
    }
  });

  it("ends cancelled when the person says no, and can be cancelled while it runs", async () => {
    const { server, d } = await onlineDevice({ install: JOURNAL, extra: { appStorage: createMemoryAppStorageHost() } });
    try {
      const port = d.runtime.appPort("journal");
      const run = await port.startWorkflow("summarize-week", { day: "2026-12-01", text: "x" }, { conversation_id: "s-1" });
      await agentAnswers(server);
      await until(() => port.getWorkflowRun(run.run_id).status === "waiting_for_user", 5_000, "the confirm step");
      await port.controlWorkflow(run.run_id, { op: "confirm", step_id: "ok", confirmed: false });
      expect(port.getWorkflowRun(run.run_id)).toMatchObject({ status: "failed", error: { code: "cancelled_by_user", step_id: "ok" } });
      await expect(port.controlWorkflow(run.run_id, { op: "cancel" })).rejects.toMatchObject({ code: "invalid_state" });

      const second = await port.startWorkflow("summarize-week", { day: "2026-12-02", text: "y" }, { conversation_id: "s-1" });
      await until(() => port.getWorkflowRun(second.run_id).steps["ask"]?.status === "running", 5_000, "the agent task step");
      expect((await port.controlWorkflow(second.run_id, { op: "cancel", reason: "changed my mind" })).status).toBe("cancelled");
      // Another app cannot see or touch the journal's runs.
      expect(() => d.runtime.appPort("chat").getWorkflowRun(second.run_id)).toThrow(expect.objectContaining({ code: "not_found" }));
    } finally {
      await d.stop();
    }
  });
});

/** A Runtime store, and an app storage host, that die together at the `crashAt`-th Runtime commit: a kill there. */
function dying(crashAt: number): { wrapStore: (store: RuntimeStore) => RuntimeStore; wrapHost: (host: AppStorageHost) => AppStorageHost; dead: () => boolean } {
  let commits = 0;
  let dead = false;
  const never = <T>(): Promise<T> => new Promise<T>(() => undefined);
  return {
    dead: () => dead,
    wrapStore: (store) => ({
      ...store,
      commit(batch) {
        if (dead) return never();
        if (++commits >= crashAt) {
          dead = true;
          return never();
        }
        return store.commit(batch);
      },
      get: (c, k) => (dead ? never() : store.get(c, k)),
      getMany: (keys) => (dead ? never() : store.getMany(keys)),
      range: (c, q) => (dead ? never() : store.range(c, q)),
      close: () => store.close(),
    }),
    wrapHost: (host) => ({
      open: async (scope, name, schema) => {
        if (dead) return never();
        const store = await host.open(scope, name, schema);
        return { ...store, commit: (batch) => (dead ? never() : store.commit(batch)) };
      },
      destroy: (scope, name) => (dead ? never() : host.destroy(scope, name)),
    }),
  };
}

/** Waits for `work`, at most `ms`: every wait of a doomed process is bounded, as after the kill its commits never answer. */
const within = <T>(work: Promise<T>, ms = 300): Promise<T | undefined> => Promise.race([work, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms))]);

/**
 * One kill point of a crash sweep: a fresh AppServer (session `s-1`) and disk with `bundle` installed on a healthy
 * device first (so every crash point falls inside the run), then the device that dies at the `crashAt`-th commit
 * (undefined if it died starting) and the restarted one, on what the kill left.
 */
async function crashPoint(bundle: Uint8Array, crashAt: number, extra: Partial<RuntimeOptions> = {}) {
  const key = await publisherKey();
  const server = new FakeAppServer();
  server.createSession({ session_id: "s-1", agent_id: "agent-1" });
  const data = createMemoryStoreData();
  const host = createMemoryAppStorageHost();
  const options = { trustedPublishers: [key.trustedKey], ...extra };
  const setup = await startDevice(server, data, { clock: createFakeClock(), extra: { ...options, appStorage: host } });
  await setup.runtime.whenOnline();
  await setup.runtime.appManager.install(bundle, { approved: true });
  await setup.stop();
  const kill = dying(crashAt);
  return {
    server,
    kill,
    doomed: () => within(startDevice(server, data, { run: "r1", clock: createFakeClock(), wrapStore: kill.wrapStore, extra: { ...options, appStorage: kill.wrapHost(host) } }), 1_000),
    restart: () => startDevice(server, data, { run: "r2", clock: createFakeClock(), extra: { ...options, appStorage: host } }),
  };
}

describe("a workflow run killed at every commit (RELIABILITY W1)", () => {
  it("resumes after the restart and makes each step's effect once", { timeout: 120_000 }, async () => {
    const bundle = await signedBundle(JOURNAL);
    for (let crashAt = 1; crashAt < 80; crashAt++) {
      const { server, kill, doomed, restart } = await crashPoint(bundle, crashAt);
      let runId: string | undefined;
      let answerer = (): void => undefined;
      try {
        const first = await doomed();
        if (first !== undefined) {
          const port = first.runtime.appPort("journal");
          answerer = port.subscribeWorkflows((run) => {
            if (run.status === "waiting_for_user") void port.controlWorkflow(run.run_id, { op: "confirm", step_id: "ok", confirmed: true }).catch(() => undefined);
          });
          await within(first.runtime.whenOnline(), 1_000);
          runId = (await within(port.startWorkflow("summarize-week", { day: "2026-12-01", text: "Quiet" }, { conversation_id: "s-1", idempotency_key: "w" })))?.run_id;
          for (let i = 0; i < 200 && !kill.dead(); i++) {
            const session = server.sessions.get("s-1")!;
            const running = [...session.turns.entries()].find(([, t]) => t.state === "running");
            if (running !== undefined) server.agentCompletesTurn("s-1", running[0], "Done.", { summary: "A calm week." });
            if (runId !== undefined && port.getWorkflowRun(runId).status === "completed") break;
            await new Promise((r) => setTimeout(r, 5));
          }
        }
      } catch {
        // The kill: whatever was in flight is gone with the process.
      }
      answerer();
      const finishedWithoutKill = !kill.dead();
      if (process.env["WF_DEBUG"]) console.log("crashAt", crashAt, "runId", runId, "dead", kill.dead());
      const second = await restart();
      try {
        await second.runtime.whenOnline();
        const again = second.runtime.appPort("journal");
        again.subscribeWorkflows((run) => {
          if (run.status === "waiting_for_user") void again.controlWorkflow(run.run_id, { op: "confirm", step_id: "ok", confirmed: true }).catch(() => undefined);
        });
        // The app asks again with the same key: the same run, if the first start was committed.
        const run = await again.startWorkflow("summarize-week", { day: "2026-12-01", text: "Quiet" }, { conversation_id: "s-1", idempotency_key: "w" });
        if (runId !== undefined) expect(run.run_id).toBe(runId);
        const waiting = again.getWorkflowRun(run.run_id);
        // (The listener above may have answered first.)
        if (waiting.status === "waiting_for_user") await again.controlWorkflow(run.run_id, { op: "confirm", step_id: "ok", confirmed: true }).catch(() => undefined);
        for (let i = 0; i < 400 && again.getWorkflowRun(run.run_id).status !== "completed"; i++) {
          const session = server.sessions.get("s-1")!;
          const running = [...session.turns.entries()].find(([, t]) => t.state === "running");
          if (running !== undefined) server.agentCompletesTurn("s-1", running[0], "Done.", { summary: "A calm week." });
          await new Promise((r) => setTimeout(r, 5));
        }
        const done = again.getWorkflowRun(run.run_id);
        expect({ crashAt, status: done.status, error: done.error }).toEqual({ crashAt, status: "completed", error: undefined });
        // Once each: one task turn asked of the agent, one note, one evidence export, one stored entry.
        const taskTurns = server.applied.filter((w) => w.method === "agentSession/turn/start");
        expect({ crashAt, turns: taskTurns.length }).toEqual({ crashAt, turns: 1 });
        const notes = (await again.listArtifacts({ conversation_id: "s-1" })).filter((a) => a.artifact.name === "week.md");
        expect({ crashAt, notes: notes.length }).toEqual({ crashAt, notes: 1 });
        expect({ crashAt, exports: new Set(server.applied.filter((w) => w.method === "evidence/export").map((w) => JSON.stringify(w.params))).size }).toEqual({ crashAt, exports: 1 });
        expect((await again.storage().list("entries")).map((r) => r.value as JsonValue)).toEqual([{ text: "Quiet" }]);
        const trace = await traceOf(second, run.run_id);
        expect(trace.map((t) => t.index)).toEqual(trace.map((_, i) => i + 1));
      } finally {
        await second.stop();
      }
      if (finishedWithoutKill) break;
    }
  });
});

/**
 * A ledger whose workflow pays through a stdio back-end: the program keeps each payment it made in its working
 * folder under the call's idempotency key, and answers a key it has seen with the payment already made.
 */
const LEDGER: AppManifest = {
  format: "lineup.app.v1",
  app_scope: "ledger" as AppScope,
  version: "1.0.0",
  name: "Ledger",
  runtime_sdk: { api_version: "1", required_features: ["app.storage.v1", "app.workflow.v1", "app.backend.v1"] },
  entrypoints: [{ id: "main", kind: "primary" }],
  storage: { collections: [{ name: "bills" }] },
  backends: [{ id: "bank", plane: "client-local", protocol: "stdio-jsonrpc", runtime: "node", entry: "backends/bank.mjs", methods: [{ name: "pay", result_schema: { type: "object", required: ["receipt"] } }], restart: { policy: "on-failure", max_restarts: 50, backoff_ms: 10 } }],
  workflows: [
    {
      id: "pay-bill",
      title: "Pay a bill",
      input_schema: { type: "object", required: ["bill", "amount"], properties: { bill: { type: "string" }, amount: { type: "number" } } },
      steps: [
        { id: "save", kind: "storage.put", collection: "bills", input: { key: { $from: "/input/bill" }, value: { amount: { $from: "/input/amount" } } } },
        { id: "pay", kind: "backend.call", backend: "bank", method: "pay", input: { bill: { $from: "/input/bill" }, amount: { $from: "/input/amount" } } },
        { id: "note", kind: "artifact.create", input: { name: "receipt.txt", text: { $from: "/steps/pay/output/receipt" } } },
      ],
      output: { receipt: { $from: "/steps/pay/output/receipt" } },
    },
  ],
} as AppManifest;

const BANK = `
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
const home = process.env.HOME;
const lines = (name) => (existsSync(home + "/" + name) ? readFileSync(home + "/" + name, "utf8").split("\\n").filter(Boolean).map((l) => JSON.parse(l)) : []);
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  const key = m.idempotency_key;
  appendFileSync(home + "/calls.jsonl", JSON.stringify({ key: key ?? null }) + "\\n");
  if (typeof key !== "string") return send({ jsonrpc: "2.0", id: m.id, error: { code: -32602, message: "a payment needs an idempotency key", data: { code: "invalid_params" } } });
  const made = lines("payments.jsonl").find((p) => p.key === key);
  if (made !== undefined) return send({ jsonrpc: "2.0", id: m.id, result: { receipt: made.receipt, replayed: true } });
  const receipt = "paid " + m.params.amount + " for " + m.params.bill + " #" + (lines("payments.jsonl").length + 1);
  appendFileSync(home + "/payments.jsonl", JSON.stringify({ key, receipt }) + "\\n");
  send({ jsonrpc: "2.0", id: m.id, result: { receipt } });
});
`;

describe("a workflow's backend.call step killed at every commit (RELIABILITY W1)", () => {
  it("calls the back-end again after the restart with the same idempotency key, and the back-end pays once", { timeout: 240_000 }, async () => {
    const bundle = await signedBundle(LEDGER, undefined, undefined, { "backends/bank.mjs": BANK });
    let replays = 0;
    for (let crashAt = 1; crashAt < 60; crashAt++) {
      const dataDir = mkdtempSync(join(tmpdir(), "lineup-wf-backend-"));
      const workDir = join(dataDir, "app-work", "ledger", "bank");
      const started: BackendRunner[] = [];
      const runners: BackendRunners = {
        "stdio-jsonrpc": (spec) => {
          const runner = createStdioRunner({ ...spec, dataDir });
          started.push(runner);
          return runner;
        },
      };
      const { kill, doomed, restart } = await crashPoint(bundle, crashAt, { backends: runners });
      let runId: string | undefined;
      try {
        const first = await doomed();
        if (first !== undefined) {
          const port = first.runtime.appPort("ledger");
          await within(first.runtime.whenOnline(), 1_000);
          runId = (await within(port.startWorkflow("pay-bill", { bill: "rent", amount: 900 }, { idempotency_key: "december" })))?.run_id;
          for (let i = 0; i < 400 && !kill.dead() && (runId === undefined || port.getWorkflowRun(runId).status !== "completed"); i++) await new Promise((r) => setTimeout(r, 5));
        }
      } catch {
        // The kill.
      }
      const finishedWithoutKill = !kill.dead();
      // The host died: its programs with it.
      await Promise.all(started.splice(0).map((r) => r.stop()));

      const second = await restart();
      try {
        await second.runtime.whenOnline();
        const again = second.runtime.appPort("ledger");
        const run = await again.startWorkflow("pay-bill", { bill: "rent", amount: 900 }, { idempotency_key: "december" });
        if (runId !== undefined) expect(run.run_id).toBe(runId);
        await until(() => again.getWorkflowRun(run.run_id).status !== "running", 10_000, "the run's end").catch(() => undefined);
        const done = again.getWorkflowRun(run.run_id);
        expect({ crashAt, status: done.status, error: done.error }).toEqual({ crashAt, status: "completed", error: undefined });
        // Every call the program got carried this step's key; it paid once, and the run's output is that payment.
        const calls = readFileSync(join(workDir, "calls.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { key: string | null });
        expect({ crashAt, keys: [...new Set(calls.map((c) => c.key))] }).toEqual({ crashAt, keys: [`workflow:${run.run_id}:pay~1`] });
        const payments = readFileSync(join(workDir, "payments.jsonl"), "utf8").trim().split("\n");
        expect({ crashAt, payments: payments.length }).toEqual({ crashAt, payments: 1 });
        expect(done.output).toEqual({ receipt: "paid 900 for rent #1" });
        if (calls.length > 1) replays += 1;
        if (process.env["WF_DEBUG"]) console.log("crashAt", crashAt, "calls", calls.length, "dead", kill.dead());
        expect((await again.listArtifacts({})).filter((a) => a.artifact.name === "receipt.txt")).toHaveLength(1);
      } finally {
        await second.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
      if (finishedWithoutKill) break;
    }
    // Some kills fell between the payment and its recorded outcome: the step ran again, and was recognised.
    expect(replays).toBeGreaterThan(0);
  });
});

/** A planner whose workflow adds an item through its own tool, then keeps it in its storage. */
const PLANNER: AppManifest = {
  format: "lineup.app.v1",
  app_scope: "planner" as AppScope,
  version: "1.0.0",
  name: "Planner",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", "app.storage.v1", "app.workflow.v1"] },
  entrypoints: [{ id: "main", kind: "primary" }],
  storage: { collections: [{ name: "items" }] },
  tools: [
    {
      method: "plan.add",
      contract_version: "1",
      title: "Add an item",
      input_schema: { type: "object", required: ["title"], properties: { title: { type: "string" } }, additionalProperties: false },
      output_schema: { type: "object", required: ["item_id"], properties: { item_id: { type: "string" } } },
      call_model: "command",
      activation_requirement: "activation_not_required",
      // Its handler makes one item per call_id: a second delivery after a crash is harmless, so the Runtime may redeliver.
      idempotent: true,
    },
    {
      method: "plan.show",
      contract_version: "1",
      input_schema: { type: "object" },
      output_schema: { type: "object" },
      call_model: "command",
      activation_requirement: "app_ready",
      timeout_ms: 5_000,
    },
  ],
  workflows: [
    {
      id: "add-item",
      title: "Add an item",
      steps: [
        { id: "add", kind: "tool", tool: { method: "plan.add" }, input: { title: { $from: "/input/title" } } },
        { id: "save", kind: "storage.put", collection: "items", input: { key: { $from: "/steps/add/output/item_id" }, value: { title: { $from: "/input/title" } } } },
      ],
      output: { item_id: { $from: "/steps/add/output/item_id" } },
    },
    { id: "show", title: "Show the plan", steps: [{ id: "show", kind: "tool", tool: { method: "plan.show" }, input: {} }] },
  ],
} as AppManifest;

/** A clipper whose one workflow adds what it clips to the planner, through the planner's tool. */
const CLIPPER: AppManifest = {
  format: "lineup.app.v1",
  app_scope: "clipper" as AppScope,
  version: "1.0.0",
  name: "Clipper",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.workflow.v1"] },
  entrypoints: [{ id: "main", kind: "primary" }],
  workflows: [{ id: "clip", title: "Clip to the planner", steps: [{ id: "clip", kind: "tool", tool: { app_scope: "planner" as AppScope, method: "plan.add" }, input: { title: { $from: "/input/title" } } }], output: { $from: "/steps/clip/output" } }],
} as AppManifest;

/** The planner's tool handler: one item per call_id however often a call is delivered (handlers deduplicate by call_id). */
function plannerHandler(runtime: Device["runtime"], made: Map<string, string>) {
  return serve(runtime, "planner", (call) => {
    if (!made.has(call.call_id)) made.set(call.call_id, `item-${made.size + 1}`);
    return { item_id: made.get(call.call_id)! };
  });
}

describe("a workflow's tool step", () => {
  it("calls the app's own tool through the tools core: checked, audited, one result, nothing sent to an agent", async () => {
    const data = createMemoryStoreData();
    const { server, d } = await onlineDevice({ data, install: PLANNER, extra: { appStorage: createMemoryAppStorageHost() } });
    try {
      const port = d.runtime.appPort("planner");
      const made = new Map<string, string>();
      const seen = plannerHandler(d.runtime, made);
      // Its tool runs in an instance of a conversation, as an agent's call does.
      await expect(port.startWorkflow("add-item", { title: "Buy milk" })).rejects.toMatchObject({ code: "invalid_state" });

      const run = await port.startWorkflow("add-item", { title: "Buy milk" }, { conversation_id: "s-1" });
      await until(() => port.getWorkflowRun(run.run_id).status !== "running", 5_000, "the run's end");
      expect(port.getWorkflowRun(run.run_id)).toMatchObject({ status: "completed", output: { item_id: "item-1" } });
      expect(seen.map((c) => [c.method, c.conversation_id, c.arguments])).toEqual([["plan.add", "s-1", { title: "Buy milk" }]]);
      expect((await port.storage().get("items", "item-1"))?.value).toEqual({ title: "Buy milk" });
      // The call is audited as any call is; no lineup.tool.* envelope went to the agent's session.
      const audit = (await auditOf(data)).filter((a) => a.subject === seen[0]!.call_id);
      expect(audit.map((a) => a.type)).toEqual(["tool.call.accepted", "tool.call.result"]);
      expect(server.applied.filter((w) => w.method === "agentSession/envelope/send").map((w) => JSON.stringify(w.params))).not.toContainEqual(expect.stringContaining("lineup.tool."));

      // Arguments the tool's input schema refuses: the step fails with the core's code, and the handler never sees it.
      const bad = await port.startWorkflow("add-item", { title: 5 }, { conversation_id: "s-1" });
      await until(() => port.getWorkflowRun(bad.run_id).status !== "running", 5_000, "the refused run");
      expect(port.getWorkflowRun(bad.run_id)).toMatchObject({ status: "failed", error: { code: "invalid_arguments", step_id: "add" } });
      expect(seen).toHaveLength(1);
      // The handler's result goes through the output-schema check: a wrong shape ends the call, and the step, with an error.
      const off = port.registerToolHandler({ call: (call) => void port.reportTool(call.call_id, { kind: "result", result: { nope: true } }).catch(() => undefined), cancel() {} });
      const wrong = await port.startWorkflow("add-item", { title: "Shape" }, { conversation_id: "s-1" });
      await until(() => port.getWorkflowRun(wrong.run_id).status !== "running", 5_000, "the run with a wrong result");
      expect(port.getWorkflowRun(wrong.run_id)).toMatchObject({ status: "failed", error: { code: "invalid_result", step_id: "add" } });
      off();
    } finally {
      await d.stop();
    }
  });

  it("calls another app's tool that its step names: listed in the install review, checked against that app, handled by it", async () => {
    const data = createMemoryStoreData();
    const { d } = await onlineDevice({ data, install: CLIPPER, extra: { appStorage: createMemoryAppStorageHost() } });
    try {
      // The install review says what the workflow makes another app do.
      expect(projectManifest(CLIPPER).workflows).toEqual([expect.objectContaining({ id: "clip", other_app_tools: ["planner/plan.add"] })]);
      const port = d.runtime.appPort("clipper");
      const ended = async (input: JsonValue) => {
        const run = await port.startWorkflow("clip", input, { conversation_id: "s-1" });
        await until(() => port.getWorkflowRun(run.run_id).status !== "running", 5_000, "the run's end");
        return port.getWorkflowRun(run.run_id);
      };
      // The planner is not installed: the step fails with the code an agent's call would get.
      expect(await ended({ title: "Milk" })).toMatchObject({ status: "failed", error: { code: "app_not_installed", step_id: "clip" } });

      await d.runtime.appManager.install(await signedBundle(PLANNER), { approved: true });
      const made = new Map<string, string>();
      const seen = plannerHandler(d.runtime, made);
      // The planner's handler runs the call, with the planner's input schema and output schema checks.
      expect(await ended({ title: "Milk" })).toMatchObject({ status: "completed", output: { item_id: "item-1" } });
      expect(seen.map((c) => [c.method, c.conversation_id, c.arguments])).toEqual([["plan.add", "s-1", { title: "Milk" }]]);
      expect(await ended({ title: 5 })).toMatchObject({ status: "failed", error: { code: "invalid_arguments", step_id: "clip" } });
      expect((await auditOf(data)).filter((a) => a.subject === seen[0]!.call_id).map((a) => a.type)).toEqual(["tool.call.accepted", "tool.call.result"]);

      // The planner disabled: refused as for an agent, and its handler sees nothing more.
      await d.runtime.appManager.disable("planner");
      expect(await ended({ title: "Bread" })).toMatchObject({ status: "failed", error: { code: "app_disabled", step_id: "clip" } });
      expect(seen).toHaveLength(1);
    } finally {
      await d.stop();
    }
  });

  it("launches the app when the tool needs it ready, runs the call once it is, and fails operation_expired when none becomes ready in time", async () => {
    const clock = createFakeClock();
    const { d } = await onlineDevice({ install: PLANNER, extra: { appStorage: createMemoryAppStorageHost(), clock } });
    try {
      const port = d.runtime.appPort("planner");
      const launching = () => d.runtime.instances.snapshot().instances.find((i) => i.app_scope === "planner" && i.status === "launching");
      // Nothing of the planner runs: the call launches an instance in the run's conversation and waits for it.
      const first = await port.startWorkflow("show", {}, { conversation_id: "s-1" });
      await until(() => launching() !== undefined, 5_000, "the planner's launch");
      const instance = launching()!;
      expect(instance.conversation_id).toBe("s-1");
      const seen = serve(d.runtime, "planner", () => ({ shown: true }), instance.instance_id);
      await d.runtime.instances.ready(instance.instance_id);
      await until(() => port.getWorkflowRun(first.run_id).status !== "running", 5_000, "the call after the launch");
      expect(port.getWorkflowRun(first.run_id)).toMatchObject({ status: "completed" });
      expect(seen.map((c) => c.instance_id)).toEqual([instance.instance_id]);
      await d.runtime.instances.failed(instance.instance_id, "closed in the test");

      // An instance that never becomes ready (a host with no surface): the tool's time runs out.
      const second = await port.startWorkflow("show", {}, { conversation_id: "s-1" });
      await until(() => launching() !== undefined, 5_000, "the second launch");
      clock.advance(5_001);
      await until(() => port.getWorkflowRun(second.run_id).status !== "running", 5_000, "the expired call");
      expect(port.getWorkflowRun(second.run_id)).toMatchObject({ status: "failed", error: { code: "operation_expired", step_id: "show" } });
    } finally {
      await d.stop();
    }
  });

  it("ends the call when its run is cancelled: the handler hears the cancel, and a late result is refused", async () => {
    const data = createMemoryStoreData();
    const { d } = await onlineDevice({ data, install: PLANNER, extra: { appStorage: createMemoryAppStorageHost() } });
    try {
      const port = d.runtime.appPort("planner");
      const calls: string[] = [];
      const cancels: string[] = [];
      port.registerToolHandler({ call: (call) => void calls.push(call.call_id), cancel: (callId) => void cancels.push(callId) });
      const run = await port.startWorkflow("add-item", { title: "Slow" }, { conversation_id: "s-1" });
      await until(() => calls.length === 1, 5_000, "the delivered call");
      expect((await port.controlWorkflow(run.run_id, { op: "cancel", reason: "not now" })).status).toBe("cancelled");
      await until(() => cancels.length === 1, 5_000, "the handler's cancel");
      expect(cancels).toEqual(calls);
      await expect(port.reportTool(calls[0]!, { kind: "result", result: { item_id: "late" } })).rejects.toMatchObject({ code: "call_not_active" });
      expect((await auditOf(data)).filter((a) => a.subject === calls[0]).map((a) => `${a.type}${a.code === undefined ? "" : `:${a.code}`}`)).toEqual(["tool.call.accepted", "tool.call.error:request_cancelled"]);
      expect(port.getWorkflowRun(run.run_id).status).toBe("cancelled");
    } finally {
      await d.stop();
    }
  });

  it("killed at every commit, resumes with the same call: the tool's handler makes one item, and the run ends with it (RELIABILITY W1)", { timeout: 120_000 }, async () => {
    const bundle = await signedBundle(PLANNER);
    let replays = 0;
    for (let crashAt = 1; crashAt < 60; crashAt++) {
      const { kill, doomed, restart } = await crashPoint(bundle, crashAt);

      // What the planner made, by call_id: its own state, which outlives the Runtime's process.
      const made = new Map<string, string>();
      const deliveries: string[] = [];
      let runId: string | undefined;
      try {
        const first = await doomed();
        if (first !== undefined) {
          const seen = plannerHandler(first.runtime, made);
          await within(first.runtime.whenOnline(), 1_000);
          const port = first.runtime.appPort("planner");
          runId = (await within(port.startWorkflow("add-item", { title: "Buy milk" }, { conversation_id: "s-1", idempotency_key: "milk" })))?.run_id;
          for (let i = 0; i < 200 && !kill.dead() && (runId === undefined || port.getWorkflowRun(runId).status !== "completed"); i++) await new Promise((r) => setTimeout(r, 5));
          deliveries.push(...seen.map((c) => c.call_id));
        }
      } catch {
        // The kill.
      }
      const finishedWithoutKill = !kill.dead();
      const second = await restart();
      try {
        const seen = plannerHandler(second.runtime, made);
        await second.runtime.whenOnline();
        const again = second.runtime.appPort("planner");
        const run = await again.startWorkflow("add-item", { title: "Buy milk" }, { conversation_id: "s-1", idempotency_key: "milk" });
        if (runId !== undefined) expect(run.run_id).toBe(runId);
        await until(() => again.getWorkflowRun(run.run_id).status !== "running", 5_000, "the run's end").catch(() => undefined);
        const done = again.getWorkflowRun(run.run_id);
        expect({ crashAt, status: done.status, error: done.error }).toEqual({ crashAt, status: "completed", error: undefined });
        deliveries.push(...seen.map((c) => c.call_id));
        // One call however often the step ran; the planner made one item, and the run and the storage hold it.
        expect({ crashAt, calls: [...made.keys()].length, items: [...made.values()] }).toEqual({ crashAt, calls: 1, items: ["item-1"] });
        expect(done.output).toEqual({ item_id: "item-1" });
        expect((await again.storage().list("items")).map((r) => r.key)).toEqual(["item-1"]);
        if (deliveries.length > 1) replays += 1;
        if (process.env["WF_DEBUG"]) console.log("crashAt", crashAt, "deliveries", deliveries.length, "dead", kill.dead());
      } finally {
        await second.stop();
      }
      if (finishedWithoutKill) break;
    }
    // Some kills fell after the call was delivered and before its step's outcome: the call was delivered again, and was the same call.
    expect(replays).toBeGreaterThan(0);
  });
});
