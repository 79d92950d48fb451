/**
 * The Capability Gateway inside a running Runtime (spec 6.3, RELIABILITY P5): an app's
 * `requestCapability` goes through the loop — declared, enabled, host support, foreground, policy,
 * rate limit, the user's confirmation (asked once; a denial is a Settings entry), the host — and
 * resolves with a closed-set result; every decision is in the audit log before its effect.
 */
import type { AppScope, CapabilityName, CapabilityResult, JsonValue } from "@lineup/protocol";
import { describe, expect, it } from "vitest";
import {
  createMemoryStore,
  manifestFromMcp,
  RUNTIME_COLLECTIONS,
  RUNTIME_SCHEMA,
  type BackendRunners,
  type CapabilityPolicy,
  type MemoryStoreData,
} from "../src/index.js";
import { FakeHost } from "./helpers/fake-host.js";
import { voiceManifest, whiteboardWithClipboard } from "./apps-fixtures.js";
import { publisherKey, signedBundle } from "./helpers/apps-harness.js";
import { createFakeClock, createMemoryStoreData, FakeAppServer, settle, startDevice, until, type Device } from "./helpers/runtime-harness.js";

const MIC: CapabilityName = "microphone.record";
const CLIPBOARD: CapabilityName = "clipboard.write";
const LINK: CapabilityName = "link.open";

interface World {
  readonly d: Device;
  readonly host: FakeHost;
  readonly clock: ReturnType<typeof createFakeClock>;
  readonly data: MemoryStoreData;
  /** The voice app's instance, launched, ready and in front. */
  readonly voice: string;
  ask(appScope: string, capability: string, instanceId?: string, input?: JsonValue): Promise<CapabilityResult>;
}

/** A Runtime with the voice app (microphone.record) and the whiteboard (clipboard.write) installed, voice in front. */
async function world(options: { supported?: readonly CapabilityName[]; policy?: CapabilityPolicy; data?: MemoryStoreData; install?: boolean; backends?: BackendRunners } = {}): Promise<World> {
  const server = new FakeAppServer();
  const clock = createFakeClock();
  const host = new FakeHost(options.supported ?? [MIC, CLIPBOARD]);
  const data = options.data ?? createMemoryStoreData();
  const key = await publisherKey();
  const d = await startDevice(server, data, {
    clock,
    run: options.data === undefined ? "r0" : "r1",
    extra: { trustedPublishers: [key.trustedKey], host, ...(options.policy === undefined ? {} : { capabilityPolicy: options.policy }), ...(options.backends === undefined ? {} : { backends: options.backends }) },
  });
  if (options.install !== false) {
    for (const manifest of [{ ...voiceManifest(), name: "Voice notes" }, whiteboardWithClipboard("1.0.0")]) {
      expect((await d.runtime.appManager.install(await signedBundle(manifest), { approved: true })).status).toBe("succeeded");
    }
  }
  const launched = await d.runtime.appManager.launch({ app_scope: "voice" });
  await d.runtime.instances.ready(launched.instance_id);
  expect(d.runtime.instances.snapshot().focus_stack.at(-1)).toBe(launched.instance_id);
  return {
    d,
    host,
    clock,
    data,
    voice: launched.instance_id,
    ask: (appScope, capability, instanceId, input = { max_seconds: 10 }) =>
      d.runtime.appPort(appScope).requestCapability({ capability, purpose: "record the note the agent asked for", input, ...(instanceId === undefined ? {} : { instance_id: instanceId }) }),
  };
}

const outcome = (r: CapabilityResult): string => (r.status === "completed" ? "completed" : `${r.status}/${r.code}`);

async function auditRecords(data: MemoryStoreData): Promise<{ type: string; subject?: string; code?: string }[]> {
  const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
  const records = await store.range(RUNTIME_COLLECTIONS.audit);
  await store.close();
  return records.map((r) => r.value as { type: string; subject?: string; code?: string });
}

async function auditTypes(data: MemoryStoreData): Promise<string[]> {
  return (await auditRecords(data)).map((r) => r.type);
}

