/**
 * A burst of user actions over a slow link, for the runtime suite: how long until the server has applied
 * and acknowledged all of them. The Runtime (Node host: SQLite store, WebSocket) talks to the reference
 * AppServer through a proxy that holds every frame for LINK_DELAY_MS each way, as a network would.
 *
 * - ours: BURST texts dispatched at once in one conversation → stored in the outbox → sent pipelined
 *   (the server announces ordered writes) → every entry settled (`queued_actions` back to 0).
 * - floor: a raw JSON-RPC client sending the same BURST `agentSession/turn/start` requests at once
 *   through the same proxy and waiting for every answer: what the link and the server allow.
 * - stop_and_wait: the same Runtime through a proxy that hides the server's features, so it sends one
 *   entry per round trip (how the outbox worked before ordered writes).
 * - first_text: a conversation started on the device and its first text, until both are settled, both ways.
 */
import { join } from "node:path";
import type { AppServerHandle } from "@lineup/app-server";
import { createNodeRuntime, type NodeRuntime } from "@lineup/runtime/node";
import { Client, key } from "./load/client.js";
import { median } from "./lib.js";
import { LINK_DELAY_MS, until, withLinkedServer } from "./link-proxy.js";

export { LINK_DELAY_MS };

export const BURST = 20;

interface Device {
  readonly runtime: NodeRuntime;
  readonly conversationId: string;
}

async function startDevice(server: AppServerHandle, url: string, dir: string): Promise<Device> {
  const runtime = await createNodeRuntime({ serverUrl: url, token: server.devCredentials!.device_token, dataDir: dir, relistIntervalMs: 0 });
  await runtime.start();
  await runtime.whenOnline();
  const { conversation_id: conversationId } = await runtime.conversations.start({ agent_id: "demo-agent", workspace_id: "w-bench", title: "Burst" });
  await until(() => runtime.appPort("chat").view().queued_actions === 0, "the conversation on the server");
  return { runtime, conversationId };
}

/** ms from dispatching BURST texts at once until every one is settled (applied by the server, outcome committed). */
async function burstRound(device: Device, round: number): Promise<number> {
  const chat = device.runtime.appPort("chat");
  const start = performance.now();
  await Promise.all(Array.from({ length: BURST }, (_, i) => chat.dispatch({ type: "conversation.send_text", conversation_id: device.conversationId, text: `round ${round} text ${i}` })));
  await until(() => chat.view().queued_actions === 0, "the burst settled");
  return performance.now() - start;
}

/** ms from starting a conversation and dispatching its first text until both are settled. */
async function firstTextRound(device: Device, round: number): Promise<number> {
  const chat = device.runtime.appPort("chat");
  const start = performance.now();
  const { conversation_id: id } = await device.runtime.conversations.start({ agent_id: "demo-agent", workspace_id: "w-bench", title: `New ${round}` });
  await chat.dispatch({ type: "conversation.send_text", conversation_id: id, text: "hello" });
  await until(() => chat.view().queued_actions === 0, "the new conversation and its first text settled");
  return performance.now() - start;
}

/** ms for BURST pipelined turn/start requests through the proxy until every answer is back. */
async function floorRound(client: Client, sessionId: string, round: number): Promise<number> {
  const start = performance.now();
  await Promise.all(Array.from({ length: BURST }, (_, i) => client.call("agentSession/turn/start", { session_id: sessionId, idempotency_key: key(), input: { text: `floor ${round} text ${i}` } })));
  return performance.now() - start;
}

export interface OutboxLinkFigures {
  readonly ours_ms: number;
  readonly floor_ms: number;
  readonly stop_and_wait_ms: number;
  /** A new conversation and its first text, until both settled: pipelined, and stop-and-wait. */
  readonly first_text_ms: number;
  readonly first_text_stop_and_wait_ms: number;
  readonly ratio: number;
  readonly rounds: number;
}

export function measureOutboxOverLink(rounds: number): Promise<OutboxLinkFigures> {
  return withLinkedServer("lineup-bench-outbox-", ({ dir, server, link, oldLink }) => measure(server, link.url, oldLink.url, dir, rounds));
}

async function measure(server: AppServerHandle, linkUrl: string, oldLinkUrl: string, dir: string, rounds: number): Promise<OutboxLinkFigures> {
  let pipelined: Device | undefined;
  let stopAndWait: Device | undefined;
  let client: Client | undefined;
  try {
    pipelined = await startDevice(server, linkUrl, join(dir, "device-a"));
    stopAndWait = await startDevice(server, oldLinkUrl, join(dir, "device-b"));
    client = await Client.open(linkUrl, server.devCredentials!.device_token);
    const floorSession = `bench-floor-${key()}`;
    await client.call("agentSession/start", { idempotency_key: key(), session_id: floorSession, app_scope: "chat", workspace_id: "w-bench", agent_id: "demo-agent" });
    // One warm-up round each.
    await burstRound(pipelined, -1);
    await floorRound(client, floorSession, -1);
    const ours: number[] = [];
    const floor: number[] = [];
    const ratios: number[] = [];
    const old: number[] = [];
    const first: number[] = [];
    const firstOld: number[] = [];
    for (let round = 0; round < rounds; round++) {
      first.push(await firstTextRound(pipelined, round));
      firstOld.push(await firstTextRound(stopAndWait, round));
      const a = await burstRound(pipelined, round);
      const b = await floorRound(client, floorSession, round);
      ours.push(a);
      floor.push(b);
      ratios.push(a / b);
      if (round < 2) old.push(await burstRound(stopAndWait, round));
    }
    return { ours_ms: median(ours), floor_ms: median(floor), stop_and_wait_ms: median(old), first_text_ms: median(first), first_text_stop_and_wait_ms: median(firstOld), ratio: median(ratios), rounds };
  } finally {
    client?.close();
    await pipelined?.runtime.stop();
    await stopAndWait?.runtime.stop();
  }
}
