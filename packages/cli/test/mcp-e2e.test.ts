/**
 * Issue 22 §2 end to end over real parts: the reference AppServer (WebSocket, SQLite), a Node Runtime on SQLite with
 * a real MCP server from npm installed as an app (`lineup app from-mcp`, its server an `mcp-stdio` back-end), and the
 * demo agent. The person asks the agent to use the server's tool; the agent finds it in the inventory the Runtime
 * published, calls it, and tells the person what the server answered.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connectAgent, runDemoAgent } from "@lineup/agent-sdk";
import { nodeWebSocketTransport } from "@lineup/agent-sdk/node";
import { silentLogger, startAppServer } from "@lineup/app-server";
import type { AgentAppMessage } from "@lineup/runtime";
import { createNodeRuntime, readTrustedKeys } from "@lineup/runtime/node";
import { npmServerDist } from "../../runtime/test/helpers/mcp-servers.js";
import { until } from "../../runtime/test/helpers/runtime-harness.js";
import { runCli, type CliIo } from "../src/index.js";

const work = realpathSync(mkdtempSync(join(tmpdir(), "lineup-mcp-e2e-")));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const quiet: CliIo = { out: () => undefined, err: () => undefined };

describe("an MCP server as an app, end to end with the demo agent", () => {
  it("the person asks, the demo agent calls the MCP server's tool through the Runtime, and says what it answered", async () => {
    expect(await runCli(["keygen", join(work, "keys")], quiet)).toBe(0);
    const bundle = join(work, "clock.lineup");
    const entry = join(npmServerDist("@modelcontextprotocol/server-basic-preact"), "index.js");
    expect(await runCli(["app", "from-mcp", "--scope", "clock", "--key", join(work, "keys", "publisher.key"), "--out", bundle, "--", "node", entry, "--stdio"], quiet)).toBe(0);
    const trusted = await readTrustedKeys(join(work, "keys", "publisher.pub.json"));
    if (!trusted.ok) throw new Error(trusted.error.message);

    const server = await startAppServer({ dataDir: join(work, "server"), port: 0, logger: silentLogger });
    const credentials = server.devCredentials!;
    const runtime = await createNodeRuntime({ serverUrl: server.url, token: credentials.device_token, dataDir: join(work, "device"), trustedPublishers: trusted.value, backoff: { baseMs: 20, capMs: 200 }, relistIntervalMs: 100 });
    const client = await connectAgent({ url: server.url, token: credentials.agent_token, transport: nodeWebSocketTransport(), sessionPollMs: 50 });
    const agent = runDemoAgent(client);
    try {
      await runtime.start();
      await runtime.whenOnline();
      expect(await runtime.appManager.install(new Uint8Array(readFileSync(bundle)), { approved: true })).toMatchObject({ status: "succeeded" });
      const chat = runtime.appPort("chat");
      const seen: AgentAppMessage[] = [];
      chat.subscribeMessages({ include_pending: true }, (message) => void seen.push(message));
      const { conversation_id } = await chat.startConversation({ agent_id: "demo-agent", workspace_id: "default", title: "Time" });
      await chat.dispatch({ type: "conversation.send_text", conversation_id, text: "please use `clock.get_time`" });
      const reply = () => seen.map((m) => JSON.stringify(m)).find((m) => m.includes("clock.get_time` answered"));
      await until(() => reply() !== undefined, 45_000, "the agent's reply");
      expect(reply()).toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    } finally {
      agent.dispose();
      await client.close();
      await runtime.stop();
      await server.close();
    }
  }, 120_000);
});
