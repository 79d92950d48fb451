import { describe, expect, it } from "vitest";
import type { AppScope } from "@lineup/protocol";
import { EMPTY_INSTANCES, instancePolicyFor, launchInstance, markInstanceReady, type InstancesState } from "../src/app-lifecycle/instances/index.js";
import { decideDisable, decideInstall, decideRemove, decideUpdate, getApp } from "../src/app-lifecycle/manager/index.js";
import {
  activationSettled,
  answersToolCalls,
  cancelCall,
  computeInventory,
  EMPTY_INVENTORY_REVISIONS,
  EMPTY_TOOL_CALLS,
  expireDueCalls,
  instanceFailed,
  interruptOperations,
  inventoryLost,
  inventorySessionKey,
  nextDeadline,
  publishedRevisionOf,
  publishInventory,
  receiveInvoke,
  refuseAppCalls,
  reportError,
  reportProgress,
  reportResult,
  routeToolCall,
  startOperation,
  toolSourcesFromRegistry,
  withPublishedRevision,
  withServerReport,
  type CallDecision,
  type ToolCallsState,
} from "../src/tools/index.js";
import { FULL_HOST, T0, candidate, whiteboardManifest } from "./apps-fixtures.js";
import { AGENT, CONV, installedApps, invoke, world } from "./tools-world.js";

const kinds = (d: CallDecision) => d.outputs.map((o) => (o.type === "lineup.tool.receipt" ? `receipt:${o.payload.status}` : o.type === "lineup.tool.error" ? `error:${o.payload.code}` : o.type.replace("lineup.tool.", "")));

function running(instances: InstancesState, id: string, app: string): InstancesState {
  const launched = launchInstance(instances, { instance_id: id, app_scope: app, policy: instancePolicyFor(app), conversation_id: CONV, foreground: true, now: T0 });
  if (!launched.ok) throw new Error(launched.error.message);
  const ready = markInstanceReady(launched.value.state, id, T0);
  if (!ready.ok) throw new Error(ready.error.message);
  return ready.value.state;
}

