/**
 * `sdk.sessionData` through a real Runtime (the testkit): the empty snapshot, replace with
 * expected_revision, refusals as LineUpErrors with the Runtime's code and detail, subscriptions
 * (full snapshot first, then strictly increasing revisions), and isolation between app sessions
 * and between apps — the session comes from the SDK's context, never from an argument.
 */
import { describe, expect, it } from "vitest";
import { LineUpError, type JsonObject } from "@lineup/protocol";
import type { SessionDataSnapshot } from "../src/index.js";
import { notesManifest, timerManifest, useTestRuntime } from "./fixtures.js";

/** notes and timer installed; launched instances report ready as a host would. */
const start = useTestRuntime({ apps: [{ manifest: notesManifest() }, { manifest: timerManifest() }] });

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

describe("sdk.sessionData through the Runtime", () => {
  it("starts empty at revision 0, then replace moves it one revision at a time", async () => {
    const k = await start();
    const sdk = k.sdk("notes");
    expect(sdk.app.app_session_id).toBe("main");
    expect(await sdk.sessionData.get()).toEqual({ data: null, revision: 0 });
    expect(await sdk.sessionData.replace({ title: "Groceries", items: ["milk"] }, 0)).toEqual({ revision: 1 });
    expect(await sdk.sessionData.replace({ data: { title: "Groceries", items: ["milk", "eggs"] }, expected_revision: 1 })).toEqual({ revision: 2 });
    expect(await sdk.sessionData.get()).toEqual({ data: { title: "Groceries", items: ["milk", "eggs"] }, revision: 2 });
  });

  it("refuses a stale revision with revision_conflict and the current revision; the newer data stays", async () => {
    const k = await start();
    const sdk = k.sdk("notes");
    await sdk.sessionData.replace({ v: 1 }, 0);
    await sdk.sessionData.replace({ v: 2 }, 1);
    const stale = sdk.sessionData.replace({ v: "old surface" }, 1);
    await expect(stale).rejects.toBeInstanceOf(LineUpError);
    await expect(stale).rejects.toMatchObject({ code: "revision_conflict", data: { current_revision: 2 } });
    expect(await sdk.sessionData.get()).toEqual({ data: { v: 2 }, revision: 2 });
  });

  it("passes on quota and shape refusals with their code and detail", async () => {
    const k = await start();
    const sdk = k.sdk("notes");
    await expect(sdk.sessionData.replace({ big: "x".repeat(300 * 1024) }, 0)).rejects.toMatchObject({ code: "quota_exceeded", data: { unit: "bytes", limit: 256 * 1024 } });
    await expect(sdk.sessionData.replace(["not", "an", "object"] as unknown as JsonObject, 0)).rejects.toMatchObject({ code: "invalid_params", path: "/data" });
    expect(await sdk.sessionData.get()).toEqual({ data: null, revision: 0 });
  });

  it("a subscriber gets the full snapshot first, then each newer revision once", async () => {
    const k = await start();
    const writer = k.sdk("notes");
    await writer.sessionData.replace({ n: 1 }, 0);
    const seen: SessionDataSnapshot[] = [];
    const off = k.sdk("notes").sessionData.subscribe((snapshot) => seen.push(snapshot));
    await writer.sessionData.replace({ n: 2 }, 1);
    await writer.sessionData.replace({ n: 3 }, 2);
    await settle();
    expect(seen).toEqual([
      { data: { n: 1 }, revision: 1 },
      { data: { n: 2 }, revision: 2 },
      { data: { n: 3 }, revision: 3 },
    ]);
    off();
    await writer.sessionData.replace({ n: 4 }, 3);
    await settle();
    expect(seen).toHaveLength(3);
  });

  it("a new subscription on an empty session starts with { data: null, revision: 0 }", async () => {
    const k = await start();
    const seen: SessionDataSnapshot[] = [];
    k.sdk("timer").sessionData.subscribe((snapshot) => seen.push(snapshot));
    await settle();
    expect(seen).toEqual([{ data: null, revision: 0 }]);
  });

  it("keeps app sessions of one app apart, and apps apart", async () => {
    const k = await start();
    const notesA = k.sdk("notes", { app_session_id: "a" });
    const notesB = k.sdk("notes", { app_session_id: "b" });
    const notesMain = k.sdk("notes");
    const timerMain = k.sdk("timer");
    const seenB: SessionDataSnapshot[] = [];
    notesB.sessionData.subscribe((snapshot) => seenB.push(snapshot));

    expect(await notesA.sessionData.replace({ who: "notes/a" }, 0)).toEqual({ revision: 1 });
    expect(await timerMain.sessionData.replace({ who: "timer/main" }, 0)).toEqual({ revision: 1 });
    await settle();

    expect(await notesA.sessionData.get()).toEqual({ data: { who: "notes/a" }, revision: 1 });
    expect(await notesB.sessionData.get()).toEqual({ data: null, revision: 0 });
    expect(await notesMain.sessionData.get()).toEqual({ data: null, revision: 0 });
    expect(await timerMain.sessionData.get()).toEqual({ data: { who: "timer/main" }, revision: 1 });
    expect(seenB).toEqual([{ data: null, revision: 0 }]);
    // Same app and session id through another SDK: the same data.
    expect(await k.sdk("notes", { app_session_id: "a" }).sessionData.get()).toEqual({ data: { who: "notes/a" }, revision: 1 });
  });

  it("an SDK whose app was removed is refused with session_context_invalid", async () => {
    const k = await start();
    const sdk = k.sdk("timer");
    await sdk.sessionData.replace({ keep: false }, 0);
    expect((await k.runtime.appManager.remove("timer", { confirmed: true })).status).toBe("succeeded");
    await expect(sdk.sessionData.get()).rejects.toMatchObject({ code: "session_context_invalid" });
    await expect(sdk.sessionData.replace({ keep: true }, 1)).rejects.toMatchObject({ code: "session_context_invalid" });
    expect(() => sdk.sessionData.subscribe(() => undefined)).toThrow(expect.objectContaining({ code: "session_context_invalid" }));
  });
});
