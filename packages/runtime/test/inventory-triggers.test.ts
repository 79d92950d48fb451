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
