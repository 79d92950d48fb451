/**
 * Who is connected as whom: the initialized connections of each agent and of each user's devices.
 * Notifications addressed to a principal rather than to a session (`agentSession/bound`) are routed
 * through it. A connection is listed from its `initialize` until its socket closes.
 */
import type { Connection } from "./connection.js";

export class ConnectionDirectory {
  private readonly byAgent = new Map<string, Set<Connection>>();
  private readonly byUser = new Map<string, Set<Connection>>();

  /** `onAgentPresence`: an agent's first connection was listed (true), or its last one removed (false). */
  constructor(private readonly onAgentPresence: (agentId: string, connected: boolean) => void = () => undefined) {}

  /** Lists an initialized connection under its principal. */
  add(connection: Connection): void {
    const p = connection.principal;
    if (p === undefined) return;
    const [map, id] = p.role === "agent" ? [this.byAgent, p.agent_id] : [this.byUser, p.user_id];
    let set = map.get(id);
    if (set === undefined) map.set(id, (set = new Set()));
    if (set.has(connection)) return;
    set.add(connection);
    if (p.role === "agent" && set.size === 1) this.onAgentPresence(id, true);
  }

  remove(connection: Connection): void {
    const p = connection.principal;
    if (p === undefined) return;
    const [map, id] = p.role === "agent" ? [this.byAgent, p.agent_id] : [this.byUser, p.user_id];
    const set = map.get(id);
    if (set?.delete(connection) !== true) return;
    if (set.size > 0) return;
    map.delete(id);
    if (p.role === "agent") this.onAgentPresence(id, false);
  }

  /** Every open connection of the agent. */
  agentConnections(agentId: string): readonly Connection[] {
    return [...(this.byAgent.get(agentId) ?? [])];
  }

  /** Every open device connection, of every user. */
  allDeviceConnections(): readonly Connection[] {
    return [...this.byUser.values()].flatMap((set) => [...set]);
  }

  /** Every open connection of the user's devices. */
  deviceConnections(userId: string): readonly Connection[] {
    return [...(this.byUser.get(userId) ?? [])];
  }
}
