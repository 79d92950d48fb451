/**
 * Whether a session's bound agent is connected, for `agentSession/presence`. On SQLite the server is
 * the only process: its own connection directory is the truth. On PostgreSQL several processes share
 * the database: each records the agents connected to it in `agent_presence` (under the backend pid of
 * its LISTEN connection) and announces a change on `lineup_presence`; an agent is connected when any
 * live process has it. A process killed without closing its connections leaves rows behind: the
 * others sweep rows whose LISTEN connection is gone from `pg_stat_activity` and announce them.
 */
import type { ConnectionDirectory } from "./directory.js";
import type { Logger } from "./logger.js";
import { PRESENCE_CHANNEL } from "./store/notifications.js";
import type { Db } from "./store/sql.js";
import { tellPresence, type Hub, type Subscription } from "./subscriptions.js";

export interface Presence {
  /** The connection directory's news: the agent's first connection here opened (true), or its last one closed. */
  local(agentId: string, connected: boolean): void;
  /** Tells a new device subscription whether its session's agent is connected now (to any process). */
  tell(sub: Subscription): void;
  close(): void;
}

/** One process: the directory decides. */
export class LocalPresence implements Presence {
  constructor(
    private readonly directory: () => ConnectionDirectory,
    private readonly hub: Hub,
  ) {}

  local(agentId: string, connected: boolean): void {
    this.hub.agentPresence(agentId, connected);
  }

  tell(sub: Subscription): void {
    tellPresence(sub, this.directory().agentConnections(sub.agentId).length > 0);
  }

  close(): void {}
}

/** How often a process looks for presence rows of processes that died. */
const SWEEP_MS = 1_000;

/**
 * Several processes on one PostgreSQL database. What this process's subscribers of an agent's sessions were told is
 * kept per agent (`told`): every one of them was told that, one step after another of the agent's settlements
 * (`settle`), and a change another process announces is settled there too. A new subscription is told the kept
 * answer, so a device subscribing to a thousand sessions of one agent asks the database once, not a thousand times.
 */
export class SharedPresence implements Presence {
  private listenerPid: number | undefined;
  private readonly here = new Set<string>();
  /** What every subscriber here of the agent's sessions was last told, per agent (none: nobody here follows it). */
  private readonly told = new Map<string, boolean>();
  /** One settlement at a time per agent, so what subscribers hear follows the order of the changes. */
  private readonly settling = new Map<string, Promise<void>>();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly hub: Hub,
    private readonly logger: Logger,
  ) {
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  local(agentId: string, connected: boolean): void {
    if (connected) this.here.add(agentId);
    else this.here.delete(agentId);
    this.settle(agentId, () => this.record(agentId, connected));
  }

  /** The agent's answer in turn after its settlements: the kept one, or asked of the database (and kept) when there is none. */
  tell(sub: Subscription): void {
    this.step(sub.agentId, async () => {
      let now = this.told.get(sub.agentId);
      if (now === undefined) {
        now = await this.connected(sub.agentId);
        this.told.set(sub.agentId, now);
      }
      tellPresence(sub, now);
    });
  }

  private async connected(agentId: string): Promise<boolean> {
    if (this.here.has(agentId)) return true;
    const row = await this.db.get("SELECT 1 FROM agent_presence p JOIN pg_stat_activity a ON a.pid = p.listener_pid WHERE p.agent_id = ? LIMIT 1", [agentId]);
    return row !== undefined;
  }

  /** Another process announced a change of the agent's presence. */
  heard(agentId: string): void {
    this.settle(agentId);
  }

  /** The LISTEN connection is up with this pid: the agents connected here are recorded under it. */
  reconnected(listenerPid: number): void {
    this.listenerPid = listenerPid;
    for (const agentId of this.here) this.settle(agentId, () => this.record(agentId, true));
    // Announcements may have been missed while the LISTEN connection was down: what was told is asked again.
    for (const agentId of this.told.keys()) if (!this.here.has(agentId)) this.settle(agentId);
  }

  /** Stops: the connections closing after this change nothing (the LISTEN connection's end retires this process's rows). */
  close(): void {
    this.closed = true;
    clearInterval(this.sweeper);
  }

  private async record(agentId: string, connected: boolean): Promise<void> {
    const pid = this.listenerPid;
    if (pid === undefined) return;
    if (connected) await this.db.run("INSERT INTO agent_presence (agent_id, listener_pid) VALUES (?, ?) ON CONFLICT DO NOTHING", [agentId, pid]);
    else await this.db.run("DELETE FROM agent_presence WHERE agent_id = ? AND listener_pid = ?", [agentId, pid]);
    await this.db.run(`SELECT pg_notify('${PRESENCE_CHANNEL}', ?)`, [agentId]);
  }

  /** Runs `before` (if any), then tells this process's subscribers if the agent's presence changed. */
  private settle(agentId: string, before?: () => Promise<void>): void {
    this.step(agentId, async () => {
      await before?.();
      if (!this.hub.followsAgent(agentId)) {
        // Nobody here to tell: whoever subscribes next is told the state then.
        this.told.delete(agentId);
        return;
      }
      const now = await this.connected(agentId);
      if (this.told.get(agentId) === now) return;
      this.told.set(agentId, now);
      this.hub.agentPresence(agentId, now);
    });
  }

  /** Runs `work` after the agent's earlier steps, one at a time per agent, so what subscribers hear follows the order of the changes. */
  private step(agentId: string, work: () => Promise<void>): void {
    if (this.closed) return;
    const next = (this.settling.get(agentId) ?? Promise.resolve())
      .then(work)
      .catch((error: unknown) => this.logger.warn("presence update failed", { agent_id: agentId, error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        if (this.settling.get(agentId) === next) this.settling.delete(agentId);
      });
    this.settling.set(agentId, next);
  }

  private async sweep(): Promise<void> {
    try {
      const gone = await this.db.all<{ agent_id: string }>("DELETE FROM agent_presence WHERE listener_pid NOT IN (SELECT pid FROM pg_stat_activity) RETURNING agent_id");
      for (const agentId of new Set(gone.map((r) => r.agent_id))) await this.db.run(`SELECT pg_notify('${PRESENCE_CHANNEL}', ?)`, [agentId]);
    } catch (error) {
      this.logger.warn("presence sweep failed", { error: error instanceof Error ? error.message : String(error) });
    }
  }
}
