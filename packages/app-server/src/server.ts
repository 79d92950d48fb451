/**
 * The reference AppServer: one HTTP server on 127.0.0.1 (by default) with `GET /healthz`,
 * `GET /readyz`, `GET /metrics` (Prometheus text), the WebSocket endpoint `/rpc` speaking
 * `lineup.app-server.v1` (docs/app-server-protocol.md), over a SQLite log in `dataDir` or over a PostgreSQL
 * database that several server processes share (`db`), and `/mcp`, where an MCP client is an agent (docs/mcp.md;
 * each MCP session is an agent connection to `/rpc`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { enableOpenTelemetry } from "@lineup/protocol/opentelemetry";
import { CLOSE_CODES, DEFAULT_HEARTBEAT_INTERVAL_MS, DEFAULT_SERVER_LIMITS, answerFrame, decodeJsonRpc, jsonRpcFailure, type JsonRpcResponse, type ServerLimits } from "@lineup/protocol";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import { ADMIN_PATH, PAIR_PATH, createAdminEndpoint } from "./admin.js";
import { randomIds, systemClock, type Clock, type IdSource } from "./clock.js";
import { Connection, type ConnectionStats, type Corkable } from "./connection.js";
import { ConnectionDirectory } from "./directory.js";
import { onNotification, respond, toProtocolError } from "./rpc-methods.js";
import type { Services } from "./handlers/context.js";
import { IdempotentWrites } from "./idempotency.js";
import { stderrLogger, type Logger } from "./logger.js";
import { announceBoundSession } from "./handlers/session-bound.js";
import { ServerMetrics } from "./metrics.js";
import { MCP_PATH, lazyMcpEndpoint } from "./mcp-endpoint.js";
import { LocalPresence, SharedPresence, type Presence } from "./presence.js";
import { openStore, type Db } from "./store/database.js";
import { PostgresNotifications, REVOKED_CHANNEL } from "./store/notifications.js";
import { provisionAdminToken, type Revoked } from "./store/accounts.js";
import { forgetMissingInventories } from "./store/inventories.js";
import { findSession } from "./store/sessions.js";
import { PostgresDb } from "./store/sql.js";
import { ADMIN_TOKEN_FILE, createAgent, createDevice, createUser, provisionDevCredentials, writeDevCredentials, writeSecretFile, type DevCredentials } from "./store/principals.js";
import { Hub } from "./subscriptions.js";
import { WriteQueue, type WriteQueueStats } from "./write-queue.js";

export const SERVER_NAME = "lineup-app-server";
export const SERVER_VERSION = "0.1.0";
export const RPC_PATH = "/rpc";

export interface AppServerOptions {
  /** Directory of the SQLite file (created if missing), and of the dev credentials file. */
  readonly dataDir: string;
  /** A PostgreSQL URL (`postgres://…`): the store is that database instead of the SQLite file. */
  readonly db?: string;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: an ephemeral port; the handle reports the URL. */
  readonly port?: number;
  readonly logger?: Logger;
  /** Overrides of DEFAULT_SERVER_LIMITS (announced to clients in `initialize`). */
  readonly limits?: Partial<ServerLimits>;
  readonly clock?: Clock;
  readonly ids?: IdSource;
  /** Ping every connection this often; one silent through a whole interval is terminated. Default DEFAULT_HEARTBEAT_INTERVAL_MS (15 s). */
  readonly heartbeatIntervalMs?: number;
}

export interface AppServerStats {
  readonly connections: readonly ConnectionStats[];
  readonly writes: WriteQueueStats;
}

export interface AppServerHandle {
  /** `ws://host:port/rpc` */
  readonly url: string;
  /** `http://host:port` */
  readonly httpUrl: string;
  /** Set when this start provisioned the dev credentials (an empty data directory). */
  readonly devCredentials: DevCredentials | undefined;
  /** Set when this start made the store's first admin token (also written to `<data>/admin-token`). */
  readonly adminToken: string | undefined;
  /** Provisioning, for operators and tests: each returns the new principal's token. */
  readonly admin: {
    createUser(userId: string, displayName?: string): Promise<void>;
    createDevice(deviceId: string, userId: string): Promise<string>;
    createAgent(agentId: string): Promise<string>;
  };
  stats(): AppServerStats;
  /**
   * Drains and stops: accepts no new connection, commits the queued writes and sends their answers,
   * closes every connection with 1001 (`going_away`), waits up to `drainTimeoutMs` (default 10 000)
   * for the clients to close, then ends the rest and closes the store and the port.
   */
  close(options?: { readonly drainTimeoutMs?: number }): Promise<void>;
}