describe("inventory (spec 7.2)", () => {
  const inv = (apps = installedApps(), caps: string[] = ["microphone.record"], policy = {}, agentId = AGENT) =>
    computeInventory({ apps: toolSourcesFromRegistry(apps), hostCapabilities: caps, displayModes: ["foreground", "pip", "inline_card"], policy, agentId, conversationId: CONV });
  const methods = (i: ReturnType<typeof inv>) => i.tools.map((t) => `${t.app_scope}/${t.method}`);

  it("is the intersection of manifest tools, enabled apps, host support, policy and agent/conversation scope", () => {
    expect(methods(inv())).toEqual(["pomodoro/focus.interrupt", "pomodoro/focus.start", "voice/voice.request_recording", "whiteboard/board.create", "whiteboard/board.summary"]);
    expect(methods(inv(installedApps(), []))).not.toContain("voice/voice.request_recording");
    const disabled = decideDisable(installedApps(), { operation_id: "d", app_scope: "whiteboard", now: T0 }).state;
    expect(methods(inv(disabled)).some((m) => m.startsWith("whiteboard/"))).toBe(false);
    expect(methods(inv(installedApps(), ["microphone.record"], { blocked_tools: ["pomodoro/focus.start"] }))).not.toContain("pomodoro/focus.start");
    expect(methods(inv(installedApps(), ["microphone.record"], { max_risk: "medium" }))).not.toContain("voice/voice.request_recording");
    expect(methods(inv(installedApps(), ["microphone.record"], { agents: { [AGENT]: { allowed_apps: ["whiteboard"] } } }))).toEqual(["whiteboard/board.create", "whiteboard/board.summary"]);
    expect(methods(inv(installedApps(), ["microphone.record"], { agents: { other: { allowed_apps: [] } } }))).toHaveLength(5);
    expect(methods(inv(installedApps(), ["microphone.record"], { conversations: { [CONV]: { allowed_apps: ["pomodoro"] } } }))).toEqual(["pomodoro/focus.interrupt", "pomodoro/focus.start"]);
    const tool = inv().tools.find((t) => t.method === "focus.start")!;
    expect(tool).toMatchObject({ call_model: "operation", activation_requirement: "foreground_required", contract_version: "1", title: "Start a focus session" });
  });

  it("carries the standard components, the enabled apps with their entrypoints and names, the surfaces and the host's capabilities", () => {
    const named = decideInstall(
      installedApps(),
      {
        operation_id: "install-notes",
        candidate: candidate({
          ...whiteboardManifest("2.0.0"),
          app_scope: "notes" as AppScope,
          name: "Notes",
          description: "Short notes.",
          localized: { "zh-CN": { name: "笔记", description: "简短的笔记。" } },
          entrypoints: [
            { id: "list", kind: "primary", title: "All notes", display_modes: ["foreground", "pip"] },
            { id: "sync", kind: "background" },
          ],
          tools: [],
        }),
        approved: true,
        now: T0,
      },
      FULL_HOST,
    ).state;
    const all = inv(named, ["notification.show", "microphone.record"]);
    expect(all.components).toEqual(["text", "markdown", "status", "task_progress", "choice", "confirm", "input", "artifact"]);
    expect(all.surfaces).toEqual(["foreground", "pip", "inline_card"]);
    expect(all.capabilities).toEqual(["microphone.record", "notification.show"]);
    expect(all.apps.filter((a) => a.kind === "installed").map((a) => a.app_scope)).toEqual(["notes", "pomodoro", "voice", "whiteboard"]);
    expect(all.apps.find((a) => a.app_scope === "notes")).toEqual({
      app_scope: "notes",
      version: "2.0.0",
      kind: "installed",
      name: "Notes",
      description: "Short notes.",
      localized: { "zh-CN": { name: "笔记", description: "简短的笔记。" } },
      entrypoints: [
        { id: "list", kind: "primary", title: "All notes", display_modes: ["foreground", "pip"] },
        { id: "sync", kind: "background", display_modes: [] },
      ],
    });
    // The same rules as for tools: a disabled app, one policy blocks or one outside the agent's apps is not listed.
    const off = decideDisable(named, { operation_id: "d", app_scope: "notes", now: T0 }).state;
    expect(inv(off).apps.map((a) => a.app_scope)).not.toContain("notes");
    expect(inv(named, [], { blocked_apps: ["notes"] }).apps.map((a) => a.app_scope)).not.toContain("notes");
    expect(inv(named, [], { agents: { [AGENT]: { allowed_apps: ["whiteboard"] } } }).apps.map((a) => a.app_scope)).toEqual(["whiteboard"]);
    // A host without surfaces shows none of the entrypoints' display modes.
    const noSurfaces = computeInventory({ apps: toolSourcesFromRegistry(named), hostCapabilities: [], hostFeatures: ["app.lifecycle.v1", "app.tools.v1"], displayModes: ["foreground", "pip"], policy: {}, agentId: AGENT, conversationId: CONV });
    expect(noSurfaces.surfaces).toEqual([]);
    expect(noSurfaces.apps.find((a) => a.app_scope === "notes")?.entrypoints[0]?.display_modes).toEqual([]);
    // A host offers the display modes it declares, and only those: none when it has no screen for apps (Node, terminal).
    const fullscreenOnly = computeInventory({ apps: toolSourcesFromRegistry(named), hostCapabilities: [], displayModes: ["foreground"], policy: {}, agentId: AGENT, conversationId: CONV });
    expect(fullscreenOnly.surfaces).toEqual(["foreground"]);
    expect(fullscreenOnly.apps.find((a) => a.app_scope === "notes")?.entrypoints[0]?.display_modes).toEqual(["foreground"]);
    const headless = computeInventory({ apps: toolSourcesFromRegistry(named), hostCapabilities: [], policy: {}, agentId: AGENT, conversationId: CONV });
    expect(headless.surfaces).toEqual([]);
    expect(headless.apps.find((a) => a.app_scope === "notes")?.entrypoints.map((e) => e.display_modes)).toEqual([[], []]);
  });

  it("raises the revision when, and only when, the visible content changes", () => {
    let revisions = EMPTY_INVENTORY_REVISIONS;
    const publish = (i: ReturnType<typeof inv>) => {
      const p = publishInventory(revisions, AGENT, CONV, i);
      revisions = p.revisions;
      return p;
    };
    expect(publish(inv())).toMatchObject({ revision: 1, changed: true });
    expect(publish(inv())).toMatchObject({ revision: 1, changed: false });
    const disabled = decideDisable(installedApps(), { operation_id: "d", app_scope: "whiteboard", now: T0 }).state;
    expect(publish(inv(disabled))).toMatchObject({ revision: 2, changed: true });
    // The host loses the microphone: voice's only tool disappears.
    expect(publish(inv(disabled, []))).toMatchObject({ revision: 3, changed: true });
    // Disabling voice, whose tools are already hidden, still takes the app out of the inventory's apps.
    const voiceOff = decideDisable(disabled, { operation_id: "v", app_scope: "voice", now: T0 }).state;
    expect(publish(inv(voiceOff, []))).toMatchObject({ revision: 4, changed: true });
    // Blocking a tool that is already hidden changes nothing this agent sees.
    expect(publishInventory(revisions, AGENT, CONV, inv(voiceOff, [], { blocked_tools: ["voice/voice.request_recording"] }))).toMatchObject({ revision: 4, changed: false });
    const removed = decideRemove(voiceOff, { operation_id: "r", app_scope: "pomodoro", confirmed: true, now: T0 }).state;
    expect(publish(inv(removed, []))).toMatchObject({ revision: 5, changed: true });
    const updated = decideUpdate(installedApps(), { operation_id: "u", app_scope: "whiteboard", candidate: candidate({ ...whiteboardManifest("1.1.0"), tools: [whiteboardManifest().tools![0]!] }), now: T0 }, FULL_HOST);
    expect(getApp(updated.state, "whiteboard")?.installed_version).toBe("1.1.0");
    expect(publish(inv(updated.state, []))).toMatchObject({ revision: 6, changed: true });
    // Another agent's session has its own revision.
    expect(publishInventory(revisions, "agent-2", CONV, inv()).revision).toBe(1);
  });

  it("raises the revision when the same content would be sent in another form, or the record does not say what was sent", () => {
    const content = inv();
    // A record of a Runtime that kept no digest of what it sent: published again, once.
    const earlier = publishInventory(EMPTY_INVENTORY_REVISIONS, AGENT, CONV, content);
    const again = publishInventory(earlier.revisions, AGENT, CONV, content, "digest-a");
    expect(again).toMatchObject({ revision: 2, changed: true });
    expect(publishInventory(again.revisions, AGENT, CONV, content, "digest-a")).toMatchObject({ revision: 2, changed: false });
    // An upgrade that publishes the same content in another form.
    expect(publishInventory(again.revisions, AGENT, CONV, content, "digest-b")).toMatchObject({ revision: 3, changed: true });
  });

  it("publishes above the session's revision the server reports; judges a lost publication and who answers calls", () => {
    const key = inventorySessionKey(AGENT, CONV);
    const first = publishInventory(EMPTY_INVENTORY_REVISIONS, AGENT, CONV, inv(), "digest-a");
    // The server applied revision 1; another device of the user then published 4.
    const acknowledged = { ...publishedRevisionOf(first.revisions, AGENT, CONV)!, acknowledged: 1 };
    const reported = withServerReport(acknowledged, { revision: 4, publisher: "tablet" });
    expect(reported).toMatchObject({ revision: 1, server_revision: 4, publisher: "tablet", acknowledged: 1 });
    // A lower report never lowers what is known, and the same report is the same record.
    expect(withServerReport(reported, { revision: 2 })).toBe(reported);
    const revisions = withPublishedRevision(first.revisions, key, reported);
    // The same content is not published again; a change goes above the server's revision.
    expect(publishInventory(revisions, AGENT, CONV, inv(), "digest-a")).toMatchObject({ revision: 1, changed: false });
    expect(publishInventory(revisions, AGENT, CONV, inv(undefined, []), "digest-b")).toMatchObject({ revision: 5, changed: true });
    // Forced (refused or lost), the same content goes again, above both; the refusal mark is cleared.
    const forced = publishInventory(withPublishedRevision(revisions, key, { ...reported, refused: true }), AGENT, CONV, inv(), "digest-a", true);
    expect(forced).toMatchObject({ revision: 5, changed: true });
    expect(publishedRevisionOf(forced.revisions, AGENT, CONV)).toEqual({ ...reported, revision: 5 });
    // A server reporting less than this device's acknowledged revision lost it; one reporting more did not.
    expect(inventoryLost(reported, 0)).toBe(true);
    expect(inventoryLost(reported, 1)).toBe(false);
    expect(inventoryLost(publishedRevisionOf(first.revisions, AGENT, CONV), 0)).toBe(false);
    expect(inventoryLost(undefined, 0)).toBe(false);
    // Only the device that published last answers calls; without a publisher seen or an own id, the device answers.
    expect(answersToolCalls(reported, "tablet")).toBe(true);
    expect(answersToolCalls(reported, "laptop")).toBe(false);
    expect(answersToolCalls(reported, undefined)).toBe(true);
    expect(answersToolCalls(acknowledged, "laptop")).toBe(true);
    // A device paired again under a new id still answers for the latest revision it published.
    expect(answersToolCalls({ ...acknowledged, server_revision: 1, publisher: "laptop-before" }, "laptop")).toBe(true);
  });
});

