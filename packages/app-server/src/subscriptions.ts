/**
 * Following a session's log. Each subscription keeps one cursor — the last seq it sent — and only
 * ever sends the event `cursor + 1`, taken from the committed log (or from the batch that just
 * committed, when it is next in line). That one rule makes the stored → live seam exact: no gap, no
 * duplicate, whatever commits while the catch-up runs. `agentSession/caughtUp` is sent once, when
 * the cursor reaches the head the subscription saw when it was registered. Reading the log may take
 * turns of the event loop (PostgreSQL): one read at a time per subscription, and whatever arrives
 * meanwhile asks for one more pass.
 *
 * A device's subscription also hears whether the session's bound agent is connected
 * (`agentSession/presence`): when it starts, and whenever the agent's first connection opens or its last
 * one closes (`Hub.agentPresence`). That is not in the log: it is how things are now.
 */
import { CLOSE_CODES, type SessionEvent } from "@lineup/protocol";
import type { Connection } from "./connection.js";
import type { Logger } from "./logger.js";
import { eventFrame } from "./event-frames.js";
import { headSeq, readEventFrames } from "./store/log.js";
import type { Db } from "./store/sql.js";

export class Subscription {
  private state: "pending" | "active" | "stopped" = "pending";
  /** What the subscription was last told of its agent's presence (`tellPresence`). */
  presence: boolean | undefined;
  private caughtUpSent = false;
  /** A pass over the log is running; `again`: something arrived meanwhile, run one more. */
  private pumping = false;
  private again = false;
  private readonly stopDrain: () => void;

  constructor(
    readonly connection: Connection,
    readonly sessionId: string,
    /** The session's bound agent (fixed when the session starts). */
    readonly agentId: string,
    private cursor: number,
    private readonly headAtStart: number,
    private readonly hub: Hub,
  ) {
    this.stopDrain = connection.onDrain(() => this.pump());
  }

  get position(): number {
    return this.cursor;
  }

  /** Begins sending; called after the subscribe result has been sent. */
  start(): void {
    if (this.state !== "pending") return;
    this.state = "active";
    // Subscribed at the head: the seam is here, before anything the first pass finds committed since.
    this.maybeCaughtUp();
    this.pump();
  }

  stop(): void {
    this.state = "stopped";
    this.stopDrain();
    this.hub.remove(this);
  }

  /** Events that just committed for this session, in seq order. */
  deliver(events: readonly SessionEvent[]): void {
    if (this.state !== "active" || !this.connection.open) return;
    if (!this.pumping && events[0]?.seq === this.cursor + 1 && !this.connection.saturated) {
      for (const event of events) {
        if (!this.send(event.seq, eventFrame(event)) || this.connection.saturated) break;
      }
    }
    this.pump();
  }

  /** Sends from the log until the head or until the connection is saturated. */
  pump(): void {
    if (this.state !== "active") return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    this.passes().then(
      () => {
        this.pumping = false;
        this.maybeCaughtUp();
      },
      (error: unknown) => {
        this.pumping = false;
        this.hub.readFailed(this, error);
      },
    );
  }

  private async passes(): Promise<void> {
    do {
      this.again = false;
      reading: while (this.state === "active" && this.connection.open && !this.connection.saturated) {
        if (this.cursor >= (await this.hub.head(this.sessionId))) break;
        const page = await this.hub.read(this.sessionId, this.cursor);
        if (page.length === 0) break;
        for (const event of page) {
          // The log is gapless, so a page after the cursor starts at cursor + 1; anything else is a fault to stop on, not to spin on.
          if (!this.send(event.seq, event.frame) || this.connection.saturated) break reading;
        }
      }
    } while (this.again && this.state === "active");
  }

  /** Sends the event `seq` (its frame encoded once for every subscriber) if it is next. */
  private send(seq: number, frame: string): boolean {
    if (seq !== this.cursor + 1) return false;
    this.connection.sendEvent(frame);
    this.cursor = seq;
    this.maybeCaughtUp();
    return true;
  }

  private maybeCaughtUp(): void {
    if (this.caughtUpSent || this.cursor < this.headAtStart || !this.connection.open) return;
    this.caughtUpSent = true;
    this.connection.notify("agentSession/caughtUp", { session_id: this.sessionId, seq: this.headAtStart });
  }
}

/** What a subscribe holds while it reads the session's row (`Hub.watchHead`). */
export interface HeadWatch {
  /** The head to start following from: the row's, or a later one committed since; undefined when it must be read again. */
  headAfter(rowHead: number): number | undefined;
  release(): void;
}

/** Every subscription by session, and the fan-out of committed events. */
export class Hub {
  private readonly bySession = new Map<string, Set<Subscription>>();
  private readonly heads = new Map<string, number>();
  /** Sessions whose row a subscribe is reading: how many are, and the newest head committed since (`watchHead`). */
  private readonly watched = new Map<string, { readers: number; head: number; reliable: boolean }>();

  constructor(
    private readonly db: Db,
    private readonly pageSize: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Called before a subscribe reads the session's row: every head committed for the session from then on (here, or
   * announced by another process) is kept until `release`, so the subscription registered after the read starts from
   * the newer of the row's head and those, without reading the head again. A commit that ended before the read began
   * is in the row; one that ends later is kept here or, once the subscription is registered, moves the followed head.
   * A listener that reconnected meanwhile may have missed announcements: the head is then read as before.
   */
  watchHead(sessionId: string): HeadWatch {
    const watch = this.watched.get(sessionId) ?? { readers: 0, head: 0, reliable: true };
    this.watched.set(sessionId, watch);
    watch.readers += 1;
    let released = false;
    return {
      headAfter: (rowHead) => (watch.reliable ? Math.max(rowHead, watch.head) : undefined),
      release: () => {
        if (released) return;
        released = true;
        watch.readers -= 1;
        if (watch.readers === 0) this.watched.delete(sessionId);
      },
    };
  }

