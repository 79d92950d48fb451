/**
 * The AppServer's `/mcp` endpoint (MCP Streamable HTTP, docs/mcp.md): `POST /mcp?session=<id|new>` with
 * `Authorization: Bearer <agent token>` and an `initialize` opens an MCP session; its requests carry the
 * `Mcp-Session-Id` it was given and the same token. Each MCP session is one agent connection to the
 * AppServer's own `/rpc` with that token, so the agent path, its checks and audit are the same as for
 * any agent. A wrong token is 401, a device's token 403, an unknown MCP session 404, a session the agent
 * is not bound to a JSON-RPC error with `session_not_found`. An MCP session no request has used for
 * `idleTimeoutMs` (none in flight: a `lineup.next_message` waiting keeps it) is closed with its agent
 * connection; its client then gets 404 and initializes again. One token holds at most
 * `maxSessionsPerToken` MCP sessions at once (each is an agent connection): the next initialize is 429
 * `rate_limited` until one closes or idles out, so a client that never reuses its session cannot pile up
 * connections on the server.
 */
import { createHash, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ERROR_CODES, LineUpError, type ErrorCode } from "@lineup/protocol";
import { connectAgent } from "@lineup/agent-sdk/node";
import type { AgentClient, DiagnosticsSink } from "@lineup/agent-sdk";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { asLineUpError } from "../errors.js";
import { createLineUpMcpServer, type LineUpMcpServer } from "../server.js";

export interface McpHttpEndpointOptions {
  /** The AppServer's own `ws://…/rpc`, read when an MCP session opens. */
  readonly rpcUrl: () => string;
  readonly diagnostics?: DiagnosticsSink;
  /** Default 30 minutes. */
  readonly idleTimeoutMs?: number;
  /** Open MCP sessions one token may hold. Default 16. */
  readonly maxSessionsPerToken?: number;
}

export const DEFAULT_MCP_IDLE_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_MCP_SESSIONS_PER_TOKEN = 16;

export interface McpHttpEndpoint {
  /** Answers one HTTP request to the endpoint's path. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Open MCP sessions. */
  readonly sessions: number;
  /** Closes every MCP session and its agent connection. */
  close(): Promise<void>;
}

interface OpenSession {
  readonly tokenHash: string;
  readonly client: AgentClient;
  readonly mcp: LineUpMcpServer;
  readonly transport: StreamableHTTPServerTransport;
  /** When the last request ended, and how many are in flight. */
  lastUsed: number;
  inFlight: number;
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

function refuse(res: ServerResponse, status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: ERROR_CODES[code].rpc, message, data: { code, retryable: ERROR_CODES[code].retryable } } }));
}

function bearer(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
  return match?.[1];
}