describe("the Capability Gateway in the Runtime", () => {
  it("refuses undeclared, unsupported and background requests before asking anyone or touching the host", async () => {
    const w = await world({ supported: [MIC] });
    // The whiteboard declares clipboard.write only.
    expect(await w.ask("whiteboard", MIC)).toMatchObject({ status: "permission_denied", code: "capability_not_declared" });
    // Declared, but this host has no clipboard.
    expect(await w.ask("whiteboard", CLIPBOARD)).toMatchObject({ status: "unsupported_on_host", code: "unsupported_on_host" });
    // An app cannot speak for another app's instance.
    expect(outcome(await w.ask("whiteboard", CLIPBOARD, w.voice))).toBe("permission_denied/not_owner");
    // The microphone needs the app in front: the user went back to the shell.
    await w.d.runtime.instances.background(w.voice);
    expect(await w.ask("voice", MIC, w.voice)).toMatchObject({ status: "permission_denied", code: "foreground_required" });
    expect(await w.ask("voice", MIC)).toMatchObject({ status: "permission_denied", code: "foreground_required" });
    expect(w.host.prompts).toEqual([]);
    expect(w.host.invocations).toEqual([]);
    await w.d.stop();
    expect(await auditTypes(w.data)).toEqual(expect.arrayContaining(["capability.refused"]));
    expect((await auditTypes(w.data)).filter((t) => t === "capability.refused")).toHaveLength(5);
  });

  it("allowed by the user: the host is invoked once, after the audit, and the grant shows in Settings", async () => {
    const w = await world();
    const result = await w.ask("voice", MIC);
    expect(result).toEqual({ status: "completed", value: { done: MIC } });
    expect(w.host.prompts).toEqual([
      {
        request_id: expect.any(String) as string,
        app_scope: "voice",
        app_name: "Voice notes",
        capability: MIC,
        purpose: "Record the note the agent asked for. — record the note the agent asked for",
        description: expect.stringContaining("microphone") as string,
        risk: "high",
      },
    ]);
    expect(w.host.invocations).toHaveLength(1);
    expect(w.host.invocations[0]).toMatchObject({ app_scope: "voice", capability: MIC, input: { max_seconds: 10 } });
    expect(w.d.runtime.settings.grants()).toMatchObject([{ app_scope: "voice", capability: MIC, decision: "granted" }]);

    // Remembered: the next request is not asked again.
    expect(outcome(await w.ask("voice", MIC))).toBe("completed");
    expect(w.host.prompts).toHaveLength(1);
    expect(w.host.invocations).toHaveLength(2);
    expect(await w.d.runtime.verifyAudit()).toMatchObject({ ok: true });
    await w.d.stop();
    const types = await auditTypes(w.data);
    // Each decision is recorded before its effect: asked, allowed, invoked, result, in that order.
    const first = ["capability.ask_user", "capability.user_granted", "capability.invoke", "capability.result"].map((t) => types.indexOf(t));
    expect(first.every((i) => i >= 0)).toBe(true);
    expect([...first].sort((a, b) => a - b)).toEqual(first);
  });

  it("an MCP Apps view's open-link is its app's link.open: asked, audited, invoked; refused when its manifest does not declare it", async () => {
    const VIEW = "ui://maps/view.html";
    // Its MCP server is never started here: only its view's requests are.
    const w = await world({ supported: [MIC, CLIPBOARD, LINK], backends: { "mcp-stdio": () => { throw new Error("not started in this test"); } } });
    // As `lineup app from-mcp` makes it (a server with a view declares link.open), and a hand-written one without it.
    const generated = manifestFromMcp({ app_scope: "maps" as AppScope, version: "1.0.0", name: "Maps", entry: "server/index.js", tools: [{ name: "show", inputSchema: { type: "object" }, _meta: { ui: { resourceUri: VIEW } } }] });
    expect(generated.capabilities).toEqual([{ name: LINK, purpose: expect.any(String) as string }]);
    const { capabilities: _declared, ...undeclared } = { ...generated, app_scope: "bare" as AppScope };
    for (const manifest of [generated, undeclared]) {
      expect(await w.d.runtime.appManager.install(await signedBundle(manifest), { approved: true })).toMatchObject({ status: "succeeded" });
    }
    const open = (appScope: string, view: string) => w.d.runtime.appPort(appScope).requestCapability({ capability: LINK, purpose: "Its view asks to open https://maps.example/", input: { url: "https://maps.example/" }, view });

    // The voice app is in front; the view stands for itself (the host shows it), so it is not refused for the foreground.
    expect(outcome(await open("maps", VIEW))).toBe("completed");
    expect(w.host.prompts).toMatchObject([{ app_scope: "maps", app_name: "Maps", capability: LINK }]);
    expect(w.host.invocations).toMatchObject([{ app_scope: "maps", capability: LINK, input: { url: "https://maps.example/" } }]);
    // A view that is not one of the app's, and an app whose manifest does not declare link.open: refused, nobody asked.
    expect(outcome(await open("maps", "ui://elsewhere/view.html"))).toBe("permission_denied/not_owner");
    expect(outcome(await open("bare", VIEW))).toBe("permission_denied/capability_not_declared");
    expect(w.host.prompts).toHaveLength(1);
    expect(w.host.invocations).toHaveLength(1);
    expect(await w.d.runtime.verifyAudit()).toMatchObject({ ok: true });
    await w.d.stop();
    expect((await auditRecords(w.data)).filter((r) => r.type.startsWith("capability.") && r.subject !== "voice").map((r) => `${r.subject} ${r.type}${r.code === undefined ? "" : ` ${r.code}`}`)).toEqual([
      "maps capability.ask_user",
      "maps capability.user_granted",
      "maps capability.invoke",
      "maps capability.result",
      "maps capability.refused not_owner",
      "bare capability.refused capability_not_declared",
    ]);
  });

  it("a dialog closed without a choice (Escape) refuses this request but is not remembered: the next one asks again", async () => {
    const w = await world();
    w.host.answer = "dismiss";
    expect((await w.ask("voice", MIC)).status).not.toBe("completed");
    expect(w.d.runtime.settings.grants()).toEqual([]);
    w.host.answer = "allow";
    expect(outcome(await w.ask("voice", MIC))).toBe("completed");
    expect(w.host.prompts).toHaveLength(2);
    await w.d.stop();
  });

  it("denied by the user: refused, not asked again (also after a restart) until Settings says ask", async () => {
    const w = await world();
    w.host.answer = "deny";
    expect(await w.ask("voice", MIC)).toMatchObject({ status: "permission_denied", code: "permission_denied" });
    expect(await w.ask("voice", MIC)).toMatchObject({ status: "permission_denied", code: "permission_denied" });
    expect(w.host.prompts).toHaveLength(1);
    expect(w.host.invocations).toEqual([]);
    // The denial is a Settings entry (persisted under settings/grants).
    expect(w.d.runtime.settings.grants()).toMatchObject([{ app_scope: "voice", capability: MIC, decision: "denied" }]);
    await w.d.stop();

    const again = await world({ data: w.data, install: false });
    expect(again.d.runtime.settings.grants()).toMatchObject([{ app_scope: "voice", capability: MIC, decision: "denied" }]);
    expect(outcome(await again.ask("voice", MIC))).toBe("permission_denied/permission_denied");
    expect(again.host.prompts).toEqual([]);

    // The user changes it in Settings: the next request asks again, and this time the user allows.
    await again.d.runtime.settings.setGrant("voice", MIC, "ask");
    expect(again.d.runtime.settings.grants()).toEqual([]);
    expect(outcome(await again.ask("voice", MIC))).toBe("completed");
    expect(again.host.prompts).toHaveLength(1);
    expect(again.host.invocations).toHaveLength(1);
    expect(await again.d.runtime.verifyAudit()).toMatchObject({ ok: true });
    await again.d.stop();
    expect(await auditTypes(w.data)).toEqual(expect.arrayContaining(["capability.ask_user", "capability.user_denied", "capability.refused", "settings.grant.changed", "capability.user_granted"]));
  });

  it("applies the policy's rate limit before asking or invoking, per window", async () => {
    const w = await world({ policy: { rate_limit: { max: 2, window_ms: 60_000 } } });
    const results = [];
    for (let i = 0; i < 3; i++) results.push(outcome(await w.ask("voice", MIC)));
    expect(results).toEqual(["completed", "completed", "policy_denied/rate_limited"]);
    expect(w.host.invocations).toHaveLength(2);
    expect(w.host.prompts).toHaveLength(1);
    w.clock.advance(60_001);
    expect(outcome(await w.ask("voice", MIC))).toBe("completed");
    expect(await w.d.runtime.verifyAudit()).toMatchObject({ ok: true });
    await w.d.stop();
    expect((await auditTypes(w.data)).filter((t) => t === "capability.refused")).toHaveLength(1);
  });

  it("policy denials and the OS permission dialog", async () => {
    const denied = await world({ policy: { denied_capabilities: [MIC] } });
    expect(outcome(await denied.ask("voice", MIC))).toBe("policy_denied/policy_denied");
    expect(denied.host.prompts).toEqual([]);
    await denied.d.stop();

    const w = await world();
    await w.d.runtime.settings.setGrant("voice", MIC, "granted");
    w.host.system = "prompt";
    w.host.systemAnswer = "denied";
    expect(outcome(await w.ask("voice", MIC))).toBe("permission_denied/permission_denied");
    w.host.system = "prompt";
    w.host.systemAnswer = "granted";
    expect(outcome(await w.ask("voice", MIC))).toBe("completed");
    expect(w.host.systemPrompts).toEqual([MIC, MIC]);
    expect(w.host.prompts).toEqual([]);
    expect(w.host.invocations).toHaveLength(1);
    await w.d.stop();
  });

  it("a host call that says how long it runs (a recording's max_ms) gets that time on top of the answer time", async () => {
    const w = await world({ policy: { request_timeout_ms: 5_000 } });
    w.host.answer = "hang";
    const recording = w.ask("voice", MIC, undefined, { max_ms: 60_000 });
    await until(() => w.host.prompts.length === 1, 3_000, "the confirmation");
    // The person takes 4 s to allow it: the recording still gets its full minute, then the usual 5 s.
    w.clock.advance(4_000);
    w.host.hangInvoke = true;
    w.host.answerPrompt("allow");
    await until(() => w.host.invocations.length === 1, 3_000, "the host call");
    w.clock.advance(64_999);
    await settle();
    expect(w.host.invocations[0]!.signal.aborted).toBe(false);
    w.clock.advance(1);
    expect(await recording).toMatchObject({ status: "expired" });
    expect(w.host.invocations[0]!.signal.aborted).toBe(true);
    await w.d.stop();
  });

  it("a request nobody answers expires; a host call past its time is aborted and expires", async () => {
    const w = await world({ policy: { request_timeout_ms: 5_000 } });
    w.host.answer = "hang";
    const waiting = w.ask("voice", MIC);
    await until(() => w.host.prompts.length === 1, 3_000, "the confirmation");
    w.clock.advance(4_999);
    await settle();
    w.clock.advance(1);
    expect(await waiting).toMatchObject({ status: "expired", code: "expired" });
    expect(w.host.invocations).toEqual([]);

    await w.d.runtime.settings.setGrant("voice", MIC, "granted");
    w.host.hangInvoke = true;
    const running = w.ask("voice", MIC);
    await until(() => w.host.invocations.length === 1, 3_000, "the host call");
    expect(w.host.invocations[0]!.signal.aborted).toBe(false);
    w.clock.advance(5_000);
    expect(await running).toMatchObject({ status: "expired" });
    expect(w.host.invocations[0]!.signal.aborted).toBe(true);
    expect(await w.d.runtime.verifyAudit()).toMatchObject({ ok: true });
    await w.d.stop();
    // The aborted call's late answer was discarded, not delivered twice.
    expect((await auditTypes(w.data)).filter((t) => t === "capability.refused")).toHaveLength(2);
  });

  it("a grant revoked in Settings aborts the running host call; disabling the app ends its waiting request", async () => {
    const w = await world();
    await w.d.runtime.settings.setGrant("voice", MIC, "granted");
    w.host.hangInvoke = true;
    const running = w.ask("voice", MIC);
    await until(() => w.host.invocations.length === 1, 3_000, "the host call");
    await w.d.runtime.settings.setGrant("voice", MIC, "denied");
    expect(await running).toMatchObject({ status: "permission_denied" });
    expect(w.host.invocations[0]!.signal.aborted).toBe(true);

    await w.d.runtime.settings.setGrant("voice", MIC, "ask");
    w.host.answer = "hang";
    const asking = w.ask("voice", MIC);
    await until(() => w.host.prompts.length === 1, 3_000, "the confirmation");
    expect((await w.d.runtime.appManager.disable("voice")).status).toBe("succeeded");
    expect(outcome(await asking)).toBe("permission_denied/app_disabled");
    // A disabled app's requests are refused with the code (the promise still resolves).
    expect(outcome(await w.ask("voice", MIC))).toBe("permission_denied/app_disabled");
    expect(await w.d.runtime.verifyAudit()).toMatchObject({ ok: true });
    await w.d.stop();
  });

  it("stopping the Runtime ends the apps' waiting requests: a restart has nothing to resume", async () => {
    const w = await world();
    w.host.answer = "hang";
    const waiting = w.ask("voice", MIC);
    await until(() => w.host.prompts.length === 1, 3_000, "the confirmation");
    await w.d.stop();
    expect(outcome(await waiting)).toBe("failed/request_cancelled");
    // After stop the port still answers with a result, never a rejection.
    expect(outcome(await w.ask("voice", MIC))).toBe("failed/invalid_state");

    const again = await world({ data: w.data, install: false });
    again.host.answer = "deny";
    again.clock.advance(200_000);
    await settle();
    expect(again.host.prompts).toEqual([]);
    expect(outcome(await again.ask("voice", MIC))).toBe("permission_denied/permission_denied");
    expect(again.host.prompts).toHaveLength(1);
    await again.d.stop();
  });
});
