/**
 * The server's end of the heartbeat: a connection that stops answering — its socket stops reading, so
 * it neither pongs nor closes, while TCP stays open — is closed by the server within two intervals, and
 * a device following the agent's session hears that the agent is no longer connected. Connections that
 * answer stay open through many intervals.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scrapeMetrics, START, startTestServer, TestClient, type Frame, type TestServer } from "./helpers.js";

const INTERVAL_MS = 100;

let server: TestServer;
let device: TestClient;

const presence = () => device.frames.filter((f: Frame) => f.method === "agentSession/presence" && f.params?.session_id === "s-heartbeat").map((f: Frame) => f.params.connected as boolean);
const stopReading = (client: TestClient) => (client.ws as unknown as { _socket: { pause(): void } })._socket.pause();

beforeAll(async () => {
  server = await startTestServer({ heartbeatIntervalMs: INTERVAL_MS });
  device = await TestClient.open(server, server.devCredentials!.device_token);
  await device.call("agentSession/start", START("s-heartbeat"));
  await device.call("agentSession/subscribe", { session_id: "s-heartbeat", after_seq: 0 });
  await device.waitFor((f: Frame) => f.method === "agentSession/presence");
});
afterAll(async () => {
  await device.close();
  await server.dispose();
});

describe("heartbeat", () => {
  it("keeps answering connections open and closes one that stopped answering; presence follows", async () => {
    const agent = await TestClient.open(server, server.devCredentials!.agent_token);
    await device.waitFor(() => presence().length === 2);
    // Ten intervals of pings answered: nothing is closed.
    await new Promise((resolve) => setTimeout(resolve, 10 * INTERVAL_MS));
    expect(server.stats().connections.map((c) => c.principal).sort()).toEqual(["agent:demo-agent", "device:dev-device"]);
    expect(presence()).toEqual([false, true]);

    stopReading(agent);
    await device.waitFor(() => presence().length === 3, 10_000);
    expect(presence()).toEqual([false, true, false]);
    expect(server.stats().connections.map((c) => c.principal)).toEqual(["device:dev-device"]);
    expect((await scrapeMetrics(server)).value("lineup_heartbeat_timeouts_total")).toBe(1);
    // The device kept answering throughout and is still served.
    expect((await device.call("agentSession/list", { limit: 1 })).sessions).toHaveLength(1);
    agent.ws.terminate();
  });
});
