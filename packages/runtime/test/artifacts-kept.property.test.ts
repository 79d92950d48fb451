/**
 * The device's kept copies of a conversation's artifacts, model-checked: random shares by the agent,
 * whole reads (which keep what the device does not hold), capped reads (which keep nothing) and restarts,
 * against a bound (a capped read that covers the whole file is a whole read). After every step the Runtime says of each artifact that its bytes are on the device
 * exactly when the model keeps it: the first kept are let go first, what is kept never exceeds the bound
 * (and survives a restart), one larger than the bound is never kept, and every artifact reads back its
 * own bytes.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStoreData, FakeAppServer, startDevice, until, type Device } from "./helpers/runtime-harness.js";
import { soakSized, timeLimitFor } from "../../../test/support/soak.js";

const RUNS = soakSized(40, 300);
const BOUND = 48;

type Step = { readonly kind: "share"; readonly size: number } | { readonly kind: "read"; readonly pick: number; readonly capped: boolean } | { readonly kind: "restart" };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("share" as const), size: fc.oneof(fc.integer({ min: 8, max: 30 }), fc.integer({ min: 1, max: 60 })) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("read" as const), pick: fc.oneof(fc.constant(0), fc.nat(3), fc.nat()), capped: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: "restart" as const }) },
);

const bytesOf = (n: number, size: number): Uint8Array => Uint8Array.from({ length: size }, (_, i) => (n * 31 + i) % 251);

const devices: Device[] = [];
afterEach(async () => {
  for (const d of devices.splice(0)) await d.stop();
});

async function online(server: FakeAppServer, data: ReturnType<typeof createMemoryStoreData>, run: string): Promise<Device> {
  const d = await startDevice(server, data, { run, subscribe: false, extra: { keptArtifactBytes: BOUND } });
  devices.push(d);
  await d.runtime.whenOnline();
  await until(() => d.chat.view().conversations.some((c) => c.conversation_id === "s-1" && c.status === "live"), 3_000, "the conversation live");
  return d;
}

describe("kept artifacts (model-based)", () => {
  it(`what is on the device is what the model keeps, within the bound of ${BOUND} bytes, across restarts (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 20 }), async (steps) => {
        for (const d of devices.splice(0)) await d.stop();
        const server = new FakeAppServer();
        server.createSession({ session_id: "s-1", agent_id: "agent-1" });
        const data = createMemoryStoreData();
        let runs = 0;
        let d = await online(server, data, `r${runs}`);
        const shared: { id: string; size: number }[] = [];
        let kept: { id: string; size: number }[] = [];
        for (const s of steps) {
          if (s.kind === "share") {
            const n = shared.length + 1;
            server.agentArtifact("s-1", { artifact_id: `art-${n}`, name: `f${n}.bin`, mime_type: "application/octet-stream", bytes: bytesOf(n, s.size) });
            shared.push({ id: `art-${n}`, size: s.size });
            await expect.poll(async () => (await d.chat.listArtifacts({ conversation_id: "s-1" })).length).toBe(shared.length);
          } else if (s.kind === "read") {
            if (shared.length === 0) continue;
            // Counted from the newest: reads reach files not kept yet, so the bound is met often.
            const target = shared[shared.length - 1 - (s.pick % shared.length)]!;
            const n = Number(target.id.slice(4));
            const read = await d.chat.readArtifact(target.id, { conversation_id: "s-1", ...(s.capped ? { maxBytes: 1 } : {}) });
            expect(read.bytes).toEqual(bytesOf(n, target.size).subarray(0, s.capped ? 1 : target.size));
            // The model: a whole read (a capped one that covers the file is whole too) of what is not kept keeps
            // it, if it fits at all, letting the first kept go.
            const whole = !s.capped || target.size <= 1;
            if (whole && target.size <= BOUND && !kept.some((k) => k.id === target.id)) {
              kept.push(target);
              while (kept.reduce((sum, k) => sum + k.size, 0) > BOUND) kept = kept.slice(1);
            }
          } else {
            await d.stop();
            devices.splice(devices.indexOf(d), 1);
            runs += 1;
            d = await online(server, data, `r${runs}`);
          }
          const expected = shared.map((a) => `${a.id}:${kept.some((k) => k.id === a.id) ? "here" : "server"}`);
          await expect.poll(async () => (await d.chat.listArtifacts({ conversation_id: "s-1" })).map((a) => `${a.artifact.artifact_id}:${a.on_device ? "here" : "server"}`), { timeout: 2_000 }).toEqual(expected);
          const usage = (await d.runtime.settings.storageUsage()).find((row) => row.app_scope === "runtime")?.bytes ?? 0;
          expect(usage).toBe(kept.reduce((sum, k) => sum + k.size, 0));
          expect(usage).toBeLessThanOrEqual(BOUND);
        }
      }),
      {
        numRuns: RUNS,
        seed: 0xa57,
        // Three files that do not all fit, read in turn, then the first again: the first kept is let go first.
        examples: [
          [
            [
              { kind: "share", size: 20 },
              { kind: "share", size: 20 },
              { kind: "share", size: 20 },
              { kind: "read", pick: 0, capped: false },
              { kind: "read", pick: 1, capped: false },
              { kind: "read", pick: 2, capped: false },
              { kind: "restart" },
              { kind: "read", pick: 0, capped: false },
            ],
          ],
        ],
      },
    );
  }, timeLimitFor(RUNS, 40, 120_000));
});