describe("router (spec 7.3)", () => {
  const tool = (activation_requirement: "app_ready" | "foreground_required" | "activation_not_required", launch_policy: "never" | "if_needed" | "new_instance" = "if_needed", call_model: "command" | "interactive" = "command") => ({ activation_requirement, launch_policy, call_model });
  it("runs directly, launches, brings to the foreground, waits for activation or for the user", () => {
    expect(routeToolCall(tool("activation_not_required", "never"), EMPTY_INSTANCES, "whiteboard", CONV)).toEqual({ action: "run_directly" });
    expect(routeToolCall(tool("app_ready"), EMPTY_INSTANCES, "whiteboard", CONV)).toEqual({ action: "launch_app", foreground: false, new_instance: false });
    expect(routeToolCall(tool("foreground_required"), EMPTY_INSTANCES, "whiteboard", CONV)).toEqual({ action: "launch_app", foreground: true, new_instance: false });
    expect(routeToolCall(tool("app_ready", "never"), EMPTY_INSTANCES, "whiteboard", CONV)).toMatchObject({ action: "refuse", code: "activation_failed" });
    expect(routeToolCall(tool("foreground_required", "never"), EMPTY_INSTANCES, "whiteboard", CONV)).toMatchObject({ action: "refuse", code: "foreground_required" });
    const launching = launchInstance(EMPTY_INSTANCES, { instance_id: "w", app_scope: "whiteboard", policy: "per_conversation", conversation_id: CONV, foreground: true, now: T0 });
    expect(launching.ok && routeToolCall(tool("app_ready"), launching.value.state, "whiteboard", CONV)).toEqual({ action: "wait_for_activation", instance_id: "w" });
    let s = running(EMPTY_INSTANCES, "w", "whiteboard");
    expect(routeToolCall(tool("app_ready"), s, "whiteboard", CONV)).toEqual({ action: "run_directly", instance_id: "w" });
    expect(routeToolCall(tool("foreground_required", "if_needed", "interactive"), s, "whiteboard", CONV)).toEqual({ action: "wait_for_user", instance_id: "w" });
    s = running(s, "chat-1", "chat");
    expect(routeToolCall(tool("foreground_required"), s, "whiteboard", CONV)).toEqual({ action: "bring_to_foreground", instance_id: "w" });
    expect(routeToolCall(tool("app_ready"), s, "whiteboard", CONV)).toEqual({ action: "run_directly", instance_id: "w" });
    expect(routeToolCall(tool("app_ready", "new_instance"), s, "whiteboard", CONV)).toEqual({ action: "launch_app", foreground: false, new_instance: true });
    expect(routeToolCall(tool("app_ready"), s, "whiteboard", "other-conversation")).toMatchObject({ action: "launch_app" });
  });
});

