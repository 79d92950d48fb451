/**
 * Spec 7.2: the inventory gets a new revision, republished to the agent, when what it may see changes at
 * run time — the host loses (or gains) a capability a tool needs, the user's or organisation's policy
 * changes, a publisher is no longer trusted — and a call made against the old revision is refused.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { CapabilityName } from "@lineup/protocol";
import { voiceManifest, whiteboardManifest } from "./apps-fixtures.js";
import { agentInvokes, publishedInventories, publisherKey, signedBundle, toolOutputs } from "./helpers/apps-harness.js";
import { FakeHost } from "./helpers/fake-host.js";
import { createMemoryStoreData, FakeAppServer, startDevice, until, type Device } from "./helpers/runtime-harness.js";

let devices: Device[] = [];
afterEach(async () => {
  for (const d of devices) await d.stop();
  devices = [];
});

async function deviceWithBoardAndVoice(supported: CapabilityName[]) {
  const key = await publisherKey();
  const server = new FakeAppServer();
  server.createSession({ session_id: "s-1", agent_id: "agent-1" });
  const d = await startDevice(server, createMemoryStoreData(), { extra: { trustedPublishers: [key.trustedKey], host: new FakeHost(supported) } });
  devices.push(d);
  await d.runtime.whenOnline();
  for (const manifest of [whiteboardManifest(), voiceManifest()]) expect((await d.runtime.appManager.install(await signedBundle(manifest, key), { approved: true })).status).toBe("succeeded");
  const latest = () => publishedInventories(server).at(-1);
  await until(() => latest()?.methods.includes("voice/voice.request_recording") === true, 5_000, "the voice tool published");
  return { server, d, key, latest };
}

describe("inventory revisions at run time", () => {
  it("another device of the user publishes: this device leaves the agent's calls to it, still stops a call it holds, and publishes above it", async () => {
    const { server, d, latest } = await deviceWithBoardAndVoice(["microphone.record"]);
    const own = latest()!.revision;
    // A call this device accepts and its app has not answered yet.
    const port = d.runtime.appPort("whiteboard");
    const delivered: string[] = [];
    port.registerToolHandler({ call: (call) => void delivered.push(call.call_id), cancel: () => undefined });
    agentInvokes(server, "call-held", "whiteboard", "board.summary", {}, own);
    await until(() => delivered.includes("call-held"), 5_000, "the call delivered");

    // The tablet publishes the session's next revision: from then on the tablet answers the agent's calls.
    server.append("s-1", "inventory.published", { role: "device", id: "tablet" }, { revision: own + 1, tools: [] });
    agentInvokes(server, "call-tablet", "whiteboard", "board.summary", {}, own + 1);
    agentInvokes(server, "call-old", "whiteboard", "board.summary", {}, own);
    server.agentEnvelope("s-1", {
      v: 1,
      id: "cancel-held",
      type: "lineup.tool.cancel",
      timestamp: "2026-11-30T06:00:00.000Z",
      sender: { kind: "agent", id: "agent-1" },
      target: { kind: "app", app_scope: "whiteboard" },
      scope: { app_scope: "whiteboard", conversation_id: "s-1" },
      correlation: { call_id: "call-held" },
      payload: { reason: "no longer needed" },
    });
    // The cancel of the call it holds is this device's to carry out; the two new calls are not its to answer.
    await until(() => toolOutputs(server, "call-held").some(([type]) => type === "lineup.tool.error"), 5_000, "the held call cancelled");
    expect(toolOutputs(server, "call-held").at(-1)).toEqual(["lineup.tool.error", expect.objectContaining({ code: "request_cancelled" })]);
    expect(toolOutputs(server, "call-tablet")).toEqual([]);
    expect(toolOutputs(server, "call-old")).toEqual([]);
    expect(delivered).toEqual(["call-held"]);

    // A change on this device goes above the tablet's revision at once, and its calls are this device's again.
    await d.runtime.setInventoryPolicy({ blocked_tools: ["voice/voice.request_recording"] });
    await until(() => latest()!.revision === own + 2, 5_000, "the next publication above the tablet's");
    agentInvokes(server, "call-mine", "whiteboard", "board.summary", {}, own + 2);
    await until(() => delivered.includes("call-mine"), 5_000, "the call delivered here again");
  });

  it("the host loses the microphone: a new revision without the recording tool; a call on the old revision is refused; back again, a newer one with it", async () => {
    const supported: CapabilityName[] = ["microphone.record"];
    const { server, d, latest } = await deviceWithBoardAndVoice(supported);
    const before = latest()!;

    supported.length = 0;
    await d.runtime.hostCapabilitiesChanged();
    await until(() => latest()!.revision > before.revision, 5_000, "a new revision");
    expect(latest()!.methods).not.toContain("voice/voice.request_recording");
    expect(latest()!.methods).toContain("whiteboard/board.create");

    agentInvokes(server, "call-old", "whiteboard", "board.create", { title: "Plan" }, before.revision);
    await until(() => toolOutputs(server, "call-old").length > 0, 5_000, "the refusal");
    expect(toolOutputs(server, "call-old").at(-1)).toEqual(["lineup.tool.error", expect.objectContaining({ code: "stale_inventory_revision" })]);

    // Asking again with nothing changed publishes nothing.
    const lost = latest()!.revision;
    await d.runtime.hostCapabilitiesChanged();
    supported.push("microphone.record");
    await d.runtime.hostCapabilitiesChanged();
    await until(() => latest()!.revision > lost, 5_000, "the tool back");
    expect(latest()!.revision).toBe(lost + 1);
    expect(latest()!.methods).toContain("voice/voice.request_recording");
  });

  it("a capability that policy blocks is not offered in the inventory, though the host could carry it out", async () => {
    const key = await publisherKey();
    const server = new FakeAppServer();
    server.createSession({ session_id: "s-1", agent_id: "agent-1" });
    const d = await startDevice(server, createMemoryStoreData(), {
      extra: { trustedPublishers: [key.trustedKey], host: new FakeHost(["microphone.record", "notification.show"]), appPolicy: { blocked_capabilities: ["notification.show"] } },
    });
    devices.push(d);
    await d.runtime.whenOnline();
    expect((await d.runtime.appManager.install(await signedBundle(whiteboardManifest(), key), { approved: true })).status).toBe("succeeded");
    const published = () => server.applied.filter((w) => w.method === "inventory/publish" && w.session_id === "s-1").at(-1)?.params;
    await until(() => published() !== undefined, 5_000, "an inventory published");
    expect(published()!["capabilities"]).toEqual(["microphone.record"]);
  });

  it("a policy change that hides an app publishes a new revision without its tools", async () => {
    const { d, latest } = await deviceWithBoardAndVoice(["microphone.record"]);
    const before = latest()!;
    await d.runtime.setInventoryPolicy({ blocked_apps: ["whiteboard"] });
    await until(() => latest()!.revision > before.revision, 5_000, "a new revision");
    expect(latest()!.methods).toEqual(["voice/voice.request_recording"]);
    await d.runtime.setInventoryPolicy({ max_risk: "medium" });
    await until(() => latest()!.revision > before.revision + 1, 5_000, "another revision");
    expect(latest()!.methods.every((m) => m.startsWith("whiteboard/"))).toBe(true);
  });

  it("a publisher no longer trusted: the apps its key signed leave the inventory", async () => {
    const { d, key, latest } = await deviceWithBoardAndVoice(["microphone.record"]);
    const before = latest()!;
    await d.runtime.settings.removeTrustedPublisher(key.trustedKey.key_id);
    await until(() => latest()!.revision > before.revision, 5_000, "a new revision");
    expect(latest()!.methods).toEqual([]);
  });
});
