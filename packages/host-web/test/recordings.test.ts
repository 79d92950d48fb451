// The shell's store of live recordings in Node: a recording is listed from its start until it ends; Stop
// and Discard reach its owner once and take it off the indicator; the elapsed clock as the bar shows it.
import { describe, expect, it } from "vitest";
import { createRecordingStore, elapsedMs, formatElapsed, type LiveRecording } from "../src/host-provider/recordings.js";

const setup = () => {
  let now = 1_000;
  const store = createRecordingStore({ now: () => now });
  const pressed: string[] = [];
  const seen: (readonly LiveRecording[])[] = [];
  store.subscribe((list) => seen.push(list));
  const begin = (request_id: string, max_ms = 60_000) =>
    store.begin({ request_id, app_scope: "voice", app_name: "Voice Notes", max_ms }, { stop: () => pressed.push(`stop ${request_id}`), discard: () => pressed.push(`discard ${request_id}`) });
  return { store, pressed, seen, begin, advance: (ms: number) => (now += ms) };
};

describe("live recordings", () => {
  it("a recording is listed with its app and start time from begin until end", () => {
    const { store, seen, begin, advance } = setup();
    expect(store.list()).toEqual([]);
    const handle = begin("r1");
    expect(store.list()).toEqual([{ request_id: "r1", app_scope: "voice", app_name: "Voice Notes", started_at: 1_000, max_ms: 60_000 }]);
    advance(7_400);
    expect(formatElapsed(elapsedMs(store.list()[0]!, store.now()))).toBe("0:07");
    handle.end();
    handle.end();
    expect(store.list()).toEqual([]);
    expect(seen.map((list) => list.map((r) => r.request_id))).toEqual([["r1"], []]);
  });

  it("Stop reaches the owner once and takes the recording off; a later end or press does nothing", () => {
    const { store, pressed, seen, begin } = setup();
    const handle = begin("r1");
    begin("r2");
    expect(store.stop("r1")).toBe(true);
    expect(store.stop("r1")).toBe(false);
    expect(store.discard("r1")).toBe(false);
    handle.end();
    expect(pressed).toEqual(["stop r1"]);
    expect(store.list().map((r) => r.request_id)).toEqual(["r2"]);
    expect(seen).toHaveLength(3);
  });

  it("Discard reaches the owner once; an unknown or ended recording answers false", () => {
    const { store, pressed, begin } = setup();
    const handle = begin("r1");
    handle.end();
    expect(store.discard("r1")).toBe(false);
    begin("r2");
    expect(store.discard("r2")).toBe(true);
    expect(store.stop("nope")).toBe(false);
    expect(pressed).toEqual(["discard r2"]);
    expect(store.list()).toEqual([]);
  });

  it("a second begin for the same request replaces the first on screen", () => {
    const { store, begin, advance } = setup();
    const first = begin("r1");
    advance(500);
    begin("r1", 5_000);
    expect(store.list()).toMatchObject([{ request_id: "r1", started_at: 1_500, max_ms: 5_000 }]);
    first.end();
    expect(store.list()).toHaveLength(1);
  });

  it("formats the elapsed time like a recorder, and never past the limit", () => {
    expect([0, 999, 1_000, 59_999, 60_000, 605_000, 3_600_000 + 61_000, -5].map(formatElapsed)).toEqual(["0:00", "0:00", "0:01", "0:59", "1:00", "10:05", "1:01:01", "0:00"]);
    const recording: LiveRecording = { request_id: "r", app_scope: "voice", app_name: "Voice Notes", started_at: 100, max_ms: 2_000 };
    expect([elapsedMs(recording, 50), elapsedMs(recording, 1_100), elapsedMs(recording, 9_000)]).toEqual([0, 1_000, 2_000]);
  });
});