describe("invoke checks (spec 7.3)", () => {
  const w = world();
  const refused = (request: ReturnType<typeof invoke>, state: ToolCallsState = EMPTY_TOOL_CALLS, ctx = w.context()) => {
    const d = receiveInvoke(state, request, ctx);
    return kinds(d);
  };

  it("refuses with each definite code and records the refusal as the call's one terminal error", () => {
    expect(refused(invoke("a", "whiteboard", "board.create", { title: "x" }, w.revision - 1))).toEqual(["error:stale_inventory_revision"]);
    expect(refused(invoke("b", "whiteboard", "board.delete", {}, w.revision))).toEqual(["error:tool_not_visible"]);
    expect(refused(invoke("c", "whiteboard", "board.create", { title: 42 }, w.revision))).toEqual(["error:invalid_arguments"]);
    expect(refused(invoke("d", "whiteboard", "board.create", { title: "x", extra: 1 }, w.revision))).toEqual(["error:invalid_arguments"]);
    expect(refused(invoke("e", "chess", "game.move", {}, w.revision))).toEqual(["error:app_not_installed"]);
    const disabledCtx = { ...w.context(), appStatus: () => ({ installed: true, enabled: false }) };
    expect(refused(invoke("f", "whiteboard", "board.create", { title: "x" }, w.revision), EMPTY_TOOL_CALLS, disabledCtx)).toEqual(["error:app_disabled"]);
    const versioned = invoke("g", "whiteboard", "board.create", { title: "x" }, w.revision);
    expect(refused({ ...versioned, payload: { ...versioned.payload, contract_version: "2" } })).toEqual(["error:app_version_mismatch"]);
    const noMic = world([]);
    expect(refused(invoke("h", "voice", "voice.request_recording", { max_seconds: 5 }, noMic.revision), EMPTY_TOOL_CALLS, noMic.context())).toEqual(["error:tool_not_visible"]);
  });

  it("replays a duplicate call_id with the same body and refuses one with another body", () => {
    const first = receiveInvoke(EMPTY_TOOL_CALLS, invoke("k", "whiteboard", "board.create", { title: "x" }, w.revision), w.context());
    expect(kinds(first)).toEqual(["receipt:accepted", "receipt:starting"]);
    const again = receiveInvoke(first.state, invoke("k", "whiteboard", "board.create", { title: "x" }, w.revision), w.context());
    expect(again.replayed).toBe(true);
    expect(again.outputs).toEqual(first.outputs);
    expect(again.state).toBe(first.state);
    expect(again.actions).toEqual([]);
    const other = receiveInvoke(first.state, invoke("k", "whiteboard", "board.create", { title: "y" }, w.revision), w.context());
    expect(other.refusal?.code).toBe("duplicate_call");
    expect(other.state).toBe(first.state);
    expect(other.outputs).toEqual([]);
    // A stored failure is replayed too.
    const stale = receiveInvoke(EMPTY_TOOL_CALLS, invoke("s", "whiteboard", "board.create", { title: "x" }, 99), w.context());
    expect(kinds(receiveInvoke(stale.state, invoke("s", "whiteboard", "board.create", { title: "x" }, 99), w.context()))).toEqual(["error:stale_inventory_revision"]);
  });
});

