/**
 * Graceful drain on SIGTERM, in a real child process: while an agent has writes in flight, SIGTERM
 * makes the server answer what it committed, close its clients with 1001 (going away) and exit 0. On
 * restart every acknowledged write is in the log at its acknowledged seq, gapless; what was not
 * acknowledged is either absent or was refused with a typed error. The process logs pino-format JSON
 * lines (numeric level, time, msg), including the drain.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { agentEnvelope, RpcError, spawnServer, START, startTestServer, tempDir, TestClient, type Frame } from "./helpers.js";

const dir = tempDir("lineup-drain-");
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  dir.remove();
});

describe("SIGTERM", () => {
  it("answers committed writes, closes clients with 1001 and exits 0, losing nothing acknowledged", async () => {
    const server = await spawnServer(dir.path, children, ["--log-level", "debug"]);
    const creds = JSON.parse(readFileSync(join(dir.path, "dev-credentials.json"), "utf8")) as { device_token: string; agent_token: string };
    const device = await TestClient.open({ url: server.url }, creds.device_token);
    await device.call("agentSession/start", START("s-drain"));
    const agent = await TestClient.open({ url: server.url }, creds.agent_token);

    // 300 writes sent without waiting; SIGTERM as the first is acknowledged, the rest still in flight. Sent from the
    // acknowledgement itself: a poll could find them all answered on a busy machine, with none left to drain.
    const acked = new Map<string, number>();
    const refused: string[] = [];
    let ackedAtSignal: number | undefined;
    const outcomes = Array.from({ length: 300 }, (_, i) =>
      agent.call("agentSession/envelope/send", { session_id: "s-drain", idempotency_key: `drain-${i}`, envelope: agentEnvelope("s-drain", `e-${i}`) }, 20_000).then(
        (result: Frame) => {
          acked.set(`e-${i}`, result.seq as number);
          if (ackedAtSignal !== undefined) return;
          ackedAtSignal = acked.size;
          server.child.kill("SIGTERM");
        },
        (error: unknown) => void (error instanceof RpcError ? refused.push(`e-${i}`) : undefined),
      ),
    );

    const [agentClosed, deviceClosed, exit] = await Promise.all([agent.closed, device.closed, server.exited]);
    expect(agentClosed.code).toBe(1001);
    expect(deviceClosed.code).toBe(1001);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(server.stdout()).toMatch(/SIGTERM: draining\nstopped\n$/);
    await Promise.race([Promise.all(outcomes), new Promise((r) => setTimeout(r, 1_000))]);
    expect(acked.size).toBeGreaterThan(0);
    // Writes in flight at the signal were committed and answered during the drain.
    expect(acked.size).toBeGreaterThan(ackedAtSignal!);

    const lines = server.stderr().trim().split("\n").map((l) => JSON.parse(l) as { level: number; time: number; msg: string; connection?: number; request_id?: unknown });
    for (const line of lines) {
      expect([20, 30, 40, 50]).toContain(line.level);
      expect(typeof line.time).toBe("number");
      expect(typeof line.msg).toBe("string");
    }
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(["app server listening", "draining", "stopped"]));
    expect(lines.some((l) => l.msg === "request answered" && typeof l.connection === "number" && l.request_id !== undefined)).toBe(true);

    // Restarted on the same data: every acknowledged write at its seq, the log gapless.
    const again = await startTestServer({ dataDir: dir.path });
    try {
      const reader = await TestClient.open(again, creds.device_token);
      const events: Frame[] = [];
      for (let more = true; more; ) {
        const page = await reader.call("agentSession/events/read", { session_id: "s-drain", after_seq: events.length });
        events.push(...page.events);
        more = page.has_more;
      }
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      const stored = new Map(events.filter((e) => e.kind === "envelope").map((e) => [e.data.envelope.id as string, e.seq as number]));
      for (const [id, seq] of acked) expect(stored.get(id), id).toBe(seq);
      for (const id of refused) expect(stored.has(id), id).toBe(false);
      await reader.close();
    } finally {
      await again.close();
    }
  }, 60_000);
});
