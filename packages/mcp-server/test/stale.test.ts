/**
 * A call made from an inventory revision the Runtime has moved past. Over real parts: `lineup mcp` reaches
 * the AppServer through a proxy that holds what the server sends it, so the device publishes a new
 * revision (another app installed) that the MCP server has not heard of when its call goes out; the
 * Runtime refuses that call `stale_inventory_revision`, and the MCP client still gets the tool's one
 * result, from the call made again at the new revision. And when the revision is stale again after the
 * refresh, the client gets an MCP error that says so (a scripted agent client: the race twice in a row
 * cannot be arranged on real parts without the same kind of script).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectAgent } from "@lineup/agent-sdk/node";
import { LineUpError, type AppManifest, type AppScope, type RuntimeEnvelope } from "@lineup/protocol";
import type { AgentClient, SessionInventory, ToolCallHandle } from "@lineup/agent-sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createLineUpMcpServer } from "../src/index.js";
import { NOTES, connectClient, startHoldingProxy, startWorld, until, type World } from "./world.js";

const MEMO: AppManifest = {
  ...NOTES,
  app_scope: "memo" as AppScope,
  name: "Memo",
  tools: [{ ...NOTES.tools![0]!, method: "memo.count", title: "Count memos" }],
};

describe("a stale inventory revision", () => {
  let world: World;
  let proxy: Awaited<ReturnType<typeof startHoldingProxy>>;
  let client: Client;
  let observer: AgentClient;

  beforeAll(async () => {
    world = await startWorld();
    proxy = await startHoldingProxy(world.server.url);
    client = await connectClient("stdio", { url: proxy.url, httpUrl: world.server.httpUrl, token: world.agentToken, session: world.sessionId });
    observer = await connectAgent({ url: world.server.url, token: world.agentToken });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await observer?.close();
    await proxy?.close();
    await world?.close();
  });

  it("is refreshed and the call made once more: the client gets the tool's one result", async () => {
    const listed = async () => (await client.listTools()).tools.map((t) => t.name);
    for (let i = 0; i < 400 && !(await listed()).includes("notes.notes.count"); i++) await new Promise((r) => setTimeout(r, 25));
    await until(() => observer.inventory(world.sessionId)?.revision === 1, "the observer sees revision 1");
    const errors: string[] = [];
    const results: string[] = [];
    observer.onEvent((event) => {
      const envelope = event.kind === "envelope" ? (event.data as { envelope: RuntimeEnvelope }).envelope : undefined;
      if (envelope?.type === "lineup.tool.error") errors.push((envelope.payload as { code: string }).code);
      if (envelope?.type === "lineup.tool.result") results.push(envelope.correlation!.call_id!);
    });

    proxy.hold();
    await world.install(MEMO);
    await until(() => observer.inventory(world.sessionId)?.revision === 2, "the Runtime publishes revision 2");
    const call = client.callTool({ name: "notes.notes.count", arguments: { tag: "work" } }, undefined, { timeout: 30_000 });
    await until(() => errors.length === 1, "the Runtime refuses the call made at revision 1");
    expect(errors).toEqual(["stale_inventory_revision"]);
    proxy.release();

    const result = (await call) as CallToolResult;
    expect(result.structuredContent).toEqual({ count: 3 });
    expect(errors).toEqual(["stale_inventory_revision"]);
    await until(() => results.length === 1, "the result in the log");
    expect((await listed()).filter((n) => n !== "lineup.next_message" && n !== "lineup.reply" && n !== "lineup.ask").sort()).toEqual(["memo.memo.count", "notes.notes.count", "notes.notes.slow"]);
  }, 60_000);
});

describe("a revision still stale after the refresh", () => {
  it("is an MCP error carrying stale_inventory_revision, after exactly one refresh and one more call", async () => {
    const inventory: SessionInventory = { revision: 4, tools: [{ app_scope: "notes", method: "notes.count", contract_version: "1", title: "Count", description: "", input_schema: { type: "object" }, call_model: "query" }] };
    let invokes = 0;
    let refreshes = 0;
    const stale = (): ToolCallHandle => {
      invokes++;
      const result = Promise.reject(new LineUpError("stale_inventory_revision", `revision ${inventory.revision} is not the current one`));
      result.catch(() => undefined);
      return { callId: `c${invokes}`, sessionId: "s-1", method: "notes.count", progress: (async function* () {})(), result, cancel: () => undefined };
    };
    const session = { session_id: "s-1" };
    const scripted = {
      agentId: "agent-1",
      refreshSessions: () => Promise.resolve([session]),
      session: () => session,
      sessions: () => [session],
      inventory: () => inventory,
      refreshInventory: () => (refreshes++, Promise.resolve(inventory)),
      invokeTool: stale,
      onInventory: () => ({ dispose: () => undefined }),
      onTurn: () => ({ dispose: () => undefined }),
      onSession: () => ({ dispose: () => undefined }),
    } as unknown as AgentClient;
    const mcp = await createLineUpMcpServer({ client: scripted, session: "s-1" });
    await mcp.session;
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    await mcp.server.connect(serverEnd);
    const client = new Client({ name: "t", version: "1" });
    await client.connect(clientEnd);
    const failure = await client.callTool({ name: "notes.notes.count", arguments: {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(McpError);
    expect((failure as McpError).data).toEqual({ code: "stale_inventory_revision", retryable: false });
    expect((failure as McpError).message).toContain("list the tools again");
    expect({ invokes, refreshes }).toEqual({ invokes: 2, refreshes: 1 });
    await client.close();
    await mcp.close();
  });
});