describe("activation queue (spec 7.3)", () => {
  const w = world();
  it("stores early app_ready/foreground_required calls and runs them in arrival order once ready; activation_not_required never waits", () => {
    let d = receiveInvoke(EMPTY_TOOL_CALLS, invoke("t1", "whiteboard", "board.create", { title: "a" }, w.revision), w.context());
    expect(kinds(d)).toEqual(["receipt:accepted", "receipt:starting"]);
    expect(d.actions).toEqual([{ kind: "launch_instance", call_id: "t1", instance_id: "inst-t1", app_scope: "whiteboard", conversation_id: CONV, foreground: false, new_instance: false }]);
    d = receiveInvoke(d.state, invoke("t2", "whiteboard", "board.create", { title: "b" }, w.revision), w.context());
    expect(kinds(d)).toEqual(["receipt:accepted"]);
    expect(d.actions).toEqual([]);
    d = receiveInvoke(d.state, invoke("t3", "whiteboard", "board.summary", {}, w.revision), w.context());
    expect(kinds(d)).toEqual(["receipt:accepted"]);
    expect(d.actions).toEqual([expect.objectContaining({ kind: "deliver_to_app", call_id: "t3" })]);
    d = receiveInvoke(d.state, invoke("t4", "whiteboard", "board.create", { title: "c" }, w.revision), w.context());
    const ready = activationSettled(d.state, { instance_id: "inst-t1", outcome: "ready", foreground: false });
    expect(kinds(ready)).toEqual(["receipt:activation_ready"]);
    expect(ready.outputs[0]?.call_id).toBe("t1");
    expect(ready.actions.map((a) => `${a.kind}:${a.call_id}`)).toEqual(["deliver_to_app:t1", "deliver_to_app:t2", "deliver_to_app:t4"]);
  });

  it("refuses the waiting calls when the activation fails or is cancelled", () => {
    for (const outcome of ["failed", "cancelled"] as const) {
      let d = receiveInvoke(EMPTY_TOOL_CALLS, invoke("t1", "whiteboard", "board.create", { title: "a" }, w.revision), w.context());
      d = receiveInvoke(d.state, invoke("t2", "whiteboard", "board.create", { title: "b" }, w.revision), w.context());
      const settled = activationSettled(d.state, { instance_id: "inst-t1", outcome, foreground: false });
      const code = outcome === "failed" ? "activation_failed" : "activation_cancelled";
      expect(settled.outputs.map((o) => `${o.call_id}:${o.type === "lineup.tool.receipt" ? o.payload.status : o.type === "lineup.tool.error" ? o.payload.code : o.type}`)).toEqual([`t1:${code}`, `t1:${code}`, `t2:${code}`]);
      expect(settled.actions).toEqual([]);
    }
  });
});

