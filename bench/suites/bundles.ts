/**
 * bundles: verify a 5 MB signed bundle (structure, signature, every file's SHA-256, manifest)
 * beside one plain `crypto.subtle.digest("SHA-256")` of the same bytes, in alternating rounds.
 * Target ≤ 1.5× the time (PERFORMANCE.md). Reported twice: without the archive's own SHA-256 (what
 * the Runtime's install and every load do), and with it (`archiveDigest`, what `lineup verify` prints),
 * a second full pass over the bytes, beside two plain digests.
 *
 * The bundle is shaped like an app's build output: an HTML page, a manifest, eight JavaScript and
 * CSS chunks (~0.6 MB of text) and twenty-four images and sounds (~4.4 MB, incompressible),
 * packed with the defaults (every entry stored; docs/bundle.md §6 says why). The same content
 * packed with `compression: "deflate"` is measured too and reported beside the first, not as a
 * target: inflating JavaScript costs several times what hashing it does.
 */
import { availableParallelism, loadavg } from "node:os";
import { generatePublisherKey, packBundle, signBundle, verifyBundle, type TrustedKey } from "@lineup/runtime";
import { machine, pairedAsync, type BenchResult, type SuiteResult } from "../lib.js";
import { noise } from "../../test/support/noise.js";

/** JavaScript-like text with a realistic compression ratio (~3.5× with deflate). */
function script(length: number, seed: number): Uint8Array {
  const words = ["const", "let", "function", "return", "await", "async", "export", "import", "from", "props", "state", "value", "render", "update", "event", "handler", "=>", "{", "}", "(", ")", ";", "if", "else", "null", "true", "false"];
  const bytes = noise(length, seed);
  let text = "";
  for (let i = 0; text.length < length; i++) {
    const b = bytes[i % bytes.length]!;
    text += b < 40 ? `x${(b * 7919 + i) % 100_000}` : words[b % words.length]!;
    text += b % 11 === 0 ? "\n" : " ";
  }
  return new TextEncoder().encode(text.slice(0, length));
}

function appFiles(): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  files.set("index.html", new TextEncoder().encode('<!doctype html><html><head><meta charset="utf-8"><script type="module" src="assets/index.js"></script></head><body></body></html>\n'));
  for (let i = 0; i < 8; i++) files.set(`assets/chunk-${i}.${i < 6 ? "js" : "css"}`, script(75_000, 100 + i));
  for (let i = 0; i < 24; i++) files.set(`media/${i < 16 ? `image-${i}.webp` : `sound-${i}.ogg`}`, noise(183_000, 1_000 + i));
  return files;
}

const manifest = {
  format: "lineup.app.v1",
  app_scope: "bench-board",
  version: "1.0.0",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "surface.state.v1"] },
  entrypoints: [{ id: "main", kind: "primary", path: "index.html" }],
};

async function signed(compression: "store" | "deflate", privateKey: Uint8Array): Promise<Uint8Array> {
  const packed = await packBundle({ manifest, files: appFiles(), compression });
  if (!packed.ok) throw new Error(`pack: ${packed.error.message}`);
  const result = await signBundle(packed.value, privateKey);
  if (!result.ok) throw new Error(`sign: ${result.error.message}`);
  return result.value;
}

const ITERATIONS = 12;

async function timeRound(fn: () => Promise<void>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < ITERATIONS; i++) await fn();
  return (ITERATIONS * 1000) / (performance.now() - start);
}

/** `passes` plain SHA-256 digests of `bytes`, one after the other: the floor of a verification that must hash every byte that many times. */
async function digests(bytes: Uint8Array, passes: number): Promise<void> {
  for (let i = 0; i < passes; i++) await globalThis.crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
}

