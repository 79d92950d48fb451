/**
 * The client's end of the heartbeat, for both Node clients (the Runtime's and the agent SDK's): over a
 * real WebSocket to a server that stops answering — it never pongs and never sends, while its TCP
 * connection stays open — the client closes the connection (1006, "heartbeat timeout"); against a
 * server that answers pings, the connection stays open through many intervals.
 */
import type { AddressInfo } from "node:net";
import { nodeWebSocketTransport } from "@lineup/agent-sdk/node";
import { createWsTransport } from "@lineup/runtime/node";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";

const INTERVAL_MS = 100;

/** What both transports give: a close report, and a way to end. */
interface Opened {
  readonly closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

const CLIENTS: Record<string, (url: string) => Promise<Opened>> = {
  runtime: async (url) => {
    const connection = await createWsTransport({ heartbeatIntervalMs: INTERVAL_MS }).open(url);
    return { closed: new Promise((resolve) => connection.onClose(resolve)), close: () => connection.close(1000, "done") };
  },
  "agent SDK": async (url) => {
    const connection = await nodeWebSocketTransport({ heartbeatIntervalMs: INTERVAL_MS }).connect(url);
    return { closed: new Promise((resolve) => connection.onClose(resolve)), close: () => connection.close(1000, "done") };
  },
};

let servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const server of servers) {
    for (const client of server.clients) client.terminate();
    await new Promise((resolve) => server.close(resolve));
  }
  servers = [];
});

async function serve(autoPong: boolean): Promise<string> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, autoPong });
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
}

const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} not within ${ms} ms`)), ms))]);

describe.each(Object.entries(CLIENTS))("the %s client's heartbeat", (_, open) => {
  it("closes a connection whose server stopped answering", async () => {
    const client = await open(await serve(false));
    expect(await within(client.closed, 10_000, "the close")).toEqual({ code: 1006, reason: "heartbeat timeout" });
  });

  it("keeps a connection whose server answers pings open", async () => {
    const client = await open(await serve(true));
    const outcome = await Promise.race([client.closed, new Promise((resolve) => setTimeout(() => resolve("still open"), 10 * INTERVAL_MS))]);
    expect(outcome).toBe("still open");
    client.close();
    expect((await client.closed).code).toBe(1000);
  });
});