describe("reports from the app", () => {
  const w = world();
  const instances = running(EMPTY_INSTANCES, "wb", "whiteboard");
  const delivered = receiveInvoke(EMPTY_TOOL_CALLS, invoke("r1", "whiteboard", "board.create", { title: "a" }, w.revision), w.context(instances));

  it("delivers directly to a running instance; progress is recorded unchecked; the one result is checked against the output schema", () => {
    expect(delivered.actions).toEqual([{ kind: "deliver_to_app", call_id: "r1", app_scope: "whiteboard", conversation_id: CONV, instance_id: "wb", method: "board.create", arguments: { title: "a" } }]);
    const p = reportProgress(delivered.state, { call_id: "r1", instance_id: "wb", progress: { stage: "drawing", progress: 0.5, data: { anything: [1, 2] } } });
    expect(kinds(p)).toEqual(["progress"]);
    expect(reportProgress(p.state, { call_id: "r1", instance_id: "other", progress: {} }).refusal?.code).toBe("not_owner");
    const bad = reportResult(p.state, { call_id: "r1", instance_id: "wb", result: { board_id: 7 } }, w.registry);
    expect(kinds(bad)).toEqual(["error:invalid_result"]);
    const good = reportResult(p.state, { call_id: "r1", instance_id: "wb", result: { board_id: "b-1" } }, w.registry);
    expect(good.outputs).toEqual([{ type: "lineup.tool.result", call_id: "r1", payload: { result: { board_id: "b-1" } } }]);
    expect(reportResult(good.state, { call_id: "r1", instance_id: "wb", result: { board_id: "b-2" } }, w.registry).refusal?.code).toBe("call_not_active");
    expect(reportError(good.state, { call_id: "r1", instance_id: "wb", code: "handler_failed" }).refusal?.code).toBe("call_not_active");
    expect(good.state.calls["r1"]?.outputs.map((o) => o.type)).toEqual(["lineup.tool.receipt", "lineup.tool.progress", "lineup.tool.result"]);
    // No activation changed: the state keeps the same activations object, so the loop writes none.
    expect(good.state.activations).toBe(delivered.state.activations);
  });

  it("maps unknown app error codes to handler_failed, and ends calls on crash, cancel, deadline and disable", () => {
    expect(kinds(reportError(delivered.state, { call_id: "r1", instance_id: "wb", code: "permission_denied" }))).toEqual(["error:permission_denied"]);
    expect(kinds(reportError(delivered.state, { call_id: "r1", instance_id: "wb", code: "store_corrupt" }))).toEqual(["error:handler_failed"]);
    expect(kinds(instanceFailed(delivered.state, { instance_id: "wb" }))).toEqual(["error:handler_failed"]);
    const cancelled = cancelCall(delivered.state, { call_id: "r1", agent_id: AGENT });
    expect(kinds(cancelled)).toEqual(["error:request_cancelled"]);
    expect(cancelled.actions).toEqual([{ kind: "cancel_in_app", call_id: "r1", instance_id: "wb" }]);
    expect(cancelCall(delivered.state, { call_id: "r1", agent_id: "intruder" }).refusal?.code).toBe("not_owner");
    expect(nextDeadline(delivered.state)).toBe(T0 + 30_000);
    expect(kinds(expireDueCalls(delivered.state, T0 + 29_999, w.registry))).toEqual([]);
    expect(kinds(expireDueCalls(delivered.state, T0 + 30_000, w.registry))).toEqual(["error:operation_expired"]);
    expect(kinds(refuseAppCalls(delivered.state, { app_scope: "whiteboard", code: "app_disabled" }))).toEqual(["error:app_disabled"]);
  });
});

