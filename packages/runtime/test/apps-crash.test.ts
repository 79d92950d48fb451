/**
 * RELIABILITY P2, install crash atomicity, on the Node host: a child process (fixtures/apps-crash-child.ts)
 * runs a Runtime on SQLite that cycles the whiteboard app through install v1 → update v2 → update v3 →
 * a refused downgrade → an update waiting for approval that is refused → remove; the parent SIGKILLs it
 * at seeded random moments and restarts it each time. After every kill, on the store as the crash left
 * it (before the restart):
 *
 * - `PRAGMA integrity_check` is ok and the audit chain verifies;
 * - the `bundles` collection holds exactly the digests the `apps` records refer to (retained versions
 *   and a waiting update): `lost` (referenced, missing) and `orphans` (stored, unreferenced: a staged
 *   leftover) must both be 0;
 * - the stored state is one the child had fully reached: the one before the operation in flight, or
 *   the one after it — never a mix.
 *
 * and after every restart, from the child's own report: the active version is that same state, the
 * entry page of a launched instance loads from the stored bytes and re-verifies as that version (its
 * manifest and its page agree), and `verifyAudit()` is ok.
 *
 * `npm test`: 30 kills (seeded). `LINEUP_SOAK=1`: 300.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppManifest } from "@lineup/protocol";
import { packBundle, RUNTIME_COLLECTIONS, RUNTIME_SCHEMA, signBundle, verifyAuditChain, type ManagedApp, type PublisherKey } from "../src/index.js";
import { openSqliteStore } from "../src/node/index.js";
import { whiteboardManifest, whiteboardWithClipboard } from "./apps-fixtures.js";
import { publisherKey } from "./helpers/apps-harness.js";
import { seededRandom } from "./store-test-helpers.js";
import { noise } from "../../../test/support/noise.js";
import { slack, soakSized, timeLimitFor } from "../../../test/support/soak.js";

const KILLS = soakSized(30, 300);
const APP = "whiteboard";
const CHILD = fileURLToPath(new URL("./fixtures/apps-crash-child.ts", import.meta.url));

const work = mkdtempSync(join(tmpdir(), "lineup-apps-crash-"));
// Inside the repository (git-ignored), so the bundle resolves better-sqlite3 and ws from node_modules.
const childBundle = fileURLToPath(new URL(`../test-output/apps-crash-child-${process.pid}.mjs`, import.meta.url));
let bundles: { v1: string; v2: string; v3: string; v4: string };
let key: PublisherKey;

/** A signed bundle whose entry page names its version, with a 256 KB asset. */
async function writeBundle(manifest: AppManifest, file: string): Promise<string> {
  const files = new Map<string, Uint8Array>([
    ["index.html", new TextEncoder().encode(`<!doctype html><title>board</title><main data-version="${manifest.version}">hello</main>`)],
    ["media/board.bin", noise(256 * 1024, manifest.version.length * 7919 + manifest.version.charCodeAt(0))],
  ]);
  const packed = await packBundle({ manifest, files });
  if (!packed.ok) throw new Error(`pack failed: ${packed.error.code} ${packed.error.message}`);
  const signed = await signBundle(packed.value, key.privateKey);
  if (!signed.ok) throw new Error(`sign failed: ${signed.error.code} ${signed.error.message}`);
  const path = join(work, file);
  writeFileSync(path, signed.value);
  return path;
}

beforeAll(async () => {
  // One bundle, so each child starts in ~100 ms instead of compiling TypeScript on every start.
  mkdirSync(fileURLToPath(new URL("../test-output/", import.meta.url)), { recursive: true });
  await build({ entryPoints: [CHILD], bundle: true, platform: "node", format: "esm", target: "node20", conditions: ["source"], external: ["better-sqlite3", "ws"], outfile: childBundle, logLevel: "silent" });
  key = await publisherKey();
  bundles = {
    v1: await writeBundle(whiteboardManifest("1.0.0"), "v1.zip"),
    v2: await writeBundle(whiteboardManifest("2.0.0"), "v2.zip"),
    v3: await writeBundle(whiteboardManifest("3.0.0"), "v3.zip"),
    v4: await writeBundle(whiteboardWithClipboard("4.0.0"), "v4.zip"),
  };
}, slack(60_000));

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(childBundle, { force: true });
});

