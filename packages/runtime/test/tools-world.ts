/** A small world for the tools tests: whiteboard, pomodoro and voice installed beside the core apps. */
import { EMPTY_INSTANCES, type InstancesState } from "../src/app-lifecycle/instances/index.js";
import { decideInstall, getApp, type AppRegistryState } from "../src/app-lifecycle/manager/index.js";
import {
  buildToolRegistry,
  loadToolSchemaEngine,
  computeInventory,
  EMPTY_INVENTORY_REVISIONS,
  publishInventory,
  toolSourcesFromRegistry,
  type InvokeContext,
  type InvokeRequest,
  type ToolRegistry,
} from "../src/tools/index.js";
import { candidate, coreRegistry, FULL_HOST, pomodoroManifest, T0, voiceManifest, whiteboardManifest } from "./apps-fixtures.js";

// Worlds are built while tests are collected; the Runtime would have loaded its app-schema engine at start.
await loadToolSchemaEngine();

export const AGENT = "agent-1";
export const CONV = "c1";

export function installedApps(): AppRegistryState {
  let state = coreRegistry();
  for (const m of [whiteboardManifest(), pomodoroManifest(), voiceManifest()]) {
    state = decideInstall(state, { operation_id: `install-${m.app_scope}`, candidate: candidate(m), approved: true, now: T0 }, FULL_HOST).state;
  }
  return state;
}

export interface World {
  readonly apps: AppRegistryState;
  readonly registry: ToolRegistry;
  readonly revision: number;
  context(instances?: InstancesState): InvokeContext;
}

export function world(hostCapabilities: readonly string[] = ["microphone.record"]): World {
  const apps = installedApps();
  const sources = toolSourcesFromRegistry(apps);
  const { registry } = buildToolRegistry(sources);
  const inventory = computeInventory({ apps: sources, hostCapabilities, policy: {}, agentId: AGENT, conversationId: CONV });
  const { revision } = publishInventory(EMPTY_INVENTORY_REVISIONS, AGENT, CONV, inventory);
  return {
    apps,
    registry,
    revision,
    context: (instances = EMPTY_INSTANCES) => ({
      inventory: { revision, tools: inventory.tools },
      registry,
      appStatus: (scope) => {
        const r = getApp(apps, scope);
        return { installed: r !== undefined, enabled: r?.enabled ?? false };
      },
      instances,
    }),
  };
}

export function invoke(call_id: string, app_scope: string, method: string, args: Record<string, unknown>, revision: number, now = T0, extra: Partial<InvokeRequest> = {}): InvokeRequest {
  return {
    call_id,
    agent_id: AGENT,
    conversation_id: CONV,
    app_scope,
    inventory_revision: String(revision),
    payload: { method, arguments: args as never },
    now,
    launch_instance_id: `inst-${call_id}`,
    ...extra,
  };
}
