import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { connectSurface } from "../src/index.js";
import { eventually, FakeHost, tick } from "./fake-host.js";

/**
 * Spec 6.3 under arbitrary delivery: whatever mix of duplicate, old, in-order and skipped
 * revisions the host pushes, a subscriber sees strictly increasing revisions, starting with the
 * snapshot at registration and ending at the newest revision.
 */
describe("session data revisions (property)", () => {
  it("delivers strictly increasing revisions and converges on the newest", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 5 }), fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 25 }), async (start, pushes) => {
        const host = new FakeHost();
        host.autoPushChanges = false;
        host.session = { data: { r: start }, revision: start };
        const connecting = connectSurface({ window: host.window, applyTheme: false });
        host.handover();
        const surface = await connecting;
        try {
          const seen: number[] = [];
          surface.sessionData.subscribe((s) => {
            expect(s.data).toEqual(s.revision === 0 ? { r: start } : { r: s.revision });
            seen.push(s.revision);
          });
          await eventually(() => expect(seen.length).toBeGreaterThan(0));
          expect(seen[0]).toBe(start);
          let newest = start;
          for (const revision of pushes) {
            // The Runtime's data only moves forward; a push may repeat or lag behind it.
            if (revision > newest) {
              newest = revision;
              host.session = { data: { r: revision }, revision };
            }
            host.event("session_data.changed", { data: { r: revision }, revision });
          }
          await eventually(() => expect(seen.at(-1)).toBe(newest));
          await tick(5);
          for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
          expect(seen.at(-1)).toBe(newest);
        } finally {
          surface.disconnect();
          host.close();
        }
      }),
      { numRuns: 60 },
    );
  }, 60_000);
});
