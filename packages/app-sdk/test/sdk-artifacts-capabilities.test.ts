/**
 * `sdk.artifacts` and `sdk.capabilities` through a real Runtime (the testkit): an instance's artifact is
 * stored, read back (whole or capped) and shared with its conversation, where the agent gets it; another
 * app cannot read it. A capability request goes through the Capability Gateway to the host: a declared one
 * the person allows is carried out, an undeclared one is refused before anyone is asked, and a refusal is a
 * result, never a rejection.
 */
import { describe, expect, it } from "vitest";
import type { AppManifest, AppScope, CapabilityName, CapabilityResult, JsonValue } from "@lineup/protocol";
import type { CapabilityConfirmation, CapabilityPrompt, HostInvocation, HostProvider } from "@lineup/runtime";
import { notesManifest, until, useTestRuntime } from "./fixtures.js";

/** `sketch`: an app that may open links (after the person confirms), with an instance per conversation. */
function sketchManifest(): AppManifest {
  return {
    format: "lineup.app.v1",
    app_scope: "sketch" as AppScope,
    version: "1.0.0",
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "capability.request.v1"] },
    entrypoints: [{ id: "main", kind: "primary", default_eligible: true }],
    capabilities: [
      { name: "link.open", purpose: "Open the page a sketch links to." },
      { name: "file.save", purpose: "Save a sketch where you choose." },
    ],
  };
}

/** A host that can open links and save files, asks the person (who answers `answer`) and records what it did. */
class LinkHost implements HostProvider {
  readonly prompts: CapabilityPrompt[] = [];
  readonly done: JsonValue[] = [];
  answer: CapabilityConfirmation = "allow";
  supports = (capability: CapabilityName) => capability === "link.open" || capability === "file.save";
  systemPermission = () => "not_applicable" as const;
  requestSystemPermission = () => Promise.resolve("granted" as const);
  confirm(prompt: CapabilityPrompt): Promise<CapabilityConfirmation> {
    this.prompts.push(prompt);
    return Promise.resolve(this.answer);
  }
  invoke(invocation: HostInvocation): Promise<CapabilityResult> {
    this.done.push(invocation.input);
    return Promise.resolve({ status: "completed", value: { opened: true } });
  }
}

const host = new LinkHost();
const start = useTestRuntime({ apps: [{ manifest: sketchManifest() }, { manifest: notesManifest() }], runtime: { host } });

async function sketchInConversation(k: Awaited<ReturnType<typeof start>>) {
  const launched = await k.runtime.appManager.launch({ app_scope: "sketch", conversation_id: "s-1" });
  return k.sdk("sketch", { instance_id: launched.instance_id });
}

