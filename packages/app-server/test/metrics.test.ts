/**
 * `GET /metrics`: scraped over HTTP and parsed as Prometheus text, its numbers agree with what the
 * clients did and saw — connections by role, events appended and fanned out, the commit histogram.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentEnvelope, key, scrapeMetrics, START, startTestServer, TestClient, type Frame, type TestServer } from "./helpers.js";

let server: TestServer;
let device: TestClient;
let agent: TestClient;

beforeAll(async () => {
  server = await startTestServer();
  device = await TestClient.open(server, server.devCredentials!.device_token);
  agent = await TestClient.open(server, server.devCredentials!.agent_token);
});
afterAll(async () => {
  await device.close();
  await agent.close();
  await server.dispose();
});

describe("/metrics", () => {
  it("counts connections by role, events appended and fanned out, and commits in a histogram", async () => {
    const before = await scrapeMetrics(server);
    expect(before.value("lineup_connections", { role: "device" })).toBe(1);
    expect(before.value("lineup_connections", { role: "agent" })).toBe(1);
    expect(before.value("lineup_events_appended_total")).toBe(0);

    await device.call("agentSession/start", START("s-metrics"));
    await device.call("agentSession/subscribe", { session_id: "s-metrics", after_seq: 0 });
    for (let i = 0; i < 5; i++) await agent.call("agentSession/envelope/send", { session_id: "s-metrics", idempotency_key: key("m"), envelope: agentEnvelope("s-metrics", `m-${i}`) });
    const head = (await device.waitFor((f: Frame) => f.method === "agentSession/event" && f.params.seq === 6)).params.seq as number;

    const after = await scrapeMetrics(server);
    expect(after.value("lineup_events_appended_total")).toBe(head);
    expect(after.value("lineup_events_fanned_out_total")).toBe(device.events("s-metrics").length);
    expect(after.types.get("lineup_commit_duration_seconds")).toBe("histogram");
    const buckets = after.samples.filter((s) => s.name === "lineup_commit_duration_seconds_bucket");
    const count = after.value("lineup_commit_duration_seconds_count")!;
    // The writes since the first scrape (the server may have committed before it: its dev credentials).
    const since = count - (before.value("lineup_commit_duration_seconds_count") ?? 0);
    expect(since).toBeGreaterThanOrEqual(1);
    expect(since).toBeLessThanOrEqual(head);
    expect(buckets.at(-1)).toEqual({ name: "lineup_commit_duration_seconds_bucket", labels: { le: "+Inf" }, value: count });
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
    expect(after.value("lineup_commit_duration_seconds_sum")).toBeGreaterThan(0);
    expect(after.value("lineup_subscriptions")).toBe(1);
    expect(after.value("lineup_write_queue_depth")).toBe(0);
    for (const name of ["lineup_send_queue_frames", "lineup_send_queue_bytes", "lineup_saturated_connections", "lineup_overloaded_total", "lineup_slow_consumers_closed_total"]) {
      expect(after.value(name), name).toBeGreaterThanOrEqual(0);
    }
  });
});
