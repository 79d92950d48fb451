/**
 * LineUp as an MCP server, seen from the MCP SDK's own `Client`, over stdio (`lineup mcp` as a child
 * process) and over Streamable HTTP (the AppServer's `/mcp`), against the real AppServer and a Node Runtime
 * with an installed app: the tools listed with their names, schemas, annotations and `_meta`; a call's
 * structured result; a refused call's code; progress; a cancel that reaches the app; `list_changed` when
 * the app is disabled; a message the person wrote before the client connected, answered with `lineup.reply`;
 * a call made in a turn the person stops.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAppSdk } from "@lineup/app-sdk";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError, ToolListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AppScope } from "@lineup/protocol";
import { connectClient, NOTES, startWorld, until, type Carrier, type World } from "./world.js";

describe.each<Carrier>(["stdio", "http"])("LineUp as an MCP server over %s", (carrier) => {
  let world: World;
  let client: Client;
  const stderr: string[] = [];
  const listChanged: number[] = [];

  beforeAll(async () => {
    world = await startWorld();
    client = await connectClient(carrier, { url: world.server.url, httpUrl: world.server.httpUrl, token: world.agentToken, session: world.sessionId, stderr });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged.push(Date.now()));
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await world?.close();
  });

  it("lists the conversation tools and the session's inventory, mapped", async () => {
    let tools = (await client.listTools()).tools;
    // The inventory reaches the agent's connection shortly after it follows the session.
    for (let i = 0; i < 200 && !tools.some((t) => t.name === "notes.notes.count"); i++) {
      await new Promise((r) => setTimeout(r, 25));
      tools = (await client.listTools()).tools;
    }
    expect(tools.map((t) => t.name)).toEqual(["lineup.next_message", "lineup.reply", "lineup.ask", "notes.notes.count", "notes.notes.slow"]);
    const count = tools.find((t) => t.name === "notes.notes.count")!;
    expect(count).toMatchObject({
      title: "Count notes",
      description: "How many notes carry a tag.",
      inputSchema: { type: "object", properties: { tag: { type: "string" } } },
      outputSchema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
      annotations: { readOnlyHint: true, idempotentHint: true },
      _meta: { "lineup/tool": { app_scope: "notes", method: "notes.count", contract_version: "1", call_model: "query", inventory_revision: 1 } },
    });
    expect(tools.find((t) => t.name === "notes.notes.slow")!.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false, destructiveHint: true });
  }, 30_000);

  it("calls an app's tool and returns its one result as structured content and text", async () => {
    const result = (await client.callTool({ name: "notes.notes.count", arguments: { tag: "work" } })) as CallToolResult;
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toEqual({ count: 3 });
    expect(result.content).toEqual([{ type: "text", text: '{"count":3}' }]);
  }, 20_000);

  it("returns a refused call as an isError result carrying LineUp's code; an unknown tool is an MCP error", async () => {
    const refused = (await client.callTool({ name: "notes.notes.count", arguments: { tag: 5 } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(refused._meta?.["lineup/error"]).toMatchObject({ code: "invalid_arguments", retryable: false });
    expect((refused.content[0] as { text: string }).text).toMatch(/^invalid_arguments: /);
    const unknown = await client.callTool({ name: "notes.notes.nothing", arguments: {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(unknown).toBeInstanceOf(McpError);
    expect((unknown as McpError).data).toMatchObject({ code: "tool_not_visible" });
  }, 20_000);

  it("sends the app's progress as notifications/progress", async () => {
    const progress: { progress: number; message?: string | undefined }[] = [];
    const call = client.callTool({ name: "notes.notes.slow", arguments: {} }, undefined, { onprogress: (p) => void progress.push(p), timeout: 30_000 });
    await until(() => world.slowCalls.size === 1, "the app has the call");
    await until(() => progress.some((p) => p.message?.includes("half way") === true), "the progress reached the MCP client");
    [...world.slowCalls.values()][0]!();
    const result = (await call) as CallToolResult;
    expect(result.structuredContent).toEqual({ tidied: true });
    expect(progress[0]).toMatchObject({ progress: 1, message: "accepted" });
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
    expect(progress.at(-1)!.message).toBe("tidying · 50% · half way");
  }, 30_000);

  it("cancels the LineUp call when the MCP client cancels its request", async () => {
    const before = world.cancelled.length;
    const abort = new AbortController();
    const call = client.callTool({ name: "notes.notes.slow", arguments: {} }, undefined, { signal: abort.signal, timeout: 30_000 });
    await until(() => world.slowCalls.size === 1, "the app has the call");
    const callId = [...world.slowCalls.keys()][0]!;
    abort.abort("the person changed their mind");
    await expect(call).rejects.toThrow();
    await until(() => world.cancelled.length > before, "the Runtime told the app to stop");
    expect(world.cancelled.at(-1)).toBe(callId);
    expect(world.slowCalls.size).toBe(0);
  }, 30_000);

  it("tells the client tools/list_changed when the app is disabled, and lists without it; an app without tools changes no list", async () => {
    const before = listChanged.length;
    // A new inventory revision that lists one more app and no other tool, then one without notes' tools: in the
    // session's order, the client hears of the second alone.
    const { tools: _tools, ...withoutTools } = NOTES;
    await world.install({ ...withoutTools, app_scope: "sketches" as AppScope, name: "Sketches" });
    expect((await world.runtime.appManager.disable("notes")).status).toBe("succeeded");
    await until(() => listChanged.length > before, "notifications/tools/list_changed");
    await new Promise((r) => setTimeout(r, 300));
    expect(listChanged.length).toBe(before + 1);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(["lineup.next_message", "lineup.reply", "lineup.ask"]);
    const gone = await client.callTool({ name: "notes.notes.count", arguments: {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((gone as McpError).data).toMatchObject({ code: "tool_not_visible" });
  }, 30_000);

  it("hands over a message the person wrote before the client connected, and its reply reaches the device", async () => {
    const chat = createAppSdk(world.runtime.appPort("chat"));
    await chat.actions.dispatch({ type: "conversation.send_text", conversation_id: world.sessionId, text: "Are you there?" });
    await until(() => world.runtime.appPort("chat").view().queued_actions === 0, "the message on the server");
    const late = await connectClient(carrier, { url: world.server.url, httpUrl: world.server.httpUrl, token: world.agentToken, session: world.sessionId });
    try {
      const heard = (await late.callTool({ name: "lineup.next_message", arguments: { timeout_ms: 20_000 } }, undefined, { timeout: 30_000 })) as CallToolResult;
      expect(heard.structuredContent).toMatchObject({ status: "message", session_id: world.sessionId, text: "Are you there?" });
      const replied = (await late.callTool({ name: "lineup.reply", arguments: { text: "Yes, **here**." } })) as CallToolResult;
      expect(replied.structuredContent).toMatchObject({ turn_state: "completed" });
      const said = async () => (await chat.agentMessages.list({ conversation_id: world.sessionId, limit: 200 })).messages.some((m) => JSON.stringify(m).includes("Yes, **here**."));
      for (let i = 0; i < 400 && !(await said()); i++) await new Promise((r) => setTimeout(r, 25));
      expect(await said()).toBe(true);
    } finally {
      await late.close();
    }
  }, 60_000);

  it("ends a call made in a turn when the person stops the turn: an isError result with cancelled_by_user", async () => {
    const chat = createAppSdk(world.runtime.appPort("chat"));
    const late = await connectClient(carrier, { url: world.server.url, httpUrl: world.server.httpUrl, token: world.agentToken, session: world.sessionId });
    try {
      await world.runtime.appManager.enable("notes");
      const listed = async () => (await late.listTools()).tools.some((t) => t.name === "notes.notes.slow");
      for (let i = 0; i < 400 && !(await listed()); i++) await new Promise((r) => setTimeout(r, 25));
      await chat.actions.dispatch({ type: "conversation.send_text", conversation_id: world.sessionId, text: "Tidy, please" });
      const heard = (await late.callTool({ name: "lineup.next_message", arguments: { timeout_ms: 20_000 } }, undefined, { timeout: 30_000 })) as CallToolResult;
      expect(heard.structuredContent).toMatchObject({ status: "message", text: "Tidy, please" });
      const before = world.cancelled.length;
      const call = late.callTool({ name: "notes.notes.slow", arguments: {} }, undefined, { timeout: 30_000 });
      await until(() => world.slowCalls.size === 1, "the app has the call");
      await chat.actions.cancelTurn(world.sessionId);
      const ended = (await call) as CallToolResult;
      expect(ended.isError).toBe(true);
      expect(ended._meta?.["lineup/error"]).toMatchObject({ code: "cancelled_by_user" });
      await until(() => world.cancelled.length > before, "the app told to stop");
    } finally {
      await late.close();
    }
  }, 60_000);
});
