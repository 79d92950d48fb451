import { LineUpError } from "@lineup/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectSurface, type SessionDataSnapshot, type Surface } from "../src/index.js";
import { eventually, FakeHost, tick } from "./fake-host.js";

let host: FakeHost;
let surface: Surface;
beforeEach(async () => {
  host = new FakeHost();
  const connecting = connectSurface({ window: host.window, applyTheme: false });
  host.handover();
  surface = await connecting;
});
afterEach(() => {
  surface.disconnect();
  host.close();
});

describe("session data (spec 6.3)", () => {
  it("empty is { data: null, revision: 0 }", async () => {
    expect(await surface.sessionData.get()).toEqual({ data: null, revision: 0 });
  });

  it("replace returns the new revision and a stale expected_revision is refused with revision_conflict", async () => {
    expect(await surface.sessionData.replace({ data: { n: 1 }, expected_revision: 0 })).toEqual({ revision: 1 });
    const stale = surface.sessionData.replace({ data: { n: 2 }, expected_revision: 0 });
    await expect(stale).rejects.toBeInstanceOf(LineUpError);
    await expect(stale).rejects.toMatchObject({ code: "revision_conflict" });
    expect(await surface.sessionData.get()).toEqual({ data: { n: 1 }, revision: 1 });
  });

  it("the first callback is the full snapshot at registration, then strictly increasing revisions", async () => {
    host.session = { data: { title: "existing" }, revision: 4 };
    const seen: SessionDataSnapshot[] = [];
    const off = surface.sessionData.subscribe((s) => seen.push(s));
    await eventually(() => expect(seen).toEqual([{ data: { title: "existing" }, revision: 4 }]));
    await surface.sessionData.replace({ data: { title: "a" }, expected_revision: 4 });
    await surface.sessionData.replace({ data: { title: "b" }, expected_revision: 5 });
    await eventually(() => expect(seen.map((s) => s.revision)).toEqual([4, 5, 6]));
    expect(seen[2]!.data).toEqual({ title: "b" });
    off();
    await eventually(() => expect(host.subscribed).toBe(false));
  });

  it("ignores duplicate and old revisions", async () => {
    host.autoPushChanges = false;
    host.session = { data: { v: 2 }, revision: 2 };
    const seen: number[] = [];
    surface.sessionData.subscribe((s) => seen.push(s.revision));
    await eventually(() => expect(seen).toEqual([2]));
    host.event("session_data.changed", { data: { v: 3 }, revision: 3 });
    host.event("session_data.changed", { data: { v: 3 }, revision: 3 });
    host.event("session_data.changed", { data: { v: 1 }, revision: 1 });
    host.event("session_data.changed", { data: { v: 4 }, revision: 4 });
    await eventually(() => expect(seen).toEqual([2, 3, 4]));
    await tick(10);
    expect(seen).toEqual([2, 3, 4]);
    expect(host.requestsOf("session_data.get")).toHaveLength(0);
  });

  it("on a revision jump re-gets and re-subscribes, delivering the newest snapshot once", async () => {
    host.autoPushChanges = false;
    const seen: SessionDataSnapshot[] = [];
    surface.sessionData.subscribe((s) => seen.push(s));
    await eventually(() => expect(seen).toHaveLength(1));
    // Revisions 1 and 2 were written elsewhere and their events lost; 3 arrives.
    host.session = { data: { v: 3 }, revision: 3 };
    host.event("session_data.changed", { data: { v: 3 }, revision: 3 });
    await eventually(() => expect(seen.map((s) => s.revision)).toEqual([0, 3]));
    expect(host.requestsOf("session_data.get")).toHaveLength(1);
    // The subscription is made again beside the re-get; its request may leave just after the snapshot is delivered.
    await eventually(() => expect(host.requestsOf("session_data.subscribe")).toHaveLength(2));
    expect(seen[1]!.data).toEqual({ v: 3 });
    // Live again: the next revision is delivered normally.
    host.session = { data: { v: 4 }, revision: 4 };
    host.event("session_data.changed", { data: { v: 4 }, revision: 4 });
    await eventually(() => expect(seen.map((s) => s.revision)).toEqual([0, 3, 4]));
  });

  it("re-gets after a restore (a bridge reconnect) without losing a write made meanwhile", async () => {
    const seen: number[] = [];
    surface.sessionData.subscribe((s) => seen.push(s.revision));
    await eventually(() => expect(seen).toEqual([0]));
    host.subscribed = false; // the host dropped the subscription while suspended
    host.session = { data: { v: 1 }, revision: 1 };
    host.event("lifecycle", { state: "suspend" });
    host.event("lifecycle", { state: "restore" });
    await eventually(() => expect(seen).toEqual([0, 1]));
    // The re-get answers first; the new subscription (whose first frame is the whole snapshot again) follows it.
    await eventually(() => expect(host.subscribed).toBe(true));
  });

  it("a listener added later gets the current snapshot first; one bridge subscription serves both", async () => {
    host.session = { data: { v: 7 }, revision: 7 };
    const first: number[] = [];
    const second: number[] = [];
    surface.sessionData.subscribe((s) => first.push(s.revision));
    await eventually(() => expect(first).toEqual([7]));
    surface.sessionData.subscribe((s) => second.push(s.revision));
    expect(second).toEqual([7]);
    await surface.sessionData.replace({ data: { v: 8 }, expected_revision: 7 });
    await eventually(() => expect([first, second]).toEqual([[7, 8], [7, 8]]));
    expect(host.requestsOf("session_data.subscribe")).toHaveLength(1);
  });

  it("a throwing listener does not stop the others", async () => {
    const seen: number[] = [];
    surface.sessionData.subscribe(() => {
      throw new Error("boom");
    });
    surface.sessionData.subscribe((s) => seen.push(s.revision));
    await eventually(() => expect(seen).toEqual([0]));
  });
});
