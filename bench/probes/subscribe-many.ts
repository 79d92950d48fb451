/**
 * Probe (not a suite): a device subscribing to many sessions of one agent at once, as a Runtime does when it comes
 * online, on SQLite and on PostgreSQL (a throwaway cluster): ms until every subscription has its answer, its presence
 * and its caughtUp. The device keeps 64 subscribes in flight; each round is a new connection.
 *
 *   node --conditions=source --import tsx bench/probes/subscribe-many.ts [sessions] [rounds]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger, startAppServer } from "@lineup/app-server";
import { startPostgresCluster } from "../../test/support/postgres.js";
import { Client } from "../load/client.js";
import { seedConversations } from "../suites/host.js";

const SESSIONS = Number(process.argv[2] ?? 1000);
const ROUNDS = Number(process.argv[3] ?? 4);
const IN_FLIGHT = 64;

const cluster = await startPostgresCluster();
try {
  for (const kind of ["sqlite", "postgres"] as const) {
    const dataDir = mkdtempSync(join(tmpdir(), "lineup-probe-subscribe-"));
    const db = kind === "postgres" ? await cluster.createDatabase("probe") : undefined;
    const server = await startAppServer({ dataDir, logger: silentLogger, ...(db === undefined ? {} : { db }) });
    try {
      await seedConversations(server, SESSIONS);
      for (let round = 0; round < ROUNDS; round++) {
        const device = await Client.open(server.url, server.devCredentials!.device_token);
        let presence = 0;
        let caughtUp = 0;
        let settled: () => void = () => undefined;
        const told = new Promise<void>((resolve) => (settled = resolve));
        device.onNotification = (frame) => {
          if (frame.method === "agentSession/presence") presence += 1;
          if (frame.method === "agentSession/caughtUp") caughtUp += 1;
          if (presence === SESSIONS && caughtUp === SESSIONS) settled();
        };
        const started = performance.now();
        let next = 0;
        const subscriber = async () => {
          while (next < SESSIONS) await device.call("agentSession/subscribe", { session_id: `bench-earlier-${next++}`, after_seq: 1 });
        };
        await Promise.all(Array.from({ length: IN_FLIGHT }, subscriber));
        await told;
        console.log(`${kind}: ${SESSIONS} subscriptions answered, told presence and caught up in ${(performance.now() - started).toFixed(0)} ms (round ${round + 1})`);
        device.close();
      }
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  await cluster.stop();
}