interface Check {
  readonly state: string;
  readonly active: string | null;
  readonly pending: string | null;
  readonly entry: { ok: true; version: string; html_version: string | null } | { ok: false; code: string; message: string } | null;
  readonly audit: boolean;
}

interface ChildRun {
  readonly check: Check;
  /** The states the store may hold now: the last settled one, or either side of the operation in flight. */
  readonly allowed: readonly string[];
  readonly inFlight: boolean;
  readonly operations: number;
  readonly cycleMs?: number;
}

/** Starts the child; once it has reported its restart check, kills it after `killAfterMs` (or lets it finish its cycles). */
async function runChild(dataDir: string, killAfterMs: number | undefined, cycles?: number): Promise<ChildRun> {
  const config = { dataDir, bundles, trustedKey: key.trustedKey, ...(cycles === undefined ? {} : { cycles }) };
  const child = spawn(process.execPath, [childBundle, JSON.stringify(config)], { cwd: fileURLToPath(new URL("../../..", import.meta.url)), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let timer: NodeJS.Timeout | undefined;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    if (killAfterMs !== undefined && timer === undefined && stdout.includes("\nS ")) timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const guard = setTimeout(() => child.kill("SIGKILL"), slack(20_000));
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  clearTimeout(timer);
  clearTimeout(guard);
  const lines = stdout.split("\n").slice(0, -1);
  const killed = child.signalCode === "SIGKILL";
  if ((killAfterMs === undefined && code !== 0) || (killAfterMs !== undefined && (!killed || timer === undefined))) {
    throw new Error(`child ended unexpectedly (code ${code}, signal ${child.signalCode}):\n${stdout.slice(-2000)}\n${stderr.slice(-4000)}`);
  }
  const checkLine = lines.find((l) => l.startsWith("CHECK "));
  if (checkLine === undefined) throw new Error(`child reported no check:\n${stderr.slice(-4000)}`);
  const check = JSON.parse(checkLine.slice(6)) as Check;
  let allowed = [check.state];
  let inFlight = false;
  let operations = 0;
  for (const l of lines) {
    const [tag, , , b, c] = l.split(" ");
    if (tag === "S") {
      // S <n> <step> <from> <to>
      allowed = [b!, c!];
      inFlight = true;
      operations += 1;
    } else if (tag === "E") {
      // E <n> <status> <state>
      allowed = [b!];
      inFlight = false;
    }
  }
  const done = lines.find((l) => l.startsWith("DONE "));
  return { check, allowed: [...new Set(allowed)], inFlight, operations, ...(done === undefined ? {} : { cycleMs: Number(done.slice(5)) }) };
}

interface StoreView {
  readonly state: string;
  readonly lost: number;
  readonly orphans: number;
  readonly integrity: boolean;
  readonly audit: boolean;
}

/** What the crash left on disk, read directly from the store (no Runtime started). */
async function inspectStore(dataDir: string): Promise<StoreView> {
  const store = await openSqliteStore({ path: join(dataDir, "runtime.db"), schema: RUNTIME_SCHEMA });
  try {
    const referenced = new Set<string>();
    let state = "none";
    for (const { key: scope, value } of await store.range(RUNTIME_COLLECTIONS.apps)) {
      const app = value as unknown as ManagedApp;
      for (const version of app.retained) if (version.bundle_digest !== null) referenced.add(version.bundle_digest);
      if (app.pending_update !== undefined && app.pending_update.candidate.bundle_digest !== null) referenced.add(app.pending_update.candidate.bundle_digest);
      if (scope === APP) state = `${app.record.installed_version}${app.pending_update === undefined ? "" : `+${app.pending_update.candidate.version}`}`;
    }
    const stored = new Set((await store.range(RUNTIME_COLLECTIONS.bundles)).map((e) => e.key));
    return {
      state,
      lost: [...referenced].filter((d) => !stored.has(d)).length,
      orphans: [...stored].filter((d) => !referenced.has(d)).length,
      integrity: await store.integrityCheck(),
      audit: (await verifyAuditChain(store)).ok,
    };
  } finally {
    await store.close();
  }
}

interface Tally {
  kills: number;
  inFlightKills: number;
  operations: number;
  lost: number;
  orphans: number;
  mixed: number;
  entryFailures: number;
  auditFailures: number;
  integrityFailures: number;
  states: Record<string, number>;
}

describe("P2: install crash atomicity (Node host, SQLite FULL, SIGKILL)", () => {
  it("the store check sees a missing bundle and a staged leftover", async () => {
    const dataDir = join(work, "control");
    mkdirSync(dataDir);
    const store = await openSqliteStore({ path: join(dataDir, "runtime.db"), schema: RUNTIME_SCHEMA });
    const retained = (version: string, digest: string) => ({ version, manifest: whiteboardManifest(version), bundle_digest: digest, installed_at: "2026-11-30T08:00:00.000Z" });
    await store.commit([
      { op: "put", collection: RUNTIME_COLLECTIONS.apps, key: APP, value: { record: { app_scope: APP, installed_version: "2.0.0" }, retained: [retained("1.0.0", "sha256-one"), retained("2.0.0", "sha256-two")] } },
      { op: "put", collection: RUNTIME_COLLECTIONS.bundles, key: "sha256-two", value: new Uint8Array([1]) },
      { op: "put", collection: RUNTIME_COLLECTIONS.bundles, key: "sha256-staged", value: new Uint8Array([2]) },
    ]);
    await store.close();
    expect(await inspectStore(dataDir)).toEqual({ state: "2.0.0", lost: 1, orphans: 1, integrity: true, audit: true });
  });

  it(`after ${KILLS} kills: one fully installed version active, bundles == referenced digests, entry re-verifies, audit ok`, async () => {
    const dataDir = join(work, "device");
    // A calibration run: how long one full cycle of operations takes here.
    const calibration = await runChild(join(work, "calibration"), undefined, 2);
    const cycleMs = Math.max(20, calibration.cycleMs ?? 200);
    const random = seededRandom(0x9e2);
    const tally: Tally = { kills: 0, inFlightKills: 0, operations: 0, lost: 0, orphans: 0, mixed: 0, entryFailures: 0, auditFailures: 0, integrityFailures: 0, states: {} };
    let expected: readonly string[] = ["none"];
    for (let i = 0; i < KILLS; i++) {
      const run = await runChild(dataDir, Math.floor(random() * cycleMs * 1.2));
      // The restart's own check: what the previous kill left, as the restarted Runtime sees it.
      if (!expected.includes(run.check.state)) tally.mixed += 1;
      if (run.check.active !== null) {
        const entry = run.check.entry;
        if (entry === null || !entry.ok || entry.version !== run.check.active || entry.html_version !== run.check.active) tally.entryFailures += 1;
      }
      if (!run.check.audit) tally.auditFailures += 1;
      tally.kills += 1;
      tally.operations += run.operations;
      if (run.inFlight) tally.inFlightKills += 1;

      // The store as the kill left it.
      const view = await inspectStore(dataDir);
      tally.lost += view.lost;
      tally.orphans += view.orphans;
      if (!view.integrity) tally.integrityFailures += 1;
      if (!view.audit) tally.auditFailures += 1;
      if (!run.allowed.includes(view.state)) tally.mixed += 1;
      tally.states[view.state] = (tally.states[view.state] ?? 0) + 1;
      expected = [view.state];
    }
    // The last kill's restart, checked too.
    const last = await runChild(dataDir, 0);
    if (!expected.includes(last.check.state)) tally.mixed += 1;
    if (last.check.active !== null && (last.check.entry === null || !last.check.entry.ok || last.check.entry.version !== last.check.active)) tally.entryFailures += 1;

    console.log(`P2 install crash atomicity: ${tally.kills} kills (${tally.inFlightKills} mid-operation), ${tally.operations} operations, cycle ${cycleMs} ms:`, JSON.stringify(tally));
    expect(tally).toMatchObject({ kills: KILLS, lost: 0, orphans: 0, mixed: 0, entryFailures: 0, auditFailures: 0, integrityFailures: 0 });
    // The kills landed across the cycle, not only in one state.
    expect(Object.keys(tally.states).length).toBeGreaterThanOrEqual(3);
  }, timeLimitFor(KILLS, 30, 120_000));
});
