/**
 * Spec 6.1: an installed app reads a view model cut to its scope — the conversations it serves (where it
 * has a live instance) — never the whole Runtime state; a core app (chat) reads everything.
 */
import { afterEach, describe, expect, it } from "vitest";
import { whiteboardManifest } from "./apps-fixtures.js";
import { device, signedBundle } from "./helpers/apps-harness.js";
import { FakeAppServer, until, type Device } from "./helpers/runtime-harness.js";

let devices: Device[] = [];
afterEach(async () => {
  for (const d of devices) await d.stop();
  devices = [];
});

describe("an app's view of the Runtime state", () => {
  it("lists only the conversations the installed app has a live instance in; chat lists them all", async () => {
    const server = new FakeAppServer();
    for (const id of ["s-1", "s-2"]) server.createSession({ session_id: id, agent_id: "agent-1" });
    const d = await device(server);
    devices.push(d);
    await d.runtime.whenOnline();
    expect((await d.runtime.appManager.install(await signedBundle(whiteboardManifest()), { approved: true })).status).toBe("succeeded");
    const ids = (appScope: string) => d.runtime.appPort(appScope).view().conversations.map((c) => c.conversation_id).sort();
    await until(() => ids("chat").length === 2, 5_000, "both conversations followed");
    expect(ids("whiteboard")).toEqual([]);

    const seen: string[][] = [];
    const off = d.runtime.appPort("whiteboard").subscribeView((view) => seen.push(view.conversations.map((c) => c.conversation_id)));
    const instance = await d.runtime.appManager.launch({ app_scope: "whiteboard", conversation_id: "s-2" });
    await d.runtime.instances.ready(instance.instance_id);
    expect(ids("whiteboard")).toEqual(["s-2"]);
    expect(ids("chat")).toEqual(["s-1", "s-2"]);
    expect(seen.at(-1)).toEqual(["s-2"]);

    await d.runtime.appManager.closeInstance(instance.instance_id);
    await d.runtime.instances.closed(instance.instance_id);
    await until(() => ids("whiteboard").length === 0, 5_000, "the conversation gone from the board's view");
    off();
  });
});
