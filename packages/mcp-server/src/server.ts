/**
 * `createLineUpMcpServer`: one LineUp session, as its agent sees it, as an MCP server (docs/mcp.md).
 *
 * It sits on an agent SDK client (`connectAgent`), so every call takes the agent's path — the same
 * checks, audit and one terminal result as any LineUp agent's — and the server adds only the mapping:
 * - `tools/list`: the conversation tools, then the session's current inventory (`inventory-tools.ts`);
 * - `notifications/tools/list_changed` each time an inventory revision changes the tools it lists;
 * - `tools/call` → `invokeTool` with the current revision; `stale_inventory_revision` reads the
 *   inventory again (`refreshInventory`) and calls once more, then is an MCP error;
 * - the Runtime's receipts and progress → `notifications/progress` when the request carries a
 *   `progressToken`; `notifications/cancelled` (the request's signal) → the LineUp call is cancelled;
 * - a result → `structuredContent` plus its JSON as text; an error → `errors.ts`.
 */
import { LineUpError, type JsonObject } from "@lineup/protocol";
import { silentDiagnostics, type AgentClient, type DiagnosticsSink, type Disposable, type IncomingTurn, type ToolCallUpdate } from "@lineup/agent-sdk";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { CONVERSATION_TOOLS, CONVERSATION_TOOL_NAMES, TurnInbox, callConversationTool } from "./conversation.js";
import { asLineUpError, failedCall, mcpError } from "./errors.js";
import { structuredResult, toolTable, type ListedTool, type McpToolTable } from "./inventory-tools.js";

export const MCP_SERVER_NAME = "lineup";
export const MCP_SERVER_VERSION = "0.1.0";

/** Which session the server serves: one the agent is bound to, or `"new"`, the next one bound to it. */
export type SessionChoice = string;

export interface LineUpMcpServerOptions {
  readonly client: AgentClient;
  readonly session: SessionChoice;
  readonly diagnostics?: DiagnosticsSink;
}

export interface LineUpMcpServer {
  /** The MCP server: connect it to a transport (stdio, Streamable HTTP, in-memory). */
  readonly server: Server;
  /** The session served; undefined while `"new"` waits for one. */
  sessionId(): string | undefined;
  /** Resolves with the session served once there is one. */
  readonly session: Promise<string>;
  /** Stops listening to the client and closes the MCP server (the client is the caller's). */
  close(): Promise<void>;
}

/**
 * Resolves the session choice: an id must name a session the agent is bound to (else `session_not_found`);
 * `"new"` resolves with the first session bound to the agent after this call.
 */
export async function chooseSession(client: AgentClient, choice: SessionChoice): Promise<{ readonly session: Promise<string>; readonly dispose: () => void }> {
  const listed = await client.refreshSessions();
  if (choice !== "new") {
    if (!listed.some((s) => s.session_id === choice) && client.session(choice) === undefined) {
      throw new LineUpError("session_not_found", `the agent ${client.agentId} is bound to no session ${choice}`);
    }
    return { session: Promise.resolve(choice), dispose: () => undefined };
  }
  const known = new Set([...listed.map((s) => s.session_id), ...client.sessions().map((s) => s.session_id)]);
  let subscription: Disposable | undefined;
  const session = new Promise<string>((resolve) => {
    subscription = client.onSession((s) => {
      if (known.has(s.session_id)) return;
      subscription?.dispose();
      resolve(s.session_id);
    });
  });
  return { session, dispose: () => subscription?.dispose() };
}

