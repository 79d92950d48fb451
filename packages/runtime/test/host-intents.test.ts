/**
 * `lineup.host.intent`, the third ingress path: the host tells the Runtime its window was hidden or shown,
 * the device slept or woke, the system wants memory back, or a deep link asks to open or close an app. Each
 * is checked (a bad one is a typed error and changes nothing), audited, and carried out as the person would
 * see it: memory pressure suspends the idle background instances now, a hidden window keeps them from being
 * suspended for idleness until it is shown again, an open intent brings the app to the front.
 */
import { afterEach, describe, expect, it } from "vitest";
import { whiteboardManifest } from "./apps-fixtures.js";
import { publisherKey, signedBundle } from "./helpers/apps-harness.js";
import { auditOf, createFakeClock, createMemoryStoreData, FakeAppServer, settle, startDevice, until, type Device } from "./helpers/runtime-harness.js";

let devices: Device[] = [];
afterEach(async () => {
  for (const d of devices) await d.stop();
  devices = [];
});

async function deviceWithBoards(suspendIdleMs?: number) {
  const server = new FakeAppServer();
  server.createSession({ session_id: "s-1", agent_id: "agent-1" });
  const clock = createFakeClock();
  const data = createMemoryStoreData();
  const d = await startDevice(server, data, { clock, extra: { trustedPublishers: [(await publisherKey()).trustedKey], ...(suspendIdleMs === undefined ? {} : { suspendIdleMs }) } });
  devices.push(d);
  await d.runtime.whenOnline();
  await d.runtime.appManager.install(await signedBundle(whiteboardManifest()), { approved: true });
  const open = async (conversation: string) => {
    const instance = await d.runtime.appManager.launch({ app_scope: "whiteboard", conversation_id: conversation });
    await d.runtime.instances.ready(instance.instance_id);
    return instance.instance_id;
  };
  const statusOf = (id: string) => d.runtime.instances.snapshot().instances.find((i) => i.instance_id === id)?.status;
  return { d, data, clock, open, statusOf };
}

describe("host intents", () => {
  it("memory pressure suspends every idle background instance now; the one in front stays", async () => {
    const { d, data, open, statusOf } = await deviceWithBoards();
    const first = await open("c-1");
    const second = await open("c-2");
    const front = await open("c-3");
    expect([statusOf(first), statusOf(second), statusOf(front)]).toEqual(["backgrounded", "backgrounded", "active"]);
    expect(await d.runtime.hostIntent({ intent: "memory_pressure" })).toEqual({ intent: "memory_pressure" });
    expect([statusOf(first), statusOf(second), statusOf(front)]).toEqual(["suspended", "suspended", "active"]);
    expect((await auditOf(data)).some((a) => a.type === "host.intent" && a.subject === "memory_pressure")).toBe(true);
  });

  it("a hidden window pauses suspension for idleness; shown again, what has been idle long enough is suspended", async () => {
    const { d, clock, open, statusOf } = await deviceWithBoards(60_000);
    const idle = await open("c-1");
    await open("c-2");
    await d.runtime.hostIntent({ intent: "window_hidden" });
    clock.advance(120_000);
    await settle();
    expect(statusOf(idle)).toBe("backgrounded");
    await d.runtime.hostIntent({ intent: "window_shown" });
    clock.advance(1);
    await until(() => statusOf(idle) === "suspended", 3_000, "the idle board suspended once the window is shown");
  });

  it("open_app brings the app to the front in the conversation; close_app closes its instances there", async () => {
    const { d, open } = await deviceWithBoards();
    const opened = await d.runtime.hostIntent({ intent: "open_app", app_scope: "whiteboard", conversation_id: "s-1" });
    expect(opened.instance_id).toBeDefined();
    expect(d.runtime.instances.snapshot().instances.find((i) => i.instance_id === opened.instance_id)).toMatchObject({ app_scope: "whiteboard", conversation_id: "s-1" });
    const other = await open("c-2");
    const closed = await d.runtime.hostIntent({ intent: "close_app", app_scope: "whiteboard", conversation_id: "s-1" });
    expect(closed.closed).toEqual([opened.instance_id]);
    const live = d.runtime.instances.snapshot().instances.filter((i) => i.status !== "closing" && i.status !== "closed").map((i) => i.instance_id);
    expect(live).toEqual([other]);
  });

  it("a bad intent is refused with a typed error and changes nothing", async () => {
    const { d, data } = await deviceWithBoards();
    await expect(d.runtime.hostIntent({ intent: "hibernate" })).rejects.toMatchObject({ code: "payload_invalid" });
    await expect(d.runtime.hostIntent({ intent: "open_app" })).rejects.toMatchObject({ code: "invalid_params" });
    await expect(d.runtime.hostIntent({ intent: "open_conversation", conversation_id: "nowhere" })).rejects.toMatchObject({ code: "conversation_unknown" });
    expect((await auditOf(data)).filter((a) => a.type === "host.intent")).toEqual([]);
  });
});
