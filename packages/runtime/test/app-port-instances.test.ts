/**
 * `AppPort.instance`, `AppPort.subscribeInstance` and `AppPort.subscribeInstanceChanges` (spec 6.1): an
 * app reads and follows its OWN instances through its port — each committed state in order, then
 * `undefined` once the instance has left the Runtime; or each lifecycle step exactly — and another app's
 * instance is `not_found`, exactly like one that does not exist.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AppInstance } from "../src/index.js";
import { pomodoroManifest, whiteboardManifest } from "./apps-fixtures.js";
import { onlineDevice, signedBundle } from "./helpers/apps-harness.js";
import type { Device } from "./helpers/runtime-harness.js";

let device: Device | undefined;
afterEach(async () => {
  await device?.stop();
  device = undefined;
});

/** A device online with the whiteboard and pomodoro installed. */
async function twoApps(): Promise<Device> {
  const { d } = await onlineDevice({ install: whiteboardManifest() });
  device = d;
  expect((await d.runtime.appManager.install(await signedBundle(pomodoroManifest()), { approved: true })).status).toBe("succeeded");
  return d;
}

describe("AppPort instance lifecycle", () => {
  it("follows the app's own instance through each commit, then undefined once it has left; the listener is then dropped", async () => {
    const d = await twoApps();
    const { runtime } = d;
    const board = runtime.appPort("whiteboard");
    const { instance_id } = await board.launchApp({ app_scope: "whiteboard", conversation_id: "s-1" });
    expect(board.instance(instance_id)).toMatchObject({ instance_id, app_scope: "whiteboard", conversation_id: "s-1", status: "launching" });

    const seen: (AppInstance["status"] | "gone")[] = [];
    board.subscribeInstance(instance_id, (instance) => seen.push(instance?.status ?? "gone"));
    await runtime.instances.ready(instance_id);
    // Another app comes to the front: the whiteboard goes behind it.
    const timer = await runtime.appManager.launch({ app_scope: "pomodoro", conversation_id: "s-1" });
    await runtime.instances.ready(timer.instance_id);
    await runtime.instances.focus(instance_id);
    await board.closeInstance(instance_id);
    await runtime.instances.closed(instance_id);
    expect(seen).toEqual(["active", "backgrounded", "active", "closing", "gone"]);
    expect(() => board.instance(instance_id)).toThrow(expect.objectContaining({ code: "not_found" }));

    // The listener was dropped with the instance: later commits do not reach it.
    await runtime.instances.focus(timer.instance_id);
    expect(seen).toHaveLength(5);
  });

  it("reports every step of the app's own instance exactly, as from → to pairs in commit order, and drops the listener after closed", async () => {
    const d = await twoApps();
    const { runtime } = d;
    const board = runtime.appPort("whiteboard");
    const { instance_id } = await board.launchApp({ app_scope: "whiteboard", conversation_id: "s-1" });
    const steps: string[] = [];
    board.subscribeInstanceChanges(instance_id, ({ from, to }) => steps.push(`${from}→${to}`));
    await runtime.instances.ready(instance_id);
    const timer = await runtime.appManager.launch({ app_scope: "pomodoro", conversation_id: "s-1" });
    await runtime.instances.ready(timer.instance_id);
    await runtime.instances.focus(instance_id);
    await runtime.instances.background(instance_id);
    await board.closeInstance(instance_id);
    await runtime.instances.closed(instance_id);
    expect(steps).toEqual(["launching→active", "active→backgrounded", "backgrounded→active", "active→backgrounded", "backgrounded→closing", "closing→closed"]);
    await runtime.instances.focus(timer.instance_id);
    expect(steps).toHaveLength(6);
    expect(() => runtime.appPort("pomodoro").subscribeInstanceChanges(timer.instance_id, () => undefined)).not.toThrow();
    expect(() => runtime.appPort("whiteboard").subscribeInstanceChanges(timer.instance_id, () => undefined)).toThrow(expect.objectContaining({ code: "not_found" }));
  });

  it("an app cannot read or follow another app's instance: not_found, as for an id that does not exist", async () => {
    const d = await twoApps();
    const { runtime } = d;
    const { instance_id } = await runtime.appPort("whiteboard").launchApp({ app_scope: "whiteboard", conversation_id: "s-1" });
    const pomodoro = runtime.appPort("pomodoro");
    for (const id of [instance_id, "inst-nope"]) {
      expect(() => pomodoro.instance(id)).toThrow(expect.objectContaining({ code: "not_found" }));
      expect(() => pomodoro.subscribeInstance(id, () => undefined)).toThrow(expect.objectContaining({ code: "not_found" }));
    }
    // The chat port (a core app) does not see it either.
    expect(() => runtime.appPort("chat").instance(instance_id)).toThrow(expect.objectContaining({ code: "not_found" }));
  });
});