export function createMcpHttpEndpoint(options: McpHttpEndpointOptions): McpHttpEndpoint {
  const open = new Map<string, OpenSession>();
  let closing = false;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_MCP_IDLE_TIMEOUT_MS;
  const maxPerToken = options.maxSessionsPerToken ?? DEFAULT_MCP_SESSIONS_PER_TOKEN;
  /** Sessions opening or open, per token hash: counted from the start of an initialize, so parallel ones cannot pass the cap together. */
  const held = new Map<string, number>();
  const hold = (tokenHash: string, delta: number): void => {
    const next = (held.get(tokenHash) ?? 0) + delta;
    if (next <= 0) held.delete(tokenHash);
    else held.set(tokenHash, next);
  };
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, session] of open) {
      if (session.inFlight > 0 || now - session.lastUsed < idleTimeoutMs) continue;
      open.delete(id);
      void session.transport.close().catch(() => undefined).then(() => dispose(session));
    }
  }, Math.max(10, Math.min(60_000, idleTimeoutMs / 4)));
  sweep.unref();

  const dispose = async (session: Pick<OpenSession, "client" | "mcp" | "tokenHash">): Promise<void> => {
    hold(session.tokenHash, -1);
    await session.mcp.close().catch(() => undefined);
    await session.client.close().catch(() => undefined);
  };

  async function start(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    const choice = new URL(req.url ?? "/", "http://localhost").searchParams.get("session");
    if (choice === null || choice === "") return refuse(res, 400, "invalid_params", "name the session: /mcp?session=<session id> or /mcp?session=new");
    const tokenHash = sha256(token);
    if ((held.get(tokenHash) ?? 0) >= maxPerToken) {
      return refuse(res, 429, "rate_limited", `this token already holds ${maxPerToken} MCP sessions: reuse one (Mcp-Session-Id), end one (DELETE), or wait until one idles out`, { "retry-after": "60" });
    }
    hold(tokenHash, 1);
    let client: AgentClient | undefined;
    try {
      client = await connectAgent({ url: options.rpcUrl(), token, clientInfo: { name: "lineup-mcp-http", version: "0.1.0" }, ...(options.diagnostics === undefined ? {} : { diagnostics: options.diagnostics }) });
    } catch (error) {
      hold(tokenHash, -1);
      const e = asLineUpError(error);
      if (e.code === "unauthorized") return refuse(res, 401, "unauthorized", "unknown token", { "www-authenticate": "Bearer" });
      if (e.code === "forbidden") return refuse(res, 403, "forbidden", e.message);
      return refuse(res, 503, e.code, e.message);
    }
    let mcp: LineUpMcpServer;
    try {
      mcp = await createLineUpMcpServer({ client, session: choice, ...(options.diagnostics === undefined ? {} : { diagnostics: options.diagnostics }) });
    } catch (error) {
      hold(tokenHash, -1);
      await client.close();
      const e = asLineUpError(error);
      return refuse(res, e.code === "session_not_found" ? 404 : 500, e.code, e.message);
    }
    const session = { client, mcp, tokenHash };
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void open.set(id, { ...session, transport, lastUsed: Date.now(), inFlight: 0 }),
      onsessionclosed: (id) => {
        const closed = open.get(id);
        open.delete(id);
        if (closed !== undefined) void dispose(closed);
      },
    });
    await mcp.server.connect(transport);
    await transport.handleRequest(req, res);
    // Not an initialize (or a refused one): no MCP session was opened, so nothing of it is kept.
    if (transport.sessionId === undefined || !open.has(transport.sessionId)) await dispose(session);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (closing) return refuse(res, 503, "overloaded", "the server is shutting down");
    const token = bearer(req);
    if (token === undefined) return refuse(res, 401, "unauthorized", "send the agent's token: Authorization: Bearer <token>", { "www-authenticate": "Bearer" });
    const id = req.headers["mcp-session-id"];
    if (id === undefined) {
      if (req.method !== "POST") return refuse(res, 400, "invalid_request", "open an MCP session with a POST of initialize first");
      return start(req, res, token);
    }
    const session = typeof id === "string" ? open.get(id) : undefined;
    if (session === undefined) return refuse(res, 404, "not_found", "no such MCP session: initialize again");
    if (session.tokenHash !== sha256(token)) return refuse(res, 403, "forbidden", "this MCP session was opened with another token");
    session.inFlight++;
    // A response streamed (SSE) outlives handleRequest: the session is in use until the response ends.
    res.once("close", () => {
      session.inFlight--;
      session.lastUsed = Date.now();
    });
    await session.transport.handleRequest(req, res);
  }

  return {
    handle(req, res) {
      handle(req, res).catch((error: unknown) => {
        options.diagnostics?.({ kind: "agent_error", message: "MCP request failed", error });
        const e = error instanceof LineUpError ? error : new LineUpError("internal_error", "the MCP request failed");
        refuse(res, 500, e.code, e.message);
      });
    },
    get sessions() {
      return open.size;
    },
    async close() {
      closing = true;
      clearInterval(sweep);
      const all = [...open.values()];
      open.clear();
      await Promise.all(all.map(async (s) => (await s.transport.close().catch(() => undefined), await dispose(s))));
    },
  };
}
