/**
 * The stored → live seam when the appends come from another server on the same PostgreSQL database:
 * this server hears of them only through LISTEN/NOTIFY, and knows no head of the session until a
 * subscriber here asks for one. Two servers run in this process, each with its own store, hub and
 * listening connection, as two processes would. (PostgreSQL only: the `app-server-postgres` test project.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentEnvelope, key, START, startTestServer, TestClient, type Frame, type TestServer } from "./helpers.js";
import { seamStream, subscribeAtHeadRounds } from "./support/seam.js";

let writing: TestServer;
let following: TestServer;

beforeAll(async () => {
  writing = await startTestServer();
  following = await startTestServer({ db: writing.db! });
});
afterAll(async () => {
  await following?.dispose();
  await writing?.dispose();
});

function append(client: TestClient, sessionId: string, id: string): Promise<Frame> {
  return client.call("agentSession/envelope/send", { session_id: sessionId, idempotency_key: key("seam"), envelope: agentEnvelope(sessionId, id) });
}

describe("two servers on one PostgreSQL database", () => {
  it("subscribers joining at the head hear caughtUp before the events another server commits while they subscribe", async () => {
    // A new session's head is unknown to the following server until a subscriber there asks for it.
    await subscribeAtHeadRounds({ writeTo: writing, followOn: following, rounds: 12, seed: 0x5ea4, prefix: "s-seam-x" });
  }, 60_000);

  it("a subscriber that comes back after the last one left gets what was committed elsewhere meanwhile, without another append", async () => {
    const device = await TestClient.open(writing, writing.devCredentials!.device_token);
    await device.call("agentSession/start", START("s-return"));
    const w = await TestClient.open(writing, writing.devCredentials!.agent_token);
    for (let i = 0; i < 3; i++) await append(w, "s-return", `before-${i}`);

    const first = await TestClient.open(following, writing.devCredentials!.device_token);
    await first.call("agentSession/subscribe", { session_id: "s-return", after_seq: 0 });
    await append(w, "s-return", "heard");
    await first.waitFor((f) => f.method === "agentSession/event" && f.params.seq === 5, 15_000);
    await first.close();

    // Nobody here follows the session while these commit on the other server.
    for (let i = 0; i < 3; i++) await append(w, "s-return", `away-${i}`);
    const again = await TestClient.open(following, writing.devCredentials!.device_token);
    const result = await again.call("agentSession/subscribe", { session_id: "s-return", after_seq: 5 });
    expect(result.head_seq).toBe(8);
    await again.waitFor((f) => f.method === "agentSession/caughtUp" && f.params.session_id === "s-return", 15_000);
    expect(seamStream(again, "s-return")).toEqual([6, 7, 8, "caughtUp:8"]);
    await again.close();
    await w.close();
    await device.close();
  }, 30_000);
});