describe("AppPort navigation (spec 6.2): list, open, focus, close, the default app", () => {
  it("an app focuses and closes its own instances and those it opened, and no other (not_owner)", async () => {
    const d = await twoApps();
    const { runtime } = d;
    const board = runtime.appPort("whiteboard");
    const timerPort = runtime.appPort("pomodoro");
    const own = await board.launchApp({ app_scope: "whiteboard", conversation_id: "s-1" });
    await runtime.instances.ready(own.instance_id);
    // The whiteboard opens the pomodoro from its instance: it is the opener, its instance the parent.
    const opened = await board.launchApp({ app_scope: "pomodoro", conversation_id: "s-1", from_instance_id: own.instance_id });
    expect(runtime.instances.snapshot().instances.find((i) => i.instance_id === opened.instance_id)).toMatchObject({ opened_by: "whiteboard", parent_instance_id: own.instance_id });
    await runtime.instances.ready(opened.instance_id);
    // The pomodoro did not open the whiteboard: it can neither focus nor close it.
    await expect(timerPort.focusInstance(own.instance_id)).rejects.toMatchObject({ code: "not_owner" });
    await expect(timerPort.closeInstance(own.instance_id)).rejects.toMatchObject({ code: "not_owner" });
    await expect(board.focusInstance("inst-nope")).rejects.toMatchObject({ code: "not_found" });
    // Nor can an app claim another app's instance as the one asking.
    await expect(timerPort.launchApp({ app_scope: "pomodoro", conversation_id: "s-2", from_instance_id: own.instance_id })).rejects.toMatchObject({ code: "not_found" });
    // The whiteboard brings itself back, then closes what it opened.
    await board.focusInstance(own.instance_id);
    expect(runtime.instances.snapshot().focus_stack.at(-1)).toBe(own.instance_id);
    await board.closeInstance(opened.instance_id);
    expect(runtime.instances.snapshot().instances.find((i) => i.instance_id === opened.instance_id)?.status ?? "gone").toMatch(/closing|closed|gone/);
    await board.closeInstance(own.instance_id);
    expect(runtime.instances.snapshot().instances.find((i) => i.instance_id === own.instance_id)?.status ?? "gone").toMatch(/closing|closed|gone/);
  });

  it("lists the enabled apps with their entrypoints and the default, and opens the default app", async () => {
    const d = await twoApps();
    const { runtime } = d;
    const board = runtime.appPort("whiteboard");
    const apps = board.listAvailableApps();
    expect(apps.map((a) => a.app_scope).sort()).toEqual(["app-registry", "chat", "pomodoro", "settings", "whiteboard"]);
    expect(apps.find((a) => a.app_scope === "whiteboard")).toMatchObject({ kind: "installed", version: "1.0.0", is_default: false, entrypoints: [{ id: "canvas", kind: "primary" }] });
    expect(apps.find((a) => a.is_default)?.app_scope).toBe("chat");
    expect((await runtime.appManager.disable("pomodoro")).status).toBe("succeeded");
    expect(board.listAvailableApps().some((a) => a.app_scope === "pomodoro")).toBe(false);

    const opened = await board.openDefaultApp();
    const chat = runtime.instances.snapshot().instances.find((i) => i.instance_id === opened.instance_id);
    expect(chat).toMatchObject({ app_scope: "chat" });
    expect(runtime.instances.snapshot().focus_stack.at(-1)).toBe(opened.instance_id);
  });
});
