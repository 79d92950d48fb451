/**
 * PostgreSQL: what the other server processes on the same database did, heard through LISTEN/NOTIFY.
 *
 * - `lineup_log`: a write transaction announces, for every session it appended to, the session and
 *   its new head (`writeHeads` in log.ts, delivered by PostgreSQL only when the transaction commits).
 *   The payload names the session and seq; subscribers read the rows from the log.
 * - `lineup_presence`: an agent's first connection on a process opened, or its last one closed.
 * - `lineup_bound`: a session was started (payload: the process, the session id), for
 *   `agentSession/bound` to the connections of the other processes.
 * - `lineup_revoked`: an operator revoked a principal (payload: the process, `user|device|agent`, the id); the
 *   other processes close their connections of it.
 *
 * One dedicated connection listens. If it breaks, it connects again (after a short pause, doubling up
 * to a few seconds) and `reconnected` runs: nothing was heard meanwhile, so subscribers read the log
 * again from their cursors. Its backend pid names this process in `agent_presence`.
 */
import type pg from "pg";
import type { Logger } from "../logger.js";
import { loadPg } from "./pg.js";

export const LOG_CHANNEL = "lineup_log";
export const PRESENCE_CHANNEL = "lineup_presence";
export const BOUND_CHANNEL = "lineup_bound";
export const REVOKED_CHANNEL = "lineup_revoked";

export interface NotificationHandlers {
  /** Another transaction committed events up to `seq` in the session. */
  log(sessionId: string, seq: number, origin: string): void;
  /** An agent's presence changed on some process. */
  presence(agentId: string): void;
  /** A process started the session. */
  bound(sessionId: string, origin: string): void;
  /** A process disabled a user, or revoked a device or agent. */
  revoked(kind: "user" | "device" | "agent", id: string, origin: string): void;
  /** The listening connection is (again) up, with this backend pid; nothing heard while it was down. */
  reconnected(listenerPid: number): void;
}

/** `lineup_log` payload: `<origin> <seq> <session_id>` (the session id last: it may hold spaces). */
export function logPayload(origin: string, sessionId: string, seq: number): string {
  return `${origin} ${seq} ${sessionId}`;
}

function parseLogPayload(payload: string): { origin: string; seq: number; sessionId: string } | undefined {
  const first = payload.indexOf(" ");
  const second = payload.indexOf(" ", first + 1);
  if (first <= 0 || second <= first) return undefined;
  const seq = Number(payload.slice(first + 1, second));
  if (!Number.isSafeInteger(seq) || seq < 1) return undefined;
  return { origin: payload.slice(0, first), seq, sessionId: payload.slice(second + 1) };
}

const MAX_PAUSE_MS = 4_000;

export class PostgresNotifications {
  private client: pg.Client | undefined;
  private closed = false;
  private pauseMs = 100;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly handlers: NotificationHandlers,
    private readonly logger: Logger,
  ) {}

  /** The backend pid of the listening connection while it is up. */
  get listenerPid(): number | undefined {
    return (this.client as (pg.Client & { processID?: number }) | undefined)?.processID;
  }

  /** Connects and listens; throws if the first connection fails (the server does not start half-deaf). */
  async start(): Promise<number> {
    return this.connect();
  }

  private async connect(): Promise<number> {
    const pg = await loadPg();
    const client = new pg.Client({ ...this.config, application_name: "lineup-app-server-listen" });
    client.on("notification", (message) => this.heard(message));
    client.on("error", (error) => this.lost(client, error));
    client.on("end", () => this.lost(client, new Error("the listening connection ended")));
    await client.connect();
    try {
      await client.query(`LISTEN ${LOG_CHANNEL}; LISTEN ${PRESENCE_CHANNEL}; LISTEN ${BOUND_CHANNEL}; LISTEN ${REVOKED_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end();
      throw new Error("closed");
    }
    this.client = client;
    this.pauseMs = 100;
    const pid = this.listenerPid!;
    this.handlers.reconnected(pid);
    return pid;
  }

  private heard(message: pg.Notification): void {
    try {
      if (message.channel === LOG_CHANNEL) {
        const parsed = parseLogPayload(message.payload ?? "");
        if (parsed === undefined) this.logger.warn("ignored a malformed log notification", { payload: (message.payload ?? "").slice(0, 200) });
        else this.handlers.log(parsed.sessionId, parsed.seq, parsed.origin);
      } else if (message.channel === PRESENCE_CHANNEL && message.payload !== undefined) {
        this.handlers.presence(message.payload);
      } else if (message.channel === REVOKED_CHANNEL && message.payload !== undefined) {
        const [origin, kind, ...id] = message.payload.split(" ");
        if (origin !== undefined && (kind === "user" || kind === "device" || kind === "agent") && id.length > 0) this.handlers.revoked(kind, id.join(" "), origin);
      } else if (message.channel === BOUND_CHANNEL && message.payload !== undefined) {
        const space = message.payload.indexOf(" ");
        if (space > 0) this.handlers.bound(message.payload.slice(space + 1), message.payload.slice(0, space));
      }
    } catch (error) {
      this.logger.error("notification handling failed", { channel: message.channel, error: error instanceof Error ? error.message : String(error) });
    }
  }

  private lost(client: pg.Client, error: Error): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.logger.warn("the LISTEN connection broke; connecting again", { error: error.message });
    client.end().catch(() => undefined);
    this.retry();
  }

  private retry(): void {
    if (this.closed || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.connect().catch((error: unknown) => {
        this.logger.warn("LISTEN connection failed", { error: error instanceof Error ? error.message : String(error) });
        this.pauseMs = Math.min(MAX_PAUSE_MS, this.pauseMs * 2);
        this.retry();
      });
    }, this.pauseMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
