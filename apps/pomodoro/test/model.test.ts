/**
 * The pomodoro's display model and its store over session data (in memory, with the Runtime's
 * revision rules): what the screen shows at each moment of a session, and what is kept for a reload.
 */
import { LocalSessionData } from "@lineup/surface-sdk";
import { describe, expect, it } from "vitest";
import { formatClock, parseStored, phaseAt, progressAt, remainingMs, startSession, stopSession, storedForm } from "../src/model.js";
import { provideTimer } from "../src/service.js";
import { TimerStore } from "../src/store.js";
import { tools } from "../src/tools.js";
import { checkToolArguments } from "../../../test/support/tool-arguments.js";

const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);
const MIN = 60_000;

describe("the focus session model", () => {
  it("counts down from the start to the end, then is done", () => {
    const s = startSession({ call_id: "c1", minutes: 25, title: "  Write the report  " }, T0);
    expect(s).toEqual({ call_id: "c1", title: "Write the report", minutes: 25, started_at: T0, ends_at: T0 + 25 * MIN });
    expect([phaseAt(s, T0), formatClock(remainingMs(s, T0)), progressAt(s, T0)]).toEqual(["running", "25:00", 0]);
    expect([phaseAt(s, T0 + 10 * MIN + 500), formatClock(remainingMs(s, T0 + 10 * MIN + 500))]).toEqual(["running", "15:00"]);
    expect(progressAt(s, T0 + 12.5 * MIN)).toBe(0.5);
    expect([phaseAt(s, T0 + 25 * MIN), formatClock(remainingMs(s, T0 + 25 * MIN)), progressAt(s, T0 + 30 * MIN)]).toEqual(["done", "00:00", 1]);
    expect(phaseAt(null, T0)).toBe("idle");
  });

  it("a stop keeps the time that was left; a stop after the end changes nothing", () => {
    const s = startSession({ call_id: "c1", minutes: 25 }, T0);
    expect(s.title).toBe("Focus");
    const stopped = stopSession(s, T0 + 5 * MIN);
    expect([phaseAt(stopped, T0 + 20 * MIN), formatClock(remainingMs(stopped, T0 + 60 * MIN)), progressAt(stopped, T0 + 60 * MIN)]).toEqual(["stopped", "20:00", 0.2]);
    expect(stopSession(s, T0 + 26 * MIN)).toBe(s);
    expect(stopSession(stopped, T0 + 6 * MIN)).toBe(stopped);
  });

  it("minutes are kept within 1 … 120 and the title within 80 characters", () => {
    expect(startSession({ call_id: "c", minutes: 0 }, T0).minutes).toBe(1);
    expect(startSession({ call_id: "c", minutes: 500 }, T0).minutes).toBe(120);
    expect(startSession({ call_id: "c", minutes: 5, title: "x".repeat(200) }, T0).title).toHaveLength(80);
  });

  it("stores and reads back a session; anything else in session data reads as none", () => {
    const s = stopSession(startSession({ call_id: "c1", minutes: 5 }, T0), T0 + MIN);
    expect(parseStored(JSON.parse(JSON.stringify(storedForm(s))))).toEqual(s);
    expect(parseStored(null)).toBeNull();
    expect(parseStored({ session: { call_id: "c1" } })).toBeNull();
    expect(parseStored({ session: { ...storedForm(s)["session"] as object, stopped_at: "soon" } })).toBeNull();
    expect(parseStored({ other: 1 })).toBeNull();
  });
});

describe("the timer store", () => {
  const setup = (interrupt: (reason: string) => Promise<void> = async () => undefined) => {
    let now = T0;
    const data = new LocalSessionData();
    const store = new TimerStore({ sessionData: data, interrupt, now: () => now });
    return { data, store, advance: (ms: number) => (now += ms) };
  };

  it("a started session is shown at once and stored; a second store on the same data (a reload) shows it too", async () => {
    const { data, store, advance } = setup();
    await store.load();
    const seen: (string | undefined)[] = [];
    store.onChange(() => seen.push(store.session?.title));
    store.start({ call_id: "c1", minutes: 25, title: "Report" });
    expect(store.session).toMatchObject({ title: "Report", ends_at: T0 + 25 * MIN });
    await Promise.resolve();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(data.current.revision).toBe(1);
    advance(MIN);
    const reloaded = new TimerStore({ sessionData: data, interrupt: async () => undefined, now: () => T0 + MIN });
    await reloaded.load();
    expect(reloaded.session).toEqual(store.session);
    expect(seen[0]).toBe("Report");
  });

  it("stop asks LineUp to interrupt first, then shows and stores the stop; a failed interrupt changes nothing", async () => {
    const reasons: string[] = [];
    const { data, store, advance } = setup(async (reason) => {
      reasons.push(reason);
    });
    await store.load();
    store.start({ call_id: "c1", minutes: 25 });
    advance(5 * MIN);
    await store.stop();
    expect(reasons).toEqual(["stopped by the user in the app"]);
    expect(store.session?.stopped_at).toBe(T0 + 5 * MIN);
    expect(parseStored(data.current.data)?.stopped_at).toBe(T0 + 5 * MIN);
    await store.stop();
    expect(reasons).toHaveLength(1);

    const failing = setup(async () => {
      throw Object.assign(new Error("the Runtime is stopped"), { code: "invalid_state" });
    });
    await failing.store.load();
    failing.store.start({ call_id: "c2", minutes: 10 });
    await expect(failing.store.stop()).rejects.toThrow("the Runtime is stopped");
    expect(failing.store.session?.stopped_at).toBeUndefined();
  });

  it("the agent's pomodoro.interrupt stops the running timer with its reason, and says whether one was running", async () => {
    const reasons: string[] = [];
    const { store } = setup(async (reason) => void reasons.push(reason));
    await store.load();
    provideTimer(store);
    try {
      const interrupt = tools.tools.get("pomodoro.interrupt")!;
      expect(interrupt.descriptor).toMatchObject({ call_model: "command", activation_requirement: "activation_not_required" });
      expect(checkToolArguments(tools, "pomodoro.interrupt", { reason: "x".repeat(201) }).ok).toBe(false);
      const ctx = { call_id: "i1", method: "pomodoro.interrupt", signal: new AbortController().signal, progress: async () => undefined };
      expect(await interrupt.handler({}, ctx)).toEqual({ interrupted: false });
      store.start({ call_id: "c1", minutes: 25 });
      expect(await interrupt.handler({ reason: "the meeting started" }, ctx)).toEqual({ interrupted: true });
      expect(reasons).toEqual(["the meeting started"]);
      expect(store.session?.stopped_at).toBe(T0);
      expect(await interrupt.handler({}, ctx)).toEqual({ interrupted: false });
    } finally {
      provideTimer(undefined);
    }
  });

  it("a change written elsewhere (another device) arrives through the subscription", async () => {
    const { data, store } = setup();
    await store.load();
    const other = new TimerStore({ sessionData: data, interrupt: async () => undefined, now: () => T0 });
    await other.load();
    other.start({ call_id: "c9", minutes: 15, title: "Elsewhere" });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(store.session).toMatchObject({ call_id: "c9", title: "Elsewhere" });
  });
});