async function measure(bytes: Uint8Array, trustedKeys: readonly TrustedKey[], archiveDigest: boolean, rounds: number) {
  // With the archive digest, every byte is hashed twice by definition (the archive, then each file).
  const passes = archiveDigest ? 2 : 1;
  const verify = () => verifyBundle(bytes, { trustedKeys, archiveDigest });
  const check = await verify();
  if (!check.ok) throw new Error(`bench bundle does not verify: ${check.error.code} ${check.error.message}`);
  const paired = await pairedAsync(
    () =>
      timeRound(async () => {
        const result = await verify();
        if (!result.ok) throw new Error(result.error.message);
      }),
    () => timeRound(() => digests(bytes, passes)),
    rounds,
  );
  // CPU time of the whole process (main thread and WebCrypto's threads): the work done, which a
  // busy machine does not distort the way it distorts wall time.
  const cpu = async (fn: () => Promise<unknown>) => {
    const start = process.cpuUsage();
    for (let i = 0; i < 40; i++) await fn();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 40 / 1000;
  };
  const oursCpu = await cpu(verify);
  const baselineCpu = await cpu(() => digests(bytes, passes));
  // Rates → times: the per-round time ratio is the inverse of the per-round rate ratio.
  return { oursMs: 1000 / paired.ours, baselineMs: 1000 / paired.baseline, ratio: 1 / paired.ratio, rounds: paired.rounds, cpuRatio: oursCpu / baselineCpu };
}

export async function run(): Promise<SuiteResult> {
  const key = await generatePublisherKey();
  const trustedKeys = [key.trustedKey];
  const stored = await signed("store", key.privateKey);
  const deflated = await signed("deflate", key.privateKey);
  const files = appFiles().size + 1;
  const common = { baseline: "webcrypto_sha256_same_bytes", target_ratio: 1.5, higher_is_better: false, bytes: stored.length, files, cpus: availableParallelism() };
  const report = (metric: string, m: Awaited<ReturnType<typeof measure>>, notes: string, extra: Record<string, unknown> = {}): BenchResult => ({
    metric,
    unit: "ms",
    value: Number(m.oursMs.toFixed(3)),
    baseline_value: Number(m.baselineMs.toFixed(3)),
    ratio: Number(m.ratio.toFixed(3)),
    ...common,
    rounds: m.rounds,
    cpu_time_ratio: Number(m.cpuRatio.toFixed(3)),
    load_average: Number(loadavg()[0]!.toFixed(2)),
    notes,
    ...extra,
  });
  // Alternate the two variants too, so both see the same phases of a shared machine.
  const launch = await measure(stored, trustedKeys, false, 15);
  const full = await measure(stored, trustedKeys, true, 15);
  const compressed = await measure(deflated, trustedKeys, false, 9);
  return {
    suite: "bundles",
    machine: machine(),
    results: [
      report(
        "verify_5mb_bundle_hashes_and_signature",
        launch,
        "verifyBundle(bytes, { trustedKeys, archiveDigest: false }): zip structure, Ed25519 signature, SHA-256 of every file, manifest and host checks — what re-verification before a launch does. " +
          "cpu_time_ratio: process CPU time (all threads), ours / baseline: the work done, whatever the machine's load.",
        { deflated_variant: { bytes: deflated.length, ms: Number(compressed.oursMs.toFixed(3)), ratio: Number(compressed.ratio.toFixed(3)), cpu_time_ratio: Number(compressed.cpuRatio.toFixed(3)) } },
      ),
      report(
        "verify_5mb_bundle_with_archive_digest",
        full,
        "verifyBundle with the default archiveDigest: true, which also hashes the whole archive for VerifiedBundle.sha256 — what `lineup verify` prints; the Runtime's install and every load verify with archiveDigest: false (the bundle's identity is the signed file list's SHA-256). " +
          "Every byte is hashed twice by definition, so its floor is two plain digests of the same bytes, one after the other (the first row's floor, twice); the two passes of ours run concurrently on WebCrypto's threads.",
        { baseline: "webcrypto_sha256_same_bytes_twice" },
      ),
    ],
  };
}
