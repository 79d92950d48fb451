/**
 * An MCP back-end's connection (docs/manifest.md §8b, `mcp-stdio` and `mcp-http`): the MCP SDK's own `Client` over
 * whichever transport the runner made (a supervised program's stdio, or Streamable HTTP), and the one place where
 * MCP's answers and errors become LineUp's.
 *
 * - A tool call's result is `{content, structuredContent?}`: the MCP `CallToolResult` without its `isError` and
 *   `_meta`. A result with `isError: true` is the tool's own failure: `handler_failed` (`data.reason: "tool_error"`)
 *   with the text the server gave.
 * - Given `hostCalls` (the back-end service's), the client declares `elicitation` (form mode) and `sampling`, and
 *   hands the server's requests to the host: `elicitation/create` is `mcp.elicit` (the person is asked; the answer
 *   is `{action: "accept", content} | {action: "decline"} | {action: "cancel"}`), `sampling/createMessage` is
 *   `mcp.sample` (refused `policy_denied` unless the app policy lets this app's server sample). A refusal reaches the
 *   server as an MCP error with the code's JSON-RPC number and `data.code`. While the person is being asked, the
 *   call's time limit is held: it counts only the time the server itself takes. Without `hostCalls` the client
 *   declares nothing and the SDK answers both `Method not found` (-32601).
 * - MCP errors become codes of the table: a JSON-RPC error whose `data.code` is one keeps it; `Method not found` is
 *   `method_not_found`, `Invalid params` `invalid_params`, a timeout `operation_expired`, a closed connection
 *   `handler_failed` (`crashed`), an aborted call `request_cancelled`; anything else `handler_failed`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, ErrorCode as McpErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { ERROR_CODES, LineUpError, isErrorCode, type JsonValue, isRecord } from "@lineup/protocol";
import type { Clock } from "../core/ports.js";
import { MAX_BACKEND_MESSAGE_BYTES, type BackendHostCalls } from "./runner.js";
import { mcpToolViewUri } from "./mcp-manifest.js";
import { mcpViewOrigins, type McpViewOrigins } from "./mcp-view.js";

export const MCP_CLIENT_INFO = { name: "lineup", version: "1.0.0" } as const;

export interface McpCallOptions {
  readonly signal?: AbortSignal;
  readonly timeout_ms: number;
}

/** One initialized MCP session with a back-end. */
export interface McpConnection {
  /** Calls the server's tool `name`; resolves with `{content, structuredContent?}` or rejects with a `LineUpError`. */
  callTool(name: string, args: JsonValue, options: McpCallOptions): Promise<JsonValue>;
  /** Reads one resource (an MCP Apps view's `ui://` page): the server's `contents`. */
  readResource(uri: string, options: McpCallOptions): Promise<JsonValue>;
  close(): Promise<void>;
}

export interface McpConnectOptions {
  readonly timeout_ms: number;
  /** Times each call's own limit (which waits while the person is asked). */
  readonly clock: Clock;
  readonly signal?: AbortSignal;
  /** Where the server's own requests go (`mcp.elicit`, `mcp.sample`); without it the client declares no capability. */
  readonly hostCalls?: BackendHostCalls;
}

/** Any error an MCP call ends with, as a `LineUpError` of the table. */
export function mcpErrorToLineUp(error: unknown, what: string): LineUpError {
  if (error instanceof LineUpError) return error;
  if (error instanceof McpError) {
    const data = error.data;
    const carried = isRecord(data) ? data["code"] : undefined;
    if (typeof carried === "string" && isErrorCode(carried)) return new LineUpError(carried, error.message.slice(0, 500));
    switch (error.code) {
      case McpErrorCode.MethodNotFound:
        return new LineUpError("method_not_found", `${what}: ${error.message.slice(0, 500)}`);
      case McpErrorCode.InvalidParams:
        return new LineUpError("invalid_params", `${what}: ${error.message.slice(0, 500)}`);
      case McpErrorCode.RequestTimeout:
        return new LineUpError("operation_expired", `${what} ran past its time limit`);
      case McpErrorCode.ConnectionClosed:
        return new LineUpError("handler_failed", `${what}: the server's connection closed`, { data: { reason: "crashed" } });
      default:
        return new LineUpError("handler_failed", `${what}: ${error.message.slice(0, 500)}`);
    }
  }
  if (error instanceof Error && error.name === "AbortError") return new LineUpError("request_cancelled", "the call was cancelled");
  return new LineUpError("handler_failed", `${what}: ${error instanceof Error ? error.message.slice(0, 500) : "failed"}`);
}

const textOf = (content: unknown): string =>
  Array.isArray(content)
    ? content
        .filter((block): block is { type: "text"; text: string } => isRecord(block) && block["type"] === "text" && typeof block["text"] === "string")
        .map((block) => block.text)
        .join("\n")
    : "";

/** A `LineUpError` as the MCP error a server hears: the code's JSON-RPC number, and the code in `data`. */
function toMcpError(error: unknown): McpError {
  const e = mcpErrorToLineUp(error, "the host");
  return new McpError(ERROR_CODES[e.code].rpc, e.message, { code: e.code });
}

