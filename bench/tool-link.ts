/**
 * A tool call over a slow link, for the tools suite: an agent on the AppServer's host invokes a tool of
 * an app installed on a device whose Runtime (Node host: SQLite store, WebSocket) reaches the reference
 * AppServer through a proxy that holds every frame LINK_DELAY_MS each way. Timed from the agent's
 * `lineup.tool.invoke` to the `lineup.tool.result` event reaching the agent.
 *
 * - ours: the Runtime with ordered writes (the receipt and the result are pipelined).
 * - floor: a raw device client behind the same proxy that answers the invoke with its result at once:
 *   the link's round trip and the server's two durable writes, nothing of a Runtime.
 * - stop_and_wait: the same Runtime through a proxy that hides the server's features, so its result
 *   waits for the server's answer to its receipt (the outbox before ordered writes).
 */
import { join } from "node:path";
import type { AppServerHandle } from "@lineup/app-server";
import { generatePublisherKey, type PublisherKey } from "@lineup/runtime";
import type { NodeRuntime } from "@lineup/runtime/node";
import { Client, key } from "./load/client.js";
import { median } from "./lib.js";
import { LINK_DELAY_MS, until, withLinkedServer } from "./link-proxy.js";
import { APP, METHOD, startToolDevice } from "./tool-app.js";

export { LINK_DELAY_MS };

/** The agent's side: follows one session and times invokes until their result event. */
class Agent {
  private waiting = new Map<string, () => void>();
  inventoryRevision = 0;

  private constructor(
    readonly client: Client,
    readonly sessionId: string,
  ) {
    client.onNotification = (frame) => {
      if (frame.method !== "agentSession/event" || frame.params?.session_id !== sessionId) return;
      if (frame.params.kind === "inventory.published") this.inventoryRevision = Number(frame.params.data.revision);
      const envelope = frame.params.data?.envelope;
      if (envelope?.type === "lineup.tool.result" || envelope?.type === "lineup.tool.error") this.waiting.get(envelope.correlation?.call_id)?.();
    };
  }

  static async follow(server: AppServerHandle, sessionId: string): Promise<Agent> {
    const agent = new Agent(await Client.open(server.url, server.devCredentials!.agent_token), sessionId);
    await agent.client.call("agentSession/subscribe", { session_id: sessionId, after_seq: 0 });
    return agent;
  }

  /** ms from sending the invoke to its result event. */
  async invoke(): Promise<number> {
    const callId = `c-${key()}`;
    const done = new Promise<void>((resolve) => this.waiting.set(callId, resolve));
    const start = performance.now();
    await this.client.call("agentSession/envelope/send", {
      session_id: this.sessionId,
      idempotency_key: key(),
      envelope: {
        v: 1,
        id: `i-${key()}`,
        type: "lineup.tool.invoke",
        timestamp: new Date().toISOString(),
        sender: { kind: "agent", id: "demo-agent" },
        target: { kind: "app", app_scope: APP },
        scope: { app_scope: APP, conversation_id: this.sessionId },
        correlation: { call_id: callId, inventory_revision: String(this.inventoryRevision) },
        payload: { method: METHOD, arguments: {} },
      },
    });
    await done;
    this.waiting.delete(callId);
    return performance.now() - start;
  }
}

interface Device {
  readonly runtime: NodeRuntime;
  readonly agent: Agent;
}

async function startDevice(server: AppServerHandle, url: string, dir: string, publisher: PublisherKey): Promise<Device> {
  const { runtime, sessionId } = await startToolDevice({ serverUrl: url, token: server.devCredentials!.device_token, dataDir: dir, publisher, title: "Tools" });
  await until(() => runtime.appPort("chat").view().queued_actions === 0, "the conversation on the server");
  const agent = await Agent.follow(server, sessionId);
  await until(() => agent.inventoryRevision > 0, "the inventory published");
  return { runtime, agent };
}

/** A raw device behind the link: answers each invoke with its result at once. */
async function startRawDevice(server: AppServerHandle, url: string): Promise<{ device: Client; agent: Agent }> {
  const device = await Client.open(url, server.devCredentials!.device_token);
  const sessionId = `bench-tool-floor-${key()}`;
  await device.call("agentSession/start", { idempotency_key: key(), session_id: sessionId, app_scope: "chat", workspace_id: "w-bench", agent_id: "demo-agent" });
  await device.call("inventory/publish", { session_id: sessionId, idempotency_key: key(), revision: 1, tools: [{ app_scope: APP, method: METHOD, contract_version: "1", title: "Summary", description: "Counts", input_schema: { type: "object" }, call_model: "query" }] });
  device.onNotification = (frame) => {
    const envelope = frame.params?.data?.envelope;
    if (frame.method !== "agentSession/event" || envelope?.type !== "lineup.tool.invoke") return;
    void device.call("agentSession/envelope/send", {
      session_id: sessionId,
      idempotency_key: key(),
      envelope: { ...envelope, id: `r-${envelope.id}`, type: "lineup.tool.result", sender: { kind: "runtime", id: "dev-device" }, target: { kind: "runtime", app_scope: "runtime" }, correlation: { call_id: envelope.correlation.call_id, reply_to: envelope.id }, payload: { result: { shapes: 3 } } },
    });
  };
  await device.call("agentSession/subscribe", { session_id: sessionId, after_seq: 2 });
  const agent = await Agent.follow(server, sessionId);
  await until(() => agent.inventoryRevision > 0, "the floor's inventory");
  return { device, agent };
}

export interface ToolLinkFigures {
  readonly ours_ms: number;
  readonly floor_ms: number;
  readonly stop_and_wait_ms: number;
  readonly ratio: number;
  readonly calls: number;
}

export function measureToolCallOverLink(calls: number): Promise<ToolLinkFigures> {
  return withLinkedServer("lineup-bench-tool-link-", ({ dir, server, link, oldLink }) => measure(server, link.url, oldLink.url, dir, calls));
}

async function measure(server: AppServerHandle, linkUrl: string, oldLinkUrl: string, dir: string, calls: number): Promise<ToolLinkFigures> {
  const publisher = await generatePublisherKey();
  let pipelined: Device | undefined;
  let stopAndWait: Device | undefined;
  let raw: { device: Client; agent: Agent } | undefined;
  try {
    pipelined = await startDevice(server, linkUrl, join(dir, "device-a"), publisher);
    stopAndWait = await startDevice(server, oldLinkUrl, join(dir, "device-b"), publisher);
    raw = await startRawDevice(server, linkUrl);
    for (let i = 0; i < 3; i++) {
      await pipelined.agent.invoke();
      await stopAndWait.agent.invoke();
      await raw.agent.invoke();
    }
    const ours: number[] = [];
    const floor: number[] = [];
    const old: number[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < calls; i++) {
      const a = await pipelined.agent.invoke();
      const b = await raw.agent.invoke();
      ours.push(a);
      floor.push(b);
      ratios.push(a / b);
      old.push(await stopAndWait.agent.invoke());
    }
    return { ours_ms: median(ours), floor_ms: median(floor), stop_and_wait_ms: median(old), ratio: median(ratios), calls };
  } finally {
    for (const device of [pipelined, stopAndWait]) {
      device?.agent.client.close();
      await device?.runtime.stop();
    }
    raw?.agent.client.close();
    raw?.device.close();
  }
}