/** Sends a request's response, then what the handler asked to run after it (a subscription's first page). */
function sendReply(connection: Connection, response: JsonRpcResponse, afterReply: ReadonlyArray<() => void> | undefined, logger: Logger): void {
  if (logger.enabled("debug")) logger.debug("request answered", { connection: connection.id, request_id: response.id, ...("error" in response ? { code: (response.error.data as { code?: unknown } | undefined)?.code ?? response.error.code } : {}) });
  try {
    connection.send(response);
    if (afterReply !== undefined) for (const fn of afterReply) fn();
  } catch (error) {
    logger.error("frame handling failed", { error: describe(error) });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Gauges read at scrape time: connections, queue depths. */
function addGauges(metrics: ServerMetrics, connections: ReadonlySet<Connection>, writes: WriteQueue): void {
  const all = () => [...connections].map((c) => c.stats());
  metrics.gauge("lineup_connections", "Open WebSocket connections by role (none: not initialized yet).", () => {
    const byRole = new Map<string, number>([["device", 0], ["agent", 0], ["none", 0]]);
    for (const c of all()) byRole.set(c.role ?? "none", (byRole.get(c.role ?? "none") ?? 0) + 1);
    return [...byRole].map(([role, n]) => [{ role }, n] as const);
  });
  metrics.gauge("lineup_write_queue_depth", "Writes waiting for the next transaction.", () => [[undefined, writes.stats().queued]]);
  metrics.gauge("lineup_send_queue_frames", "Frames handed to sockets and not yet written, over all connections.", () => [[undefined, all().reduce((n, c) => n + c.framesInFlight, 0)]]);
  metrics.gauge("lineup_send_queue_bytes", "Bytes the sockets still buffer, over all connections.", () => [[undefined, all().reduce((n, c) => n + c.bufferedAmount, 0)]]);
  metrics.gauge("lineup_saturated_connections", "Connections at a send queue limit now.", () => [[undefined, all().filter((c) => c.saturated).length]]);
  metrics.gauge("lineup_subscriptions", "Active session subscriptions.", () => [[undefined, all().reduce((n, c) => n + c.subscriptions, 0)]]);
}

/** PostgreSQL: a revocation's transaction tells the other processes on the database (`lineup_revoked`). */
function announceRevoked(origin: string) {
  return async (db: Db, revoked: readonly Revoked[]): Promise<void> => {
    await db.run(`SELECT pg_notify('${REVOKED_CHANNEL}', p) FROM unnest(?::text[]) AS p`, [revoked.map((r) => `${origin} ${r.kind} ${r.id}`)]);
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

export async function startAppServer(options: AppServerOptions): Promise<AppServerHandle> {
  // Requests and commits become OpenTelemetry spans (no-ops until the program registers a tracer provider).
  enableOpenTelemetry();
  const logger = options.logger ?? stderrLogger;
  const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, ...options.limits };
  const store = await openStore({ dataDir: options.dataDir, db: options.db });
  const db = store.reader;
  const clock = options.clock ?? systemClock;
  const hub = new Hub(db, limits.max_page_events, logger);
  const metrics = new ServerMetrics();
  const writes = new WriteQueue(
    store.writer,
    clock,
    (events) => {
      metrics.eventsAppended.inc(events.length);
      hub.published(events);
    },
    logger,
    (seconds) => metrics.commitSeconds.observe(seconds),
  );
  let devCredentials: DevCredentials | undefined;
  let adminToken: string | undefined;
  try {
    devCredentials = await writes.submit((w) => provisionDevCredentials(w.db));
    adminToken = await writes.submit((w) => provisionAdminToken(w.db));
    const forgotten = await writes.submit((w) => forgetMissingInventories(w.db));
    if (forgotten > 0) logger.warn("sessions without their stored inventory report revision 0; their devices publish again", { sessions: forgotten });
  } catch (error) {
    await writes.close();
    await store.close();
    throw error;
  }
  if (devCredentials !== undefined) {
    writeDevCredentials(options.dataDir, devCredentials);
    logger.info("provisioned dev credentials", { file: `${options.dataDir}/dev-credentials.json` });
  }
  if (adminToken !== undefined) {
    writeSecretFile(options.dataDir, ADMIN_TOKEN_FILE, `${adminToken}\n`);
    logger.info("provisioned an admin token", { file: `${options.dataDir}/${ADMIN_TOKEN_FILE}` });
  }
  // Devices following an agent's sessions hear when it connects and when its last connection closes
  // (PostgreSQL: its first connection to any process on the database, its last one on all of them).
  let presence: Presence;
  let notifications: PostgresNotifications | undefined;
  const directory = new ConnectionDirectory((agentId, connected) => presence.local(agentId, connected));
  if (store.writer instanceof PostgresDb && store.postgres !== undefined) {
    const origin = store.writer.origin;
    const shared = new SharedPresence(db, hub, logger);
    presence = shared;
    notifications = new PostgresNotifications(
      store.postgres,
      {
        log: (sessionId, seq, from) => {
          if (from !== origin) hub.advanced(sessionId, seq);
        },
        presence: (agentId) => shared.heard(agentId),
        bound: (sessionId, from) => {
          if (from === origin) return;
          findSession(db, sessionId).then(
            (session) => {
              if (session !== undefined) announceBoundSession(directory, session);
            },
            (error: unknown) => logger.warn("agentSession/bound lookup failed", { session_id: sessionId, error: describe(error) }),
          );
        },
        revoked: (kind, id, from) => {
          if (from !== origin) closeRevoked([{ kind, id }]);
        },
        reconnected: (pid) => {
          shared.reconnected(pid);
          hub.rereadAll();
        },
      },
      logger,
    );
    try {
      await notifications.start();
    } catch (error) {
      shared.close();
      await writes.close();
      await store.close();
      throw error;
    }
  } else presence = new LocalPresence(() => directory, hub);
  const services: Services = {
    db,
    writes,
    idempotent: new IdempotentWrites(writes),
    hub,
    directory,
    presence,
    limits,
    clock,
    ids: options.ids ?? randomIds,
    logger,
    metrics,
    serverInfo: { name: SERVER_NAME, version: SERVER_VERSION },
  };
  const connections = new Set<Connection>();
  let closing = false;
  /** Closes this process's connections of revoked principals (4003); returns how many. */
  function closeRevoked(revoked: readonly Revoked[]): number {
    const hit = (connection: Connection): boolean => {
      const p = connection.principal;
      if (p === undefined) return false;
      return revoked.some((r) => (p.role === "agent" ? r.kind === "agent" && r.id === p.agent_id : (r.kind === "device" && r.id === p.device_id) || (r.kind === "user" && r.id === p.user_id)));
    };
    let closed = 0;
    for (const connection of connections) {
      // An initialize that read the token before the revocation committed is checked once it is done.
      if (connection.principal === undefined) {
        void connection.initializing?.then(() => {
          if (hit(connection)) connection.close(CLOSE_CODES.revoked, "credentials revoked");
        });
        continue;
      }
      if (!hit(connection)) continue;
      connection.close(CLOSE_CODES.revoked, "credentials revoked");
      closed++;
    }
    return closed;
  }
  const admin = createAdminEndpoint({
    db,
    writes,
    limits,
    ids: services.ids,
    clock,
    logger,
    toError: (error) => toProtocolError(error, services),
    revoked: closeRevoked,
    // PostgreSQL: the other processes on the database hear it when the revocation commits.
    announce: store.writer instanceof PostgresDb ? announceRevoked(store.writer.origin) : undefined,
  });
  addGauges(metrics, connections, writes);
  const mcp = lazyMcpEndpoint(() => url, logger);

  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method === "GET" && path === "/healthz") return json(res, 200, { status: "ok" });
    if (req.method === "GET" && path === "/metrics") {
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" });
      res.end(metrics.render());
      return;
    }
    if (req.method === "GET" && path === "/readyz") {
      if (closing) return json(res, 503, { status: "closing" });
      store.ping().then(
        (ready) => json(res, ready ? 200 : 503, { status: ready ? "ready" : "closing" }),
        () => json(res, 503, { status: "store_unavailable" }),
      );
      return;
    }
    if (path === MCP_PATH) return mcp.handle(req, res);
    if (path === ADMIN_PATH || path === PAIR_PATH) {
      (path === ADMIN_PATH ? admin.admin(req, res) : admin.pair(req, res)).catch((error: unknown) => {
        logger.error("admin request failed", { path, error: describe(error) });
        if (!res.headersSent) json(res, 500, { error: { code: "internal_error", message: "unexpected server error" } });
      });
      return;
    }
    return json(res, 404, { error: "not_found" });
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 2 * limits.max_message_bytes, perMessageDeflate: false });
  http.on("upgrade", (req, socket, head) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== RPC_PATH || closing) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, socket));
  });

  function accept(ws: WebSocket, socket: Corkable): void {
    const connection = new Connection(ws, socket, limits, logger, metrics, options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS);
    connections.add(connection);
    ws.on("message", (data: RawData, isBinary: boolean) => {
      connection.markHeard();
      onFrame(connection, data, isBinary);
    });
    ws.on("close", () => {
      connection.dispose();
      directory.remove(connection);
      connections.delete(connection);
    });
    ws.on("error", (error) => logger.warn("socket error", { connection: connection.id, error: error.message }));
  }

  function onFrame(connection: Connection, data: RawData, isBinary: boolean): void {
    if (isBinary) {
      connection.send(jsonRpcFailure(null, { code: "invalid_request", message: "binary frames are not accepted: send JSON-RPC as text" }));
      return;
    }
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    const decoded = decodeJsonRpc(bytes, { maxBytes: limits.max_message_bytes, maxDepth: limits.max_json_depth, maxBatch: limits.max_batch });
    // One request (the common frame) is answered without the batch machinery, as `answerFrame` would
    // but with fewer promise hops: a pending reply when it settles, a ready one in a microtask (it
    // still leaves after the frames this turn already handles).
    if (decoded.kind === "single" && decoded.item.kind === "request") {
      let afterReply: Array<() => void> | undefined;
      let reply: ReturnType<typeof respond>;
      try {
        reply = respond(services, connection, decoded.item.message, (fn) => (afterReply ??= []).push(fn));
      } catch (error) {
        logger.error("frame handling failed", { error: describe(error) });
        return;
      }
      if (reply instanceof Promise) {
        reply.then(
          (response) => sendReply(connection, response, afterReply, logger),
          (error: unknown) => logger.error("frame handling failed", { error: describe(error) }),
        );
      } else queueMicrotask(() => sendReply(connection, reply, afterReply, logger));
      return;
    }
    const afterReply: Array<() => void> = [];
    answerFrame(
      decoded,
      (request) => respond(services, connection, request, (fn) => afterReply.push(fn)),
      (notification) => onNotification(services, connection, notification),
    ).then(
      (reply) => {
        if (reply !== undefined) connection.send(reply);
        for (const fn of afterReply) fn();
      },
      (error: unknown) => logger.error("frame handling failed", { error: describe(error) }),
    );
  }

  try {
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject);
      http.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
        http.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    // A busy port (EADDRINUSE) or an address not ours: nothing was served; the store is closed again.
    presence.close();
    await writes.close();
    await notifications?.close();
    await store.close();
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === "EADDRINUSE" ? `port ${options.port} on ${options.host ?? "127.0.0.1"} is in use` : `cannot listen on ${options.host ?? "127.0.0.1"}:${options.port ?? 0}: ${(error as Error).message}`, { cause: error });
  }
  const address = http.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const httpUrl = `http://${host}:${address.port}`;
  const url = `ws://${host}:${address.port}${RPC_PATH}`;
  logger.info("app server listening", { url, httpUrl, store: store.location });

  return {
    url,
    httpUrl,
    devCredentials,
    adminToken,
    admin: {
      createUser: (userId, displayName) => writes.submit((w) => createUser(w.db, userId, displayName)),
      createDevice: (deviceId, userId) => writes.submit((w) => createDevice(w.db, deviceId, userId)),
      createAgent: (agentId) => writes.submit((w) => createAgent(w.db, agentId)),
    },
    stats: () => ({ connections: [...connections].map((c) => c.stats()), writes: writes.stats() }),
    async close(closeOptions = {}) {
      if (closing) return;
      closing = true;
      logger.info("draining", { connections: connections.size, queued_writes: writes.stats().queued });
      // MCP sessions first: each is an agent connection to /rpc, closed by its own client.
      await mcp.close();
      // No new connection from here on; the open ones stay until they are closed below.
      const portClosed = new Promise<void>((resolve) => http.close(() => resolve()));
      presence.close();
      // Queued writes commit (on PostgreSQL too, where that takes round trips) before any connection closes.
      await writes.close();
      // The answers of what just committed leave in this turn's promise jobs and the uncork after them.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const clientsClosed = new Promise<void>((resolve) => wss.close(() => resolve()));
      for (const connection of connections) connection.close(CLOSE_CODES.going_away, "server shutting down");
      // A client that does not close in time is ended (each connection also ends its own after 1 s).
      const backstop = setTimeout(() => {
        logger.warn("drain timed out: ending the remaining connections", { connections: wss.clients.size });
        for (const ws of wss.clients) ws.terminate();
      }, closeOptions.drainTimeoutMs ?? 10_000);
      await clientsClosed;
      clearTimeout(backstop);
      http.closeAllConnections();
      await portClosed;
      await notifications?.close();
      await store.close();
      logger.info("stopped");
    },
  };
}