describe("runtime-owned operation: the pomodoro (spec 6.3, 7.3)", () => {
  const w = world();
  const start = () => receiveInvoke(EMPTY_TOOL_CALLS, invoke("p1", "pomodoro", "focus.start", { minutes: 25 }, w.revision), w.context());

  it("says started only after the app is in front and the operation exists, with no separate activation_ready; expiry gives the one result", () => {
    const d = start();
    expect(kinds(d)).toEqual(["receipt:accepted", "receipt:starting"]);
    expect(d.actions[0]).toMatchObject({ kind: "launch_instance", foreground: true });
    const ready = activationSettled(d.state, { instance_id: "inst-p1", outcome: "ready", foreground: true });
    expect(kinds(ready)).toEqual([]);
    expect(ready.actions).toEqual([{ kind: "start_operation", call_id: "p1", instance_id: "inst-p1" }]);
    expect(reportResult(ready.state, { call_id: "p1", instance_id: "inst-p1", result: { outcome: "completed", operation_id: "x" } }, w.registry).refusal?.code).toBe("not_owner");
    expect(kinds(startOperation(ready.state, { call_id: "p1", operation_id: "op-1", now: T0 + 10, ends_at: T0 + 1_500_010, foreground: false }))).toEqual(["error:foreground_required"]);
    const started = startOperation(ready.state, { call_id: "p1", operation_id: "op-1", now: T0 + 10, ends_at: T0 + 1_500_010, foreground: true });
    expect(started.outputs).toEqual([{ type: "lineup.tool.progress", call_id: "p1", payload: { stage: "started", data: { operation_id: "op-1", started_at: "2026-11-30T08:00:00.010Z", ends_at: "2026-11-30T08:25:00.010Z" } } }]);
    expect(nextDeadline(started.state)).toBe(T0 + 1_500_010);
    const done = expireDueCalls(started.state, T0 + 1_500_010, w.registry);
    expect(done.outputs).toEqual([{ type: "lineup.tool.result", call_id: "p1", payload: { result: { outcome: "completed", operation_id: "op-1", started_at: "2026-11-30T08:00:00.010Z", ends_at: "2026-11-30T08:25:00.010Z", ended_at: "2026-11-30T08:25:00.010Z" } } }]);
    expect(kinds(expireDueCalls(done.state, T0 + 9_999_999, w.registry))).toEqual([]);
  });

  it("an interrupt (activation_not_required) does not wait, and cancels a starting focus or ends a running one", () => {
    const d = start();
    const interrupt = receiveInvoke(d.state, invoke("i1", "pomodoro", "focus.interrupt", { reason: "meeting" }, w.revision), w.context());
    expect(kinds(interrupt)).toEqual(["receipt:accepted"]);
    expect(interrupt.actions).toEqual([expect.objectContaining({ kind: "deliver_to_app", call_id: "i1" })]);
    const cancelled = interruptOperations(interrupt.state, { app_scope: "pomodoro", conversation_id: CONV, reason: "meeting", now: T0 + 5 }, w.registry);
    expect(cancelled.interrupted).toBe(1);
    expect(kinds(cancelled)).toEqual(["receipt:activation_cancelled", "error:activation_cancelled"]);
    // The app becoming ready later releases nothing: the call already has its outcome.
    expect(kinds(activationSettled(cancelled.state, { instance_id: "inst-p1", outcome: "ready", foreground: true }))).toEqual([]);

    const ready = activationSettled(d.state, { instance_id: "inst-p1", outcome: "ready", foreground: true });
    const started = startOperation(ready.state, { call_id: "p1", operation_id: "op-1", now: T0, ends_at: T0 + 60_000, foreground: true });
    const stopped = interruptOperations(started.state, { app_scope: "pomodoro", conversation_id: CONV, reason: "meeting", now: T0 + 20_000 }, w.registry);
    expect(stopped.outputs).toEqual([{ type: "lineup.tool.result", call_id: "p1", payload: { result: expect.objectContaining({ outcome: "interrupted", ended_at: "2026-11-30T08:00:20.000Z", reason: "meeting" }) } }]);
    // The app crashing does not end a runtime-owned operation: its deadline still gives the result.
    expect(kinds(instanceFailed(started.state, { instance_id: "inst-p1" }))).toEqual([]);
  });
});