/** Connects the SDK's `Client` over `transport` (the initialize handshake) and returns the session. */
export async function connectMcp(transport: Transport, options: McpConnectOptions): Promise<McpConnection> {
  const hostCalls = options.hostCalls;
  const client = new Client(MCP_CLIENT_INFO, { capabilities: hostCalls === undefined ? {} : { elicitation: { form: {} }, sampling: {} } });
  /** Requests of the server's being answered by the person: while any is, calls' time limits wait. */
  let asking = 0;
  if (hostCalls !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      asking += 1;
      try {
        return (await hostCalls("mcp.elicit", request.params as unknown as JsonValue, { signal: extra.signal })) as never;
      } catch (error) {
        throw toMcpError(error);
      } finally {
        asking -= 1;
      }
    });
    client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
      try {
        return (await hostCalls("mcp.sample", request.params as unknown as JsonValue, { signal: extra.signal })) as never;
      } catch (error) {
        throw toMcpError(error);
      }
    });
  }
  try {
    await client.connect(transport, { timeout: options.timeout_ms, ...(options.signal === undefined ? {} : { signal: options.signal }) });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw mcpErrorToLineUp(error, "the MCP server's initialize");
  }
  const requestOptions = (o: McpCallOptions) => ({ timeout: o.timeout_ms, ...(o.signal === undefined ? {} : { signal: o.signal }) });
  /**
   * A tool call's own time limit, which waits while the person is asked: it expires only once `timeout_ms` passed
   * with no question open, and then aborts the call `operation_expired` (the SDK tells the server it was cancelled).
   */
  const timedCall = (callOptions: McpCallOptions) => {
    const expiry = new AbortController();
    let cancel: () => void = () => undefined;
    const arm = (): void => {
      cancel = options.clock.setTimer(callOptions.timeout_ms, () => (asking > 0 ? arm() : expiry.abort(new LineUpError("operation_expired", `the call ran past its ${callOptions.timeout_ms} ms`))));
    };
    arm();
    const signal = callOptions.signal === undefined ? expiry.signal : AbortSignal.any([callOptions.signal, expiry.signal]);
    return { options: { timeout: 2_147_483_647, signal }, done: () => cancel() };
  };
  return {
    async callTool(name, args, callOptions) {
      let result: Record<string, unknown>;
      const timed = timedCall(callOptions);
      try {
        result = (await client.callTool({ name, arguments: isRecord(args) ? args : {} }, undefined, timed.options)) as Record<string, unknown>;
      } catch (error) {
        throw mcpErrorToLineUp(error, `tool ${name}`);
      } finally {
        timed.done();
      }
      if (result["isError"] === true) {
        throw new LineUpError("handler_failed", (textOf(result["content"]) || `tool ${name} failed`).slice(0, 500), { data: { reason: "tool_error" } });
      }
      const answer: Record<string, unknown> = { content: Array.isArray(result["content"]) ? result["content"] : [] };
      if (result["structuredContent"] !== undefined) answer["structuredContent"] = result["structuredContent"];
      if (JSON.stringify(answer).length > MAX_BACKEND_MESSAGE_BYTES) throw new LineUpError("invalid_result", `tool ${name}'s result is over ${MAX_BACKEND_MESSAGE_BYTES} bytes`);
      return answer as JsonValue;
    },
    async readResource(uri, callOptions) {
      try {
        const read = await client.readResource({ uri }, requestOptions(callOptions));
        return { contents: read.contents } as unknown as JsonValue;
      } catch (error) {
        throw mcpErrorToLineUp(error, `resource ${uri}`);
      }
    },
    close: () => client.close(),
  };
}

/** What an MCP server says of itself: its name and every tool and resource it lists (all pages). */
export interface McpServerDescription {
  readonly server: { readonly name: string; readonly version: string; readonly title?: string };
  readonly instructions?: string;
  readonly tools: readonly Record<string, unknown>[];
  readonly resources: readonly Record<string, unknown>[];
  /** Each `ui://` view a tool names, read (`resources/read`): the origins its `_meta.ui.csp` declares. */
  readonly views: Readonly<Record<string, McpViewOrigins>>;
}

/**
 * Connects over `transport`, reads `tools/list` and `resources/list` to their last page and each tool's `ui://` view
 * (which must be one MCP App page, or the description fails `invalid_result`), and closes.
 */
export async function describeMcpServer(transport: Transport, timeoutMs = 30_000): Promise<McpServerDescription> {
  const client = new Client(MCP_CLIENT_INFO);
  try {
    await client.connect(transport, { timeout: timeoutMs });
    const tools: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
      tools.push(...(page.tools as Record<string, unknown>[]));
      cursor = page.nextCursor;
    } while (cursor !== undefined && tools.length < 1_000);
    const resources: Record<string, unknown>[] = [];
    if (client.getServerCapabilities()?.resources !== undefined) {
      cursor = undefined;
      do {
        const page = await client.listResources(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
        resources.push(...(page.resources as Record<string, unknown>[]));
        cursor = page.nextCursor;
      } while (cursor !== undefined && resources.length < 1_000);
    }
    const views: Record<string, McpViewOrigins> = {};
    for (const tool of tools) {
      const uri = mcpToolViewUri(isRecord(tool["_meta"]) ? (tool["_meta"] as Record<string, JsonValue>) : undefined);
      if (uri === undefined || Object.prototype.hasOwnProperty.call(views, uri)) continue;
      const read = await client.readResource({ uri }, { timeout: timeoutMs });
      views[uri] = mcpViewOrigins(uri, { contents: read.contents } as unknown as JsonValue);
    }
    const info = client.getServerVersion();
    const instructions = client.getInstructions();
    return { server: { name: info?.name ?? "MCP server", version: info?.version ?? "0.0.0", ...(info?.title === undefined ? {} : { title: info.title }) }, ...(instructions === undefined ? {} : { instructions }), tools, resources, views };
  } catch (error) {
    throw mcpErrorToLineUp(error, "the MCP server");
  } finally {
    await client.close().catch(() => undefined);
  }
}
