import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createLogger, logDiagnostic } from "@lineup/protocol";
import { connectSurface, defineAgentTools, type SurfaceDiagnostic } from "../src/index.js";
import { eventually, FakeHost, NONCE, tick } from "./fake-host.js";

/**
 * RELIABILITY B4 on the app's side: whatever arrives on the port — wrong types, extra keys, unknown
 * methods and events, bad versions, near-valid frames with our nonce — nothing throws out of the
 * SDK, no listener or handler sees it, and the bridge keeps working.
 */
describe("bridge fuzz (app side)", () => {
  it("ignores or refuses arbitrary frames without side effects", async () => {
    const host = new FakeHost();
    let handlerRuns = 0;
    const tools = defineAgentTools({
      "fuzz.tool": {
        input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"], additionalProperties: false },
        output_schema: {},
        handler: () => {
          handlerRuns++;
          return null;
        },
      },
    });
    const diagnostics: SurfaceDiagnostic[] = [];
    const connecting = connectSurface({ window: host.window, applyTheme: false, tools, diagnostics: (d) => diagnostics.push(d) });
    host.handover();
    const surface = await connecting;
    const seen: string[] = [];
    surface.sessionData.subscribe((s) => seen.push(`session ${s.revision}`));
    await eventually(() => expect(seen).toEqual(["session 0"]));
    surface.onThemeChange(() => seen.push("theme"));
    surface.onLocaleChange(() => seen.push("locale"));
    surface.lifecycle.on("background", () => seen.push("background"));

    const json = fc.jsonValue({ maxDepth: 3 });
    const nearFrame = fc.record(
      {
        bridge: fc.oneof(fc.constant("lineup.surface"), fc.string()),
        v: fc.oneof(fc.constant(1), fc.integer()),
        nonce: fc.oneof(fc.constant(NONCE), fc.string()),
        kind: fc.oneof(fc.constantFrom("request", "response", "event"), fc.string()),
        id: fc.oneof(fc.nat(), fc.integer(), fc.string()),
        method: fc.oneof(fc.constantFrom("tool.invoke", "session_data.get", "nope"), fc.string()),
        name: fc.oneof(fc.constantFrom("theme.changed", "locale.changed", "lifecycle", "session_data.changed", "host.snapshot"), fc.string()),
        params: json,
        result: json,
        data: json,
        extra: json,
      },
      { requiredKeys: [] },
    );
    const values = fc.sample(fc.oneof(json, nearFrame), { numRuns: 3_000, seed: 4242 });
    for (const value of values) host.send(value);
    await tick(50);
    // Still alive and exact: a valid call after the storm works.
    expect(await host.invoke({ call_id: "ok-1", method: "fuzz.tool", arguments: { n: 1 } })).toEqual({ outcome: "completed", result: null });
    expect(handlerRuns).toBe(1);
    expect(seen).toEqual(["session 0"]);
    expect(diagnostics.filter((d) => d.kind === "listener_threw")).toEqual([]);
    expect(diagnostics.filter((d) => d.kind === "frame_dropped").length).toBeGreaterThan(2_500);
    // Each is the one diagnostic shape, written as one log line with its kind and one-line message.
    const lines: string[] = [];
    const logger = createLogger({ write: (line) => lines.push(line) });
    for (const diagnostic of diagnostics) logDiagnostic(logger, "warn", diagnostic);
    expect(lines.map((line) => JSON.parse(line) as { kind: string; msg: string })).toEqual(diagnostics.map((d) => expect.objectContaining({ kind: d.kind, msg: d.message }) as unknown));
    expect(diagnostics.every((d) => d.message.length > 0)).toBe(true);
    surface.disconnect();
    host.close();
  }, 60_000);
});
