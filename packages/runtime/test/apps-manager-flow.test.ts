/**
 * Spec 11 F4 / spec 12 "应用管理" as one pure walk through the modules, wired the way the Runtime loop
 * wires them: install → enable → inventory → tool call → app launched in front of chat → result →
 * chat restored → disable (calls refused, instances closed, inventory republished) → remove
 * (bundle and data deleted) → the default app falls back to chat.
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  closeAppInstances,
  EMPTY_INSTANCES,
  foregroundInstance,
  instancePolicyFor,
  launchInstance,
  liveInstanceCount,
  markInstanceClosed,
  markInstanceReady,
  markInstanceRestored,
  resolveStartupTarget,
  suspendInstance,
  type InstancesState,
} from "../src/app-lifecycle/instances/index.js";
import {
  decideDisable,
  decideInstall,
  decideRemove,
  cannotOpen,
  decideSetDefaultApp,
  getApp,
  isDefaultEligible,
  withActiveInstanceCount,
  type AppEffect,
  type AppRegistryState,
} from "../src/app-lifecycle/manager/index.js";
import {
  activationSettled,
  buildToolRegistry,
  computeInventory,
  EMPTY_INVENTORY_REVISIONS,
  EMPTY_TOOL_CALLS,
  loadToolSchemaEngine,
  publishInventory,
  receiveInvoke,
  refuseAppCalls,
  reportResult,
  toolSourcesFromRegistry,
  type InventoryRevisions,
  type ToolCallsState,
} from "../src/tools/index.js";
import { candidate, coreRegistry, FULL_HOST, T0, whiteboardManifest } from "./apps-fixtures.js";

const AGENT = "agent-1";
const CONV = "c1";

function ok<T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe("F4 acceptance walk: install → call → focus → disable → remove", () => {
  // The Runtime loads its app-schema engine at start; this walk drives the pure modules without one.
  beforeAll(loadToolSchemaEngine);

  it("runs end to end across the pure modules", () => {
    let apps: AppRegistryState = coreRegistry();
    let instances: InstancesState = EMPTY_INSTANCES;
    let calls: ToolCallsState = EMPTY_TOOL_CALLS;
    let revisions: InventoryRevisions = EMPTY_INVENTORY_REVISIONS;
    const publish = () => {
      const sources = toolSourcesFromRegistry(apps);
      const inventory = computeInventory({ apps: sources, hostCapabilities: [], hostFeatures: FULL_HOST.features, policy: {}, agentId: AGENT, conversationId: CONV });
      const published = publishInventory(revisions, AGENT, CONV, inventory);
      revisions = published.revisions;
      return { ...published, inventory, registry: buildToolRegistry(sources).registry };
    };
    const context = (p: ReturnType<typeof publish>) => ({
      inventory: { revision: p.revision, tools: p.inventory.tools },
      registry: p.registry,
      appStatus: (scope: string) => ({ installed: getApp(apps, scope) !== undefined, enabled: getApp(apps, scope)?.enabled ?? false }),
      instances,
    });

    // Chat is open in front.
    instances = ok(launchInstance(instances, { instance_id: "chat-1", app_scope: "chat", policy: instancePolicyFor("chat"), foreground: true, now: T0 })).state;
    instances = ok(markInstanceReady(instances, "chat-1", T0)).state;
    const before = publish();
    expect(before.inventory.tools).toHaveLength(0);

    // Install (+enable): the inventory gains the whiteboard's tools and a new revision.
    const installed = decideInstall(apps, { operation_id: "op-1", candidate: candidate(whiteboardManifest()), approved: true, now: T0 }, FULL_HOST);
    apps = installed.state;
    expect(installed.effects).toContainEqual({ kind: "publish_inventory" });
    const p1 = publish();
    expect(p1).toMatchObject({ revision: before.revision + 1, changed: true });
    expect(p1.inventory.tools.map((t) => t.method)).toEqual(["board.create", "board.summary"]);
    apps = decideSetDefaultApp(apps, { operation_id: "op-2", app_scope: "whiteboard", now: T0 }).state;

    // The agent calls board.create with a foreground requirement: the whiteboard launches in front of chat.
    const fgManifest = whiteboardManifest();
    expect(fgManifest.tools![0]!.activation_requirement).toBe("app_ready");
    let d = receiveInvoke(calls, { call_id: "call-1", agent_id: AGENT, conversation_id: CONV, app_scope: "whiteboard", inventory_revision: String(p1.revision), payload: { method: "board.create", arguments: { title: "Plan" } }, now: T0, launch_instance_id: "wb-1" }, context(p1));
    calls = d.state;
    const launch = d.actions.find((a) => a.kind === "launch_instance");
    expect(launch).toBeDefined();
    // The loop performs the launch in front (an agent-started extension app), as the Tool asked.
    instances = ok(launchInstance(instances, { instance_id: "wb-1", app_scope: "whiteboard", policy: instancePolicyFor("whiteboard"), conversation_id: CONV, foreground: true, parent_instance_id: "chat-1", now: T0 + 1 })).state;
    expect(instances.instances["chat-1"]?.status).toBe("backgrounded");
    instances = ok(suspendInstance(instances, "chat-1", T0 + 2)).state;
    instances = ok(markInstanceReady(instances, "wb-1", T0 + 3)).state;
    apps = withActiveInstanceCount(apps, "whiteboard", liveInstanceCount(instances, "whiteboard"));
    expect(getApp(apps, "whiteboard")?.active_instance_count).toBe(1);
    d = activationSettled(calls, { instance_id: "wb-1", outcome: "ready", foreground: foregroundInstance(instances)?.instance_id === "wb-1" });
    calls = d.state;
    expect(d.actions).toEqual([expect.objectContaining({ kind: "deliver_to_app", call_id: "call-1", instance_id: "wb-1" })]);

    // The app answers; the result is checked and sent; the app closes and chat comes back.
    d = reportResult(calls, { call_id: "call-1", instance_id: "wb-1", result: { board_id: "b-1" } }, p1.registry);
    calls = d.state;
    expect(d.outputs).toEqual([{ type: "lineup.tool.result", call_id: "call-1", payload: { result: { board_id: "b-1" } } }]);
    const closed = ok(markInstanceClosed(closeAppInstances(instances, "whiteboard", T0 + 10).state, "wb-1", T0 + 11));
    instances = closed.state;
    expect(instances.instances["chat-1"]?.status).toBe("restoring");
    instances = ok(markInstanceRestored(instances, "chat-1", T0 + 12)).state;
    expect(foregroundInstance(instances)?.instance_id).toBe("chat-1");

    // A second call is in flight when the user disables the app.
    instances = ok(launchInstance(instances, { instance_id: "wb-2", app_scope: "whiteboard", policy: "per_conversation", conversation_id: CONV, foreground: false, now: T0 + 20 })).state;
    instances = ok(markInstanceReady(instances, "wb-2", T0 + 21)).state;
    d = receiveInvoke(calls, { call_id: "call-2", agent_id: AGENT, conversation_id: CONV, app_scope: "whiteboard", inventory_revision: String(p1.revision), payload: { method: "board.create", arguments: { title: "Two" } }, now: T0 + 22, launch_instance_id: "unused" }, context(p1));
    calls = d.state;
    expect(d.actions).toEqual([expect.objectContaining({ kind: "deliver_to_app", instance_id: "wb-2" })]);
    const disabled = decideDisable(apps, { operation_id: "op-3", app_scope: "whiteboard", now: T0 + 30 });
    apps = disabled.state;
    for (const effect of disabled.effects as AppEffect[]) {
      if (effect.kind === "refuse_pending_calls") {
        d = refuseAppCalls(calls, { app_scope: effect.app_scope, code: effect.code });
        calls = d.state;
        expect(d.outputs).toEqual([{ type: "lineup.tool.error", call_id: "call-2", payload: { code: "app_disabled", message: '"whiteboard" was disabled' } }]);
      } else if (effect.kind === "close_instances") {
        instances = closeAppInstances(instances, effect.app_scope, T0 + 31).state;
      }
    }
    expect(liveInstanceCount(instances, "whiteboard")).toBe(0);
    expect(instances.focus_stack).toEqual(["chat-1"]);
    const p2 = publish();
    expect(p2).toMatchObject({ revision: p1.revision + 1, changed: true });
    expect(p2.inventory.tools).toHaveLength(0);
    // The agent's old revision and the disabled app are both refused with definite codes.
    const late = receiveInvoke(calls, { call_id: "call-3", agent_id: AGENT, conversation_id: CONV, app_scope: "whiteboard", inventory_revision: String(p1.revision), payload: { method: "board.create", arguments: { title: "x" } }, now: T0 + 40, launch_instance_id: "x" }, context(p2));
    expect(late.outputs.map((o) => (o.type === "lineup.tool.error" ? o.payload.code : o.type))).toEqual(["app_disabled"]);

    // A disabled default app falls back to chat at start-up.
    expect(isDefaultEligible(apps, "whiteboard")).toBe(false);
    const cannotRun = (scope: string, entrypoint?: string) => cannotOpen(apps, FULL_HOST, scope, entrypoint);
    expect(resolveStartupTarget({ instances: { instances: {}, focus_stack: [] }, default_app: apps.default_app, cannotRun })).toEqual({
      kind: "recovery",
      app_scope: "chat",
      skipped: [{ target: "default", app_scope: "whiteboard", reason: "it is disabled (enable it in Apps)", cause: { kind: "disabled", message: "it is disabled (enable it in Apps)" } }],
    });
    // A deep link to an app that is not installed, or to a page the app does not have, is named with its reason.
    expect(resolveStartupTarget({ explicit: { app_scope: "nope" }, instances: { instances: {}, focus_stack: [] }, default_app: "chat", cannotRun })).toMatchObject({ kind: "recovery", skipped: [{ target: "explicit", app_scope: "nope", reason: "it is not installed" }] });
    expect(cannotRun("chat")).toBeUndefined();

    // Remove, confirmed: bundle and data deleted, default reset to chat.
    const removed = decideRemove(apps, { operation_id: "op-4", app_scope: "whiteboard", confirmed: true, now: T0 + 50 });
    apps = removed.state;
    expect(removed.effects.map((e) => e.kind)).toEqual(["refuse_pending_calls", "close_instances", "delete_bundle", "delete_app_data", "publish_inventory"]);
    expect(apps.default_app).toBe("chat");
    expect(publish()).toMatchObject({ revision: p2.revision, changed: false });
  });
});