  /**
   * Registers a subscription (pending until `start`); replaces the connection's previous one for the session.
   * `knownHead`: the session's head as `watchHead` vouches for it, taken when no subscription here follows it yet.
   */
  subscribe(connection: Connection, sessionId: string, agentId: string, afterSeq: number, head: number, knownHead?: number): Subscription {
    connection.subscriptions.get(sessionId)?.stop();
    const sub = new Subscription(connection, sessionId, agentId, afterSeq, head, this);
    connection.subscriptions.set(sessionId, sub);
    let set = this.bySession.get(sessionId);
    if (set === undefined) this.bySession.set(sessionId, (set = new Set()));
    set.add(sub);
    if (knownHead !== undefined && !this.heads.has(sessionId)) this.heads.set(sessionId, knownHead);
    return sub;
  }

  remove(sub: Subscription): void {
    const set = this.bySession.get(sub.sessionId);
    set?.delete(sub);
    if (set?.size === 0) {
      this.bySession.delete(sub.sessionId);
      // Unfollowed, the head would go stale as other processes append: the next subscriber asks the store.
      this.heads.delete(sub.sessionId);
    }
    if (sub.connection.subscriptions.get(sub.sessionId) === sub) sub.connection.subscriptions.delete(sub.sessionId);
  }

  async head(sessionId: string): Promise<number> {
    const known = this.heads.get(sessionId);
    if (known !== undefined) return known;
    const head = (await headSeq(this.db, sessionId)) ?? 0;
    // A commit may have moved the head while the store answered.
    if (this.bySession.has(sessionId) && !this.heads.has(sessionId)) this.heads.set(sessionId, head);
    return Math.max(head, this.heads.get(sessionId) ?? 0);
  }

  read(sessionId: string, afterSeq: number): Promise<Array<{ readonly seq: number; readonly frame: string }>> {
    return readEventFrames(this.db, sessionId, afterSeq, this.pageSize);
  }

  /** A subscription could not read the log (the store failed): its connection closes, and the client resumes by seq. */
  readFailed(sub: Subscription, error: unknown): void {
    this.logger.error("log read failed", { session_id: sub.sessionId, error: error instanceof Error ? error.message : String(error) });
    sub.connection.close(CLOSE_CODES.internal_error, "the log could not be read: resume by seq");
  }

  /** Another server process committed events up to `seq` (PostgreSQL): the session's subscribers read them from the log. */
  advanced(sessionId: string, seq: number): void {
    this.sawHead(sessionId, seq);
    const subs = this.bySession.get(sessionId);
    if (subs === undefined) return;
    if (seq > (this.heads.get(sessionId) ?? 0)) this.heads.set(sessionId, seq);
    for (const sub of [...subs]) sub.pump();
  }

  /** Announcements may have been missed (the LISTEN connection broke): every subscriber reads the log again from its cursor. */
  rereadAll(): void {
    this.heads.clear();
    for (const watch of this.watched.values()) watch.reliable = false;
    for (const subs of this.bySession.values()) for (const sub of [...subs]) sub.pump();
  }

  /** Whether a subscription here follows a session bound to the agent. */
  followsAgent(agentId: string): boolean {
    for (const subs of this.bySession.values()) for (const sub of subs) if (sub.agentId === agentId) return true;
    return false;
  }

  /** Tells every device subscription of the agent's sessions that the agent is now connected, or not. */
  agentPresence(agentId: string, connected: boolean): void {
    for (const subs of this.bySession.values()) {
      for (const sub of subs) if (sub.agentId === agentId) tellPresence(sub, connected);
    }
  }

  /** A head committed while a subscribe reads the session's row is kept for it (`watchHead`). */
  private sawHead(sessionId: string, seq: number): void {
    const watch = this.watched.get(sessionId);
    if (watch !== undefined && seq > watch.head) watch.head = seq;
  }

  /** Called after every commit with the events it stored, in commit order. */
  published(events: readonly SessionEvent[]): void {
    const bySession = new Map<string, SessionEvent[]>();
    for (const event of events) {
      let list = bySession.get(event.session_id);
      if (list === undefined) bySession.set(event.session_id, (list = []));
      list.push(event);
    }
    for (const [sessionId, list] of bySession) {
      this.sawHead(sessionId, list[list.length - 1]!.seq);
      const subs = this.bySession.get(sessionId);
      if (subs === undefined) continue;
      this.heads.set(sessionId, list[list.length - 1]!.seq);
      for (const sub of [...subs]) {
        try {
          sub.deliver(list);
        } catch (error) {
          this.logger.error("delivery failed", { session_id: sessionId, error: error instanceof Error ? error.message : String(error) });
        }
      }
    }
  }
}

/** `agentSession/presence` to a device's subscription (an agent following the session is the agent). */
export function tellPresence(sub: Subscription, connected: boolean): void {
  // Told once, then at each change: a new subscription can be told by the presence settling its agent and by its own answer.
  if (sub.connection.principal?.role !== "device" || !sub.connection.open || sub.presence === connected) return;
  sub.presence = connected;
  sub.connection.notify("agentSession/presence", { session_id: sub.sessionId, agent_id: sub.agentId, connected });
}