describe("sdk.artifacts through the Runtime", () => {
  it("an instance's artifact is stored, read back whole or capped, and shared with its conversation", async () => {
    const k = await start();
    const sdk = await sketchInConversation(k);
    const bytes = new TextEncoder().encode("<svg>a sketch</svg>");
    const artifact = await sdk.artifacts.create({ name: "sketch.svg", mime_type: "image/svg+xml", bytes });
    expect(artifact).toMatchObject({ name: "sketch.svg", mime_type: "image/svg+xml", size: bytes.byteLength });

    const whole = await sdk.artifacts.read(artifact.artifact_id);
    expect(new TextDecoder().decode(whole.bytes)).toBe("<svg>a sketch</svg>");
    expect(whole.truncated).toBe(false);
    const capped = await sdk.artifacts.read(artifact.artifact_id, { max_bytes: 4 });
    expect(new TextDecoder().decode(capped.bytes)).toBe("<svg");
    expect(capped.truncated).toBe(true);

    // Shared with the instance's conversation: it reaches the server for the agent.
    await until(() => k.server.artifactBytes("s-1", artifact.artifact_id) !== undefined);
    expect(new TextDecoder().decode(k.server.artifactBytes("s-1", artifact.artifact_id))).toBe("<svg>a sketch</svg>");
    // Another app, outside that conversation, cannot read it.
    await expect(k.sdk("notes").artifacts.read(artifact.artifact_id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("lists the conversation's artifacts with the agent's, tells what one is, and saves one through the host's file.save", async () => {
    const k = await start();
    const sdk = await sketchInConversation(k);
    const mine = await sdk.artifacts.create({ name: "sketch.svg", mime_type: "image/svg+xml", bytes: new TextEncoder().encode("<svg/>") });
    k.server.agentArtifact("s-1", { artifact_id: "art-agent-brief", name: "brief.txt", mime_type: "text/plain", bytes: new TextEncoder().encode("draw a cat") });
    await expect.poll(async () => (await sdk.artifacts.list()).length).toBe(2);
    const listed = await sdk.artifacts.list();
    expect(listed.map((a) => [a.artifact.name, a.origin, a.on_device])).toEqual(
      expect.arrayContaining([
        ["sketch.svg", "app", true],
        ["brief.txt", "agent", false],
      ]),
    );
    expect(await sdk.artifacts.get("art-agent-brief")).toMatchObject({ artifact: { name: "brief.txt", size: 10 }, origin: "agent", conversation_id: "s-1" });
    // The app's own, wherever shared; the notes app (unbound, made none) has none.
    expect((await sdk.artifacts.list({ own: true })).map((a) => a.artifact.artifact_id)).toEqual([mine.artifact_id]);
    expect(await k.sdk("notes").artifacts.list()).toEqual([]);

    host.done.length = 0;
    expect(await sdk.artifacts.save("art-agent-brief")).toEqual({ status: "completed", value: { opened: true } });
    expect(host.done).toEqual([{ name: "brief.txt", mime_type: "text/plain", data: btoa("draw a cat") }]);
    // Read whole for the save, the agent's file is now on the device.
    await expect.poll(async () => (await sdk.artifacts.get("art-agent-brief")).on_device).toBe(true);
    // The notes app did not declare file.save: refused, as a result, before the host is asked.
    expect(await k.sdk("notes").artifacts.save(mine.artifact_id, { conversation_id: "s-1" })).toMatchObject({ status: "permission_denied", code: "capability_not_declared" });
    expect(host.done).toHaveLength(1);
  });
});

describe("sdk.capabilities through the Capability Gateway", () => {
  it("a declared capability the person allows is carried out; an undeclared one is refused before anyone is asked", async () => {
    const k = await start();
    const sdk = await sketchInConversation(k);
    host.prompts.length = 0;
    host.done.length = 0;
    host.answer = "allow";
    const opened = await sdk.capabilities.request({ capability: "link.open", purpose: "Open the page you asked for.", input: { url: "https://example.com/s/1" } });
    expect(opened).toEqual({ status: "completed", value: { opened: true } });
    expect(host.prompts).toHaveLength(1);
    expect(host.prompts[0]).toMatchObject({ app_scope: "sketch", capability: "link.open" });
    expect(host.done).toEqual([{ url: "https://example.com/s/1" }]);

    const undeclared = await sdk.capabilities.request({ capability: "microphone.record", purpose: "Listen in." });
    expect(undeclared).toMatchObject({ status: "permission_denied", code: "capability_not_declared" });
    expect(host.prompts).toHaveLength(1);
  });

  it("sdk.app.granted_permissions lists what the person allowed for good, as it is now (spec 6.1)", async () => {
    const k = await start();
    const sdk = await sketchInConversation(k);
    expect(sdk.app.granted_permissions).toEqual([]);
    await k.runtime.settings.setGrant("sketch", "link.open", "granted");
    expect(sdk.app.granted_permissions).toEqual(["link.open"]);
    expect(sdk.app.app_scope).toBe("sketch");
    await k.runtime.settings.setGrant("sketch", "file.save", "denied");
    expect(sdk.app.granted_permissions).toEqual(["link.open"]);
    await k.runtime.settings.setGrant("sketch", "link.open", "ask");
    expect(sdk.app.granted_permissions).toEqual([]);
  });

  it("the person's no comes back as permission_denied, a result and not a rejection, and is not asked again", async () => {
    const k = await start();
    const sdk = await sketchInConversation(k);
    host.prompts.length = 0;
    host.answer = "deny";
    const denied = await sdk.capabilities.request({ capability: "link.open", purpose: "Open it.", input: { url: "https://example.com/" } });
    expect(denied).toMatchObject({ status: "permission_denied" });
    expect(await sdk.capabilities.request({ capability: "link.open", purpose: "Open it again.", input: { url: "https://example.com/" } })).toMatchObject({ status: "permission_denied" });
    expect(host.prompts).toHaveLength(1);
  });
});
