/**
 * A conversation started on one device of a person shows on their other device at once, over real parts: the
 * reference AppServer (WebSocket, SQLite) and two Node Runtimes on SQLite, one user, neither listing its sessions
 * on a timer. The server's `agentSession/bound` hint to the other device is what tells it: the device lists its
 * sessions then (the list is the truth) and follows the new one.
 */
import { expect, it } from "vitest";
import { silentLogger, startAppServer } from "@lineup/app-server";
import { createNodeRuntime, type NodeRuntime } from "@lineup/runtime/node";
import { tempDirs, until } from "../../../test/support/temp-dirs.js";

const temp = tempDirs();

it("a conversation started on the laptop shows on the tablet at once, with its title, and the tablet follows it", async () => {
  const server = await startAppServer({ dataDir: temp("lineup-bound-server-"), port: 0, logger: silentLogger });
  const credentials = server.devCredentials!;
  const tabletToken = await server.admin.createDevice("dev-tablet", "dev-user");
  // No relist on a timer: only the hint can tell the tablet before its next connection.
  const device = (token: string): Promise<NodeRuntime> =>
    createNodeRuntime({ serverUrl: server.url, token, dataDir: temp("lineup-bound-device-"), backoff: { baseMs: 20, capMs: 200 }, relistIntervalMs: 0 });
  const laptop = await device(credentials.device_token);
  const tablet = await device(tabletToken);
  try {
    await laptop.start();
    await tablet.start();
    await laptop.whenOnline();
    await tablet.whenOnline();
    expect(tablet.conversations.list()).toEqual([]);

    const { conversation_id } = await laptop.conversations.start({ agent_id: "demo-agent", workspace_id: "ws-1", title: "Started on the laptop" });
    await until(() => tablet.conversations.list().some((c) => c.conversation_id === conversation_id), 5_000, "the conversation on the tablet");
    expect(tablet.conversations.list().find((c) => c.conversation_id === conversation_id)?.title).toBe("Started on the laptop");
    // Followed, not only listed: the subscription's presence report (no agent is connected) reached the tablet.
    await until(() => tablet.conversations.list().find((c) => c.conversation_id === conversation_id)?.agent_connected === false, 5_000, "the tablet following the session");
  } finally {
    await laptop.stop();
    await tablet.stop();
    await server.close();
  }
}, 30_000);
