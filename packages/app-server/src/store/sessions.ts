/** Session rows ↔ `Session` records, and who may see which. */
import type { Session } from "@lineup/protocol";
import type { Principal } from "./principals.js";
import { pendingHead } from "./log.js";
import type { Db } from "./sql.js";

interface SessionRow {
  ordinal: number;
  session_id: string;
  app_scope: string;
  workspace_id: string;
  owner_user_id: string;
  agent_id: string;
  title: string | null;
  business_object_ref: string | null;
  state: Session["state"];
  created_at: string;
  last_seq: number;
  inventory_revision: number;
  active_at: string | null;
}

function toSession(row: SessionRow): Session {
  const session: Session = {
    session_id: row.session_id,
    app_scope: row.app_scope,
    workspace_id: row.workspace_id,
    owner_user_id: row.owner_user_id,
    agent_id: row.agent_id,
    state: row.state,
    created_at: row.created_at,
    last_seq: row.last_seq,
    inventory_revision: row.inventory_revision,
  };
  if (row.title !== null) session.title = row.title;
  if (row.active_at !== null) session.active_at = row.active_at;
  if (row.business_object_ref !== null) session.business_object_ref = JSON.parse(row.business_object_ref) as NonNullable<Session["business_object_ref"]>;
  return session;
}

/** B8: a device sees its user's sessions, an agent the sessions bound to it. */
export function canSee(principal: Principal, session: Pick<Session, "owner_user_id" | "agent_id">): boolean {
  return principal.role === "device" ? session.owner_user_id === principal.user_id : session.agent_id === principal.agent_id;
}

export async function findSession(db: Db, sessionId: string): Promise<Session | undefined> {
  const row = await db.get<SessionRow>("SELECT * FROM sessions WHERE session_id = ?", [sessionId]);
  if (row === undefined) return undefined;
  // Inside a write transaction the head may be pending (store/log.ts).
  const head = pendingHead(db, sessionId);
  if (head !== undefined) {
    row.last_seq = head.seq;
    if (head.active_at !== undefined) row.active_at = head.active_at;
  }
  return toSession(row);
}

type Binding = Pick<Session, "owner_user_id" | "agent_id">;

/**
 * Who may see each session, remembered: the two columns never change and sessions are never
 * deleted, so a row once committed stays true. A row read inside a write transaction is only staged:
 * the write queue promotes the staged rows when the transaction commits and drops them when any
 * part of it is rolled back (`sessionBindingsCommitted`, `sessionBindingsRolledBack`). Bounded: the
 * map starts over when full.
 */
interface Bindings {
  readonly committed: Map<string, Binding>;
  readonly staged: Map<string, Binding>;
}
const bindings = new WeakMap<Db, Bindings>();
const MAX_BINDINGS = 10_000;

function bindingsOf(db: Db): Bindings {
  let known = bindings.get(db);
  if (known === undefined) bindings.set(db, (known = { committed: new Map(), staged: new Map() }));
  return known;
}

export function sessionBindingsCommitted(db: Db): void {
  const known = bindings.get(db);
  if (known === undefined || known.staged.size === 0) return;
  if (known.committed.size + known.staged.size > MAX_BINDINGS) known.committed.clear();
  for (const [id, row] of known.staged) known.committed.set(id, row);
  known.staged.clear();
}

export function sessionBindingsRolledBack(db: Db): void {
  bindings.get(db)?.staged.clear();
}

/** Whether the session exists and the principal may see it (one indexed lookup the first time). */
export async function isVisibleSession(db: Db, principal: Principal, sessionId: string): Promise<boolean> {
  const known = bindingsOf(db);
  let row = known.committed.get(sessionId) ?? known.staged.get(sessionId);
  if (row === undefined) {
    const found = await db.get<Binding>("SELECT owner_user_id, agent_id FROM sessions WHERE session_id = ?", [sessionId]);
    if (found === undefined) return false;
    row = { owner_user_id: found.owner_user_id, agent_id: found.agent_id };
    if (db.inTransaction) known.staged.set(sessionId, row);
    else {
      if (known.committed.size >= MAX_BINDINGS) known.committed.clear();
      known.committed.set(sessionId, row);
    }
  }
  return canSee(principal, row);
}

/** The session when the principal may see it; undefined otherwise (the two are indistinguishable to the caller). */
export async function findVisibleSession(db: Db, principal: Principal, sessionId: string): Promise<Session | undefined> {
  const session = await findSession(db, sessionId);
  return session !== undefined && canSee(principal, session) ? session : undefined;
}

export async function insertSession(db: Db, session: Session): Promise<void> {
  await db.run(
    `INSERT INTO sessions (session_id, app_scope, workspace_id, owner_user_id, agent_id, title, business_object_ref, state, created_at, last_seq, inventory_revision)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
    session.session_id,
    session.app_scope,
    session.workspace_id,
    session.owner_user_id,
    session.agent_id,
    session.title ?? null,
    session.business_object_ref === undefined ? null : JSON.stringify(session.business_object_ref),
    session.state,
    session.created_at,
    session.last_seq,
    session.inventory_revision,
    ],
  );
}

export async function setInventoryRevision(db: Db, sessionId: string, revision: number): Promise<void> {
  await db.run("UPDATE sessions SET inventory_revision = ? WHERE session_id = ?", [revision, sessionId]);
}

export interface SessionPage {
  readonly sessions: Session[];
  readonly next_cursor?: string;
}

/** Visible sessions, newest first; the cursor is the ordinal of the last one returned. */
export async function listVisibleSessions(
  db: Db,
  principal: Principal,
  filter: { limit: number; before?: number; app_scope?: string; workspace_id?: string },
): Promise<SessionPage> {
  const clauses = [principal.role === "device" ? "owner_user_id = ?" : "agent_id = ?"];
  const args: Array<string | number> = [principal.role === "device" ? principal.user_id : principal.agent_id];
  const where = (clause: string, arg: string | number) => {
    clauses.push(clause);
    args.push(arg);
  };
  if (filter.before !== undefined) where("ordinal < ?", filter.before);
  if (filter.app_scope !== undefined) where("app_scope = ?", filter.app_scope);
  if (filter.workspace_id !== undefined) where("workspace_id = ?", filter.workspace_id);
  const rows = await db.all<SessionRow>(`SELECT * FROM sessions WHERE ${clauses.join(" AND ")} ORDER BY ordinal DESC LIMIT ?`, [...args, filter.limit + 1]);
  const page = rows.slice(0, filter.limit);
  const last = page[page.length - 1];
  return rows.length > filter.limit && last !== undefined ? { sessions: page.map(toSession), next_cursor: `o${last.ordinal}` } : { sessions: page.map(toSession) };
}