export async function createLineUpMcpServer(options: LineUpMcpServerOptions): Promise<LineUpMcpServer> {
  const { client } = options;
  const diagnostics = options.diagnostics ?? silentDiagnostics;
  const chosen = await chooseSession(client, options.session);
  let sessionId: string | undefined;
  const inbox = new TurnInbox();
  const server = new Server({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION }, { capabilities: { tools: { listChanged: true } } });
  let table: McpToolTable = toolTable(undefined, CONVERSATION_TOOL_NAMES);
  let closed = false;

  const listChanged = (): void => {
    if (closed) return;
    server.sendToolListChanged().catch((error: unknown) => diagnostics({ kind: "agent_error", message: "could not send tools/list_changed", error }));
  };
  /** What the client lists: each tool, by name (its descriptor's `inventory_revision` aside, which every revision moves). */
  const listedAs = (t: McpToolTable): string => JSON.stringify([...t.byName].map(([name, listed]) => [name, listed.tool]));
  /**
   * The table for the session's inventory now; tells the client when what it lists changed. An inventory also
   * carries apps, components and capabilities: a revision that changed only those changes no tool here.
   */
  const refreshTable = (): McpToolTable => {
    const inventory = sessionId === undefined ? undefined : client.inventory(sessionId);
    if (inventory?.revision !== table.revision || table.byName.size !== (inventory?.tools.length ?? 0)) {
      const before = listedAs(table);
      table = toolTable(inventory, CONVERSATION_TOOL_NAMES);
      if (listedAs(table) !== before) listChanged();
    }
    return table;
  };

  /** Turns handed over before the session was known (`"new"`, or the id's promise not yet settled); those of the chosen session go to the inbox then. */
  const pendingTurns: IncomingTurn[] = [];
  // Declared before the listeners: `onTurn` hands the turns that waited for a listener over at once.
  const disposables: Disposable[] = [
    client.onInventory((id) => {
      if (id === sessionId) refreshTable();
    }),
    client.onTurn((turn) => {
      if (turn.sessionId === sessionId) inbox.push(turn);
      else if (sessionId === undefined) pendingTurns.push(turn);
    }),
  ];
  const session = chosen.session.then((id) => {
    sessionId = id;
    for (const turn of pendingTurns.splice(0)) if (turn.sessionId === id) inbox.push(turn);
    refreshTable();
    return id;
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...CONVERSATION_TOOLS, ...[...refreshTable().byName.values()].map((t) => t.descriptor)] }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    const args = (request.params.arguments ?? {}) as JsonObject;
    try {
      if (CONVERSATION_TOOL_NAMES.has(name)) return await callConversationTool(name, args, { client, sessionId: () => session, inbox, signal: extra.signal });
      if (sessionId === undefined) throw mcpError("session_not_found", `no session yet: ${name} is not available until a session is bound to the agent`);
      const listed = refreshTable().byName.get(name);
      if (listed === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${name} (inventory revision ${table.revision})`, { code: "tool_not_visible", retryable: false });
      const progressToken = request.params._meta?.progressToken;
      const progress = progressToken === undefined ? undefined : progressSender(progressToken, (n) => extra.sendNotification(n));
      return await callAppTool(client, sessionId, listed, args, extra.signal, inbox.currentSignal(), progress, () => refreshTable());
    } catch (error) {
      if (error instanceof McpError) throw error;
      return failedCall(error);
    }
  });

  return {
    server,
    sessionId: () => sessionId,
    session,
    async close() {
      if (closed) return;
      closed = true;
      chosen.dispose();
      for (const d of disposables) d.dispose();
      await server.close();
    },
  };
}

type ProgressSink = (update: ToolCallUpdate) => void;

/** Sends each receipt and progress as `notifications/progress`: `progress` counts them (MCP wants it to grow), the message says what happened. */
function progressSender(token: string | number, send: (notification: ServerNotification) => Promise<void>): ProgressSink {
  let count = 0;
  return (update) => {
    count++;
    const message =
      update.type === "receipt"
        ? [update.status, update.code, update.message].filter((p) => p !== undefined).join(": ")
        : [update.stage, update.progress === undefined ? undefined : `${Math.round(update.progress * 100)}%`, update.message].filter((p) => p !== undefined).join(" · ");
    const notification: ServerNotification = {
      method: "notifications/progress",
      params: { progressToken: token, progress: count, ...(message === "" ? {} : { message }), _meta: { "lineup/update": update as unknown as JsonObject } },
    };
    send(notification).catch(() => undefined); // the client may be gone; the call's result still settles it
  };
}

/** The app tool call: through `invokeTool` at the current revision, once more after a stale one. */
async function callAppTool(
  client: AgentClient,
  sessionId: string,
  listed: ListedTool,
  args: JsonObject,
  requestSignal: AbortSignal,
  turnSignal: AbortSignal | undefined,
  progress: ProgressSink | undefined,
  refreshTable: () => McpToolTable,
): Promise<CallToolResult> {
  // A turn the person stops ends its calls (the agent SDK then sends no cancel: the Runtime ends them itself).
  const signal = turnSignal === undefined ? requestSignal : AbortSignal.any([requestSignal, turnSignal]);
  for (let attempt = 1; ; attempt++) {
    const call = client.invokeTool(sessionId, listed.tool.method, args, { appScope: listed.tool.app_scope, signal });
    const following = progress === undefined ? Promise.resolve() : follow(call.progress, progress);
    try {
      const value = await call.result;
      await following;
      const structured = structuredResult(value, listed.shape);
      return { structuredContent: structured, content: [{ type: "text", text: JSON.stringify(value) }] };
    } catch (error) {
      const e = asLineUpError(error);
      if (e.code !== "stale_inventory_revision") return failedCall(e);
      if (attempt > 1) throw mcpError("stale_inventory_revision", `${listed.descriptor.name}: the inventory changed again while calling; list the tools again (${e.message})`);
      await client.refreshInventory(sessionId);
      const now = refreshTable();
      const still = [...now.byName.values()].find((t) => t.tool.app_scope === listed.tool.app_scope && t.tool.method === listed.tool.method);
      if (still === undefined) throw mcpError("tool_not_visible", `${listed.descriptor.name} is no longer in the session's inventory (revision ${now.revision})`);
    }
  }
}

async function follow(updates: AsyncIterable<ToolCallUpdate>, sink: ProgressSink): Promise<void> {
  for await (const update of updates) sink(update);
}
