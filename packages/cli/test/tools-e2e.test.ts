/**
 * A tool call end to end over real parts: the reference AppServer (WebSocket, SQLite), a Node Runtime
 * on SQLite with a signed app installed from its bundle, and a remote agent through the agent SDK.
 * The agent sees the inventory the Runtime published, calls a tool, the app's handler answers, and
 * the agent gets exactly one result; a call the inventory does not allow is refused with its code.
 */
import { describe, expect, it } from "vitest";
import { connectAgent, type AgentClient } from "@lineup/agent-sdk";
import { nodeWebSocketTransport } from "@lineup/agent-sdk/node";
import { silentLogger, startAppServer } from "@lineup/app-server";
import type { AppManifest, AppScope } from "@lineup/protocol";
import { generatePublisherKey, packBundle, signBundle } from "@lineup/runtime";
import { createNodeRuntime } from "@lineup/runtime/node";
import { tempDirs, until } from "../../../test/support/temp-dirs.js";

const temp = tempDirs();

const notes: AppManifest = {
  format: "lineup.app.v1",
  app_scope: "notes" as AppScope,
  version: "1.0.0",
  name: "Notes",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1"] },
  entrypoints: [{ id: "main", kind: "primary" }],
  tools: [
    {
      method: "notes.count",
      contract_version: "1",
      title: "Count notes",
      input_schema: { type: "object", properties: { tag: { type: "string" } }, additionalProperties: false },
      output_schema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"], additionalProperties: false },
      call_model: "query",
      activation_requirement: "activation_not_required",
    },
  ],
};

describe("tool call end to end (AppServer + Node Runtime + agent SDK)", () => {
  it("publishes the inventory, routes the agent's call to the app, and returns one result", async () => {
    const server = await startAppServer({ dataDir: temp("lineup-e2e-server-"), port: 0, logger: silentLogger });
    const credentials = server.devCredentials!;
    const key = await generatePublisherKey();
    const runtime = await createNodeRuntime({
      serverUrl: server.url,
      token: credentials.device_token,
      dataDir: temp("lineup-e2e-device-"),
      trustedPublishers: [key.trustedKey],
      backoff: { baseMs: 20, capMs: 200 },
      relistIntervalMs: 100,
    });
    let agent: AgentClient | undefined;
    try {
      await runtime.start();
      agent = await connectAgent({ url: server.url, token: credentials.agent_token, transport: nodeWebSocketTransport(), sessionPollMs: 50 });
      await runtime.whenOnline();

      const packed = await packBundle({ manifest: notes, files: new Map([["index.html", new TextEncoder().encode("<!doctype html><title>Notes</title>")]]) });
      if (!packed.ok) throw new Error(packed.error.message);
      const signed = await signBundle(packed.value, key.privateKey);
      if (!signed.ok) throw new Error(signed.error.message);
      expect((await runtime.appManager.install(signed.value, { approved: true })).status).toBe("succeeded");

      const port = runtime.appPort("notes");
      port.registerToolHandler({
        call(call) {
          void port.reportTool(call.call_id, { kind: "result", result: { count: call.arguments["tag"] === "work" ? 3 : 7 } });
        },
        cancel() {},
      });

      const { conversation_id: sessionId } = await runtime.conversations.start({ agent_id: agent.agentId, workspace_id: "ws-1", title: "tools" });
      await until(() => agent!.inventory(sessionId)?.tools.some((t) => t.method === "notes.count") === true, 10_000, "the agent sees the inventory");
      expect(agent.inventory(sessionId)?.revision).toBe(1);

      const call = agent.invokeTool(sessionId, "notes.count", { tag: "work" });
      expect(await call.result).toEqual({ count: 3 });
      const updates: unknown[] = [];
      for await (const update of call.progress) updates.push(update);
      expect(updates).toEqual([expect.objectContaining({ status: "accepted" })]);

      const bad = agent.invokeTool(sessionId, "notes.count", { tag: 5 });
      await expect(bad.result).rejects.toMatchObject({ code: "invalid_arguments" });

      // Disabling the app republishes: the agent's next inventory has no notes tools.
      expect((await runtime.appManager.disable("notes")).status).toBe("succeeded");
      await until(() => agent!.inventory(sessionId)?.revision === 2, 10_000, "republished inventory");
      expect(agent.inventory(sessionId)?.tools).toEqual([]);
    } finally {
      await agent?.close();
      await runtime.stop();
      await server.close();
    }
  }, 30_000);
});
