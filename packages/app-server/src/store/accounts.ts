/**
 * The accounts an operator manages through the admin face (admin.ts): users (disabled, never deleted: their
 * sessions stay in the log), their devices, agents (shared, or owned by one user), single-use pairing codes and
 * the admin tokens. Writers run inside a write transaction of the write queue; a refusal throws a LineUpError
 * and undoes the write alone.
 *
 * Every secret — device, agent and admin tokens, pairing codes — is kept only as its SHA-256. A fast hash is
 * the right one: tokens are 256 random bits, so a stolen table cannot be searched by guessing (a slow password
 * hash defends low-entropy secrets people choose, and would cost milliseconds on every `initialize`). A pairing
 * code has only 40 bits, which is why it lives minutes and works once.
 */
import { randomInt } from "node:crypto";
import { LineUpError, type TenantSettings } from "@lineup/protocol";
import { createAgent, createDevice, createUser, newToken, sha256Hex } from "./principals.js";
import type { Db } from "./sql.js";

export interface UserRecord {
  readonly user_id: string;
  readonly display_name: string;
  readonly tenant_id: string | null;
  readonly created_at: string;
  readonly disabled_at: string | null;
  readonly devices: number;
}

export interface DeviceRecord {
  readonly device_id: string;
  readonly user_id: string;
  readonly name: string;
  readonly created_at: string;
  readonly revoked_at: string | null;
}

export interface AgentRecord {
  readonly agent_id: string;
  readonly name: string;
  /** Null: any user may start sessions with it (the demo agent). */
  readonly owner_user_id: string | null;
  readonly created_at: string;
  readonly revoked_at: string | null;
}

/** Who a revocation cuts off: the server closes these principals' live connections. */
export type Revoked = { readonly kind: "user" | "device" | "agent"; readonly id: string };

/** How long a pairing code can be exchanged. */
export const PAIRING_CODE_TTL_MS = 10 * 60_000;
/** Crockford's base32: no I, L, O or U, so a code read aloud or typed is not misread. */
const CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

const now = () => new Date().toISOString();
const conflict = (message: string) => new LineUpError("invalid_state", message);
const notFound = (message: string, path: string) => new LineUpError("not_found", message, { path });

async function requireActiveUser(db: Db, userId: string, path = "/user_id"): Promise<void> {
  const row = await db.get<{ disabled_at: string | null }>("SELECT disabled_at FROM users WHERE user_id = ?", [userId]);
  if (row === undefined) throw notFound(`no user ${userId}`, path);
  if (row.disabled_at !== null) throw conflict(`user ${userId} is disabled`);
}

export async function addUser(db: Db, userId: string, displayName: string, tenantId: string | undefined): Promise<UserRecord> {
  if ((await db.get("SELECT 1 FROM users WHERE user_id = ?", [userId])) !== undefined) throw conflict(`user ${userId} exists already`);
  if (tenantId !== undefined && (await db.get("SELECT 1 FROM tenants WHERE tenant_id = ?", [tenantId])) === undefined) throw notFound(`no tenant ${tenantId}`, "/tenant_id");
  await createUser(db, userId, displayName, tenantId ?? null);
  return (await listUser(db, userId))!;
}

const USER_COLUMNS = `SELECT u.user_id, u.display_name, u.tenant_id, u.created_at, u.disabled_at,
       (SELECT count(*) FROM devices d WHERE d.user_id = u.user_id AND d.revoked_at IS NULL) AS devices
     FROM users u`;

export async function listUsers(db: Db): Promise<UserRecord[]> {
  return (await db.all<UserRecord>(`${USER_COLUMNS} ORDER BY u.user_id`)).map((u) => ({ ...u, devices: Number(u.devices) }));
}

async function listUser(db: Db, userId: string): Promise<UserRecord | undefined> {
  const row = await db.get<UserRecord>(`${USER_COLUMNS} WHERE u.user_id = ?`, [userId]);
  return row === undefined ? undefined : { ...row, devices: Number(row.devices) };
}

/** Disables a user: none of their devices signs in again, and agents they own stop too. */
export async function disableUser(db: Db, userId: string): Promise<Revoked[]> {
  const row = await db.get<{ disabled_at: string | null }>("SELECT disabled_at FROM users WHERE user_id = ?", [userId]);
  if (row === undefined) throw notFound(`no user ${userId}`, "/user_id");
  if (row.disabled_at === null) await db.run("UPDATE users SET disabled_at = ? WHERE user_id = ?", [now(), userId]);
  const agents = await db.all<{ agent_id: string }>("SELECT agent_id FROM agents WHERE owner_user_id = ?", [userId]);
  return [{ kind: "user", id: userId }, ...agents.map((a) => ({ kind: "agent" as const, id: a.agent_id }))];
}

/** A new device of an active user, and its token (shown once). */
export async function addDevice(db: Db, userId: string, deviceId: string, name: string): Promise<{ device: DeviceRecord; token: string }> {
  await requireActiveUser(db, userId);
  if ((await db.get("SELECT 1 FROM devices WHERE device_id = ?", [deviceId])) !== undefined) throw conflict(`device ${deviceId} exists already`);
  const token = await createDevice(db, deviceId, userId, name);
  const device = await db.get<DeviceRecord>("SELECT device_id, user_id, name, created_at, revoked_at FROM devices WHERE device_id = ?", [deviceId]);
  return { device: device!, token };
}

export function listDevices(db: Db, userId: string | undefined): Promise<DeviceRecord[]> | DeviceRecord[] {
  return userId === undefined
    ? db.all<DeviceRecord>("SELECT device_id, user_id, name, created_at, revoked_at FROM devices ORDER BY user_id, device_id")
    : db.all<DeviceRecord>("SELECT device_id, user_id, name, created_at, revoked_at FROM devices WHERE user_id = ? ORDER BY device_id", [userId]);
}

export function revokeDevice(db: Db, deviceId: string): Promise<Revoked[]> {
  return revoke(db, "device", deviceId);
}

/** Marks a device or an agent revoked, and every token of it. */
async function revoke(db: Db, kind: "device" | "agent", id: string): Promise<Revoked[]> {
  const at = now();
  // The table and column names come from `kind`, never from input.
  const { changes } = await db.run(`UPDATE ${kind}s SET revoked_at = COALESCE(revoked_at, ?) WHERE ${kind}_id = ?`, [at, id]);
  if (changes === 0) throw notFound(`no ${kind} ${id}`, `/${kind}_id`);
  await db.run(`UPDATE tokens SET revoked_at = ? WHERE ${kind}_id = ? AND revoked_at IS NULL`, [at, id]);
  return [{ kind, id }];
}

/** A new agent (owned by `ownerUserId`, or shared) and its token (shown once). */
export async function addAgent(db: Db, agentId: string, name: string, ownerUserId: string | undefined): Promise<{ agent: AgentRecord; token: string }> {
  if (ownerUserId !== undefined) await requireActiveUser(db, ownerUserId, "/owner_user_id");
  if ((await db.get("SELECT 1 FROM agents WHERE agent_id = ?", [agentId])) !== undefined) throw conflict(`agent ${agentId} exists already`);
  const token = await createAgent(db, agentId, name, ownerUserId ?? null);
  const agent = await db.get<AgentRecord>("SELECT agent_id, name, owner_user_id, created_at, revoked_at FROM agents WHERE agent_id = ?", [agentId]);
  return { agent: agent!, token };
}

export function listAgents(db: Db, ownerUserId: string | undefined): Promise<AgentRecord[]> | AgentRecord[] {
  return ownerUserId === undefined
    ? db.all<AgentRecord>("SELECT agent_id, name, owner_user_id, created_at, revoked_at FROM agents ORDER BY agent_id")
    : db.all<AgentRecord>("SELECT agent_id, name, owner_user_id, created_at, revoked_at FROM agents WHERE owner_user_id = ? ORDER BY agent_id", [ownerUserId]);
}

export function revokeAgent(db: Db, agentId: string): Promise<Revoked[]> {
  return revoke(db, "agent", agentId);
}

/** Replaces an active agent's tokens with a new one: connections made with the old one are closed. */
export async function rotateAgent(db: Db, agentId: string): Promise<{ token: string; revoked: Revoked[] }> {
  const row = await db.get<{ revoked_at: string | null }>("SELECT revoked_at FROM agents WHERE agent_id = ?", [agentId]);
  if (row === undefined) throw notFound(`no agent ${agentId}`, "/agent_id");
  if (row.revoked_at !== null) throw conflict(`agent ${agentId} is revoked`);
  const at = now();
  await db.run("UPDATE tokens SET revoked_at = ? WHERE agent_id = ? AND revoked_at IS NULL", [at, agentId]);
  const token = newToken();
  await db.run("INSERT INTO tokens (token_sha256, role, agent_id, created_at) VALUES (?, 'agent', ?, ?)", [sha256Hex(token), agentId, at]);
  return { token, revoked: [{ kind: "agent", id: agentId }] };
}

/** Whether a user may bind a new session to the agent: it is active and shared or theirs. */
export async function agentAvailableTo(db: Db, agentId: string, userId: string): Promise<boolean> {
  const row = await db.get<{ owner_user_id: string | null; revoked_at: string | null }>("SELECT owner_user_id, revoked_at FROM agents WHERE agent_id = ?", [agentId]);
  return row !== undefined && row.revoked_at === null && (row.owner_user_id === null || row.owner_user_id === userId);
}

/** `ABCD-EFGH` → `ABCDEFGH`; lower case and Crockford's look-alikes (I, L → 1; O → 0) are read as meant. */
export function normalizePairingCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, "").replace(/[IL]/g, "1").replace(/O/g, "0");
}

/** A short-lived, single-use code that a device of `userId` exchanges for its token (`redeemPairingCode`). */
export async function createPairingCode(db: Db, userId: string, ttlMs = PAIRING_CODE_TTL_MS): Promise<{ code: string; expires_at: string }> {
  await requireActiveUser(db, userId);
  const raw = Array.from({ length: 8 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join("");
  const createdAt = new Date();
  const expiresAt = new Date(createdAt.getTime() + ttlMs).toISOString();
  await db.run("INSERT INTO pairing_codes (code_sha256, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)", [sha256Hex(raw), userId, createdAt.toISOString(), expiresAt]);
  return { code: `${raw.slice(0, 4)}-${raw.slice(4)}`, expires_at: expiresAt };
}

/**
 * Exchanges a pairing code for a new device of its user. Unknown, expired and used codes are refused alike
 * (`unauthorized`), so the answer tells a guesser nothing.
 */
export async function redeemPairingCode(db: Db, code: string, deviceName: string, deviceId: string): Promise<{ user_id: string; device_id: string; token: string }> {
  const hash = sha256Hex(normalizePairingCode(code));
  const row = await db.get<{ user_id: string; expires_at: string; device_id: string | null }>("SELECT user_id, expires_at, device_id FROM pairing_codes WHERE code_sha256 = ?", [hash]);
  const refused = new LineUpError("unauthorized", "the pairing code is unknown, expired or used: ask for a new one (lineup admin device pair USER)");
  if (row === undefined || row.device_id !== null || row.expires_at <= now()) throw refused;
  const user = await db.get<{ disabled_at: string | null }>("SELECT disabled_at FROM users WHERE user_id = ?", [row.user_id]);
  if (user?.disabled_at !== null) throw refused;
  const token = await createDevice(db, deviceId, row.user_id, deviceName);
  // The code's row is claimed in the same transaction as the device: a second exchange finds it used.
  const { changes } = await db.run("UPDATE pairing_codes SET device_id = ? WHERE code_sha256 = ? AND device_id IS NULL", [deviceId, hash]);
  if (changes !== 1) throw refused;
  return { user_id: row.user_id, device_id: deviceId, token };
}

/** On a store without an admin token: makes one and returns it (the caller writes it for the operator). */
export async function provisionAdminToken(db: Db): Promise<string | undefined> {
  if ((await db.get("SELECT 1 FROM admin_tokens LIMIT 1")) !== undefined) return undefined;
  const token = newToken();
  await db.run("INSERT INTO admin_tokens (token_sha256, created_at) VALUES (?, ?)", [sha256Hex(token), now()]);
  return token;
}

export async function isAdminToken(db: Db, token: string): Promise<boolean> {
  return (await db.get("SELECT 1 FROM admin_tokens WHERE token_sha256 = ?", [sha256Hex(token)])) !== undefined;
}

/**
 * A tenant: its users' devices may run only the apps in `app_allowlist` (null: any app), and its policy defaults
 * narrow what the Runtime's app and capability policy allow (`TenantPolicy`).
 */
export interface TenantRecord {
  readonly tenant_id: string;
  readonly name: string;
  readonly app_allowlist: readonly string[] | null;
  readonly policy: TenantPolicy;
  readonly updated_at: string;
}

/** Policy defaults a tenant gives its devices (the protocol's `app-server.tenant` policy). */
export type TenantPolicy = TenantSettings["policy"];

const POLICY_LISTS = ["blocked_capabilities", "blocked_execution_modes", "denied_capabilities", "require_confirmation"] as const;
const APP_SCOPE = /^[a-z][a-z0-9-]{0,63}$/;
const POLICY_NAME = /^[a-z][a-z0-9._-]{0,63}$/;

function stringList(value: unknown, pattern: RegExp, path: string, what: string): string[] {
  if (!Array.isArray(value) || value.length > 256 || !value.every((v) => typeof v === "string" && pattern.test(v))) {
    throw new LineUpError("invalid_params", `${path.slice(1)} must be a list of at most 256 ${what}`, { path });
  }
  return [...new Set(value as string[])];
}

/** Checks an untrusted allowlist (null or absent: any app) and policy (absent: none). */
export function parseTenantSettings(allowlist: unknown, policy: unknown): { app_allowlist: string[] | null; policy: TenantPolicy } {
  const apps = allowlist === undefined || allowlist === null ? null : stringList(allowlist, APP_SCOPE, "/app_allowlist", "app scopes");
  if (policy === undefined) return { app_allowlist: apps, policy: {} };
  if (typeof policy !== "object" || policy === null || Array.isArray(policy)) throw new LineUpError("invalid_params", `policy is an object of ${POLICY_LISTS.join(", ")}`, { path: "/policy" });
  const record = policy as Record<string, unknown>;
  const extra = Object.keys(record).find((k) => !(POLICY_LISTS as readonly string[]).includes(k));
  if (extra !== undefined) throw new LineUpError("invalid_params", `unknown policy member ${extra}: policy is an object of ${POLICY_LISTS.join(", ")}`, { path: `/policy/${extra}` });
  const parsed: Record<string, string[]> = {};
  for (const key of POLICY_LISTS) if (record[key] !== undefined) parsed[key] = stringList(record[key], POLICY_NAME, `/policy/${key}`, "names");
  return { app_allowlist: apps, policy: parsed };
}

interface TenantRow {
  readonly tenant_id: string;
  readonly name: string;
  readonly app_allowlist: string | null;
  readonly policy: string;
  readonly updated_at: string;
}

const tenantOf = (row: TenantRow): TenantRecord => ({
  tenant_id: row.tenant_id,
  name: row.name,
  app_allowlist: row.app_allowlist === null ? null : (JSON.parse(row.app_allowlist) as string[]),
  policy: JSON.parse(row.policy) as TenantPolicy,
  updated_at: row.updated_at,
});

/** Creates or replaces a tenant's settings. */
export async function setTenant(db: Db, tenantId: string, name: string, allowlist: unknown, policy: unknown): Promise<TenantRecord> {
  const settings = parseTenantSettings(allowlist, policy);
  const row: TenantRow = { tenant_id: tenantId, name, app_allowlist: settings.app_allowlist === null ? null : JSON.stringify(settings.app_allowlist), policy: JSON.stringify(settings.policy), updated_at: now() };
  await db.run(
    `INSERT INTO tenants (tenant_id, name, app_allowlist, policy, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (tenant_id) DO UPDATE SET name = excluded.name, app_allowlist = excluded.app_allowlist, policy = excluded.policy, updated_at = excluded.updated_at`,
    [row.tenant_id, row.name, row.app_allowlist, row.policy, row.updated_at],
  );
  return tenantOf(row);
}

export async function listTenants(db: Db): Promise<TenantRecord[]> {
  return (await db.all<TenantRow>("SELECT tenant_id, name, app_allowlist, policy, updated_at FROM tenants ORDER BY tenant_id")).map(tenantOf);
}

/** The tenant of a user's devices, if the user has one. */
export async function tenantOfUser(db: Db, userId: string): Promise<TenantRecord | undefined> {
  const row = await db.get<TenantRow>("SELECT t.tenant_id, t.name, t.app_allowlist, t.policy, t.updated_at FROM tenants t JOIN users u ON u.tenant_id = t.tenant_id WHERE u.user_id = ?", [userId]);
  return row === undefined ? undefined : tenantOf(row);
}

/** Puts a user in a tenant (or out of any, with undefined). */
export async function setUserTenant(db: Db, userId: string, tenantId: string | undefined): Promise<UserRecord> {
  if (tenantId !== undefined && (await db.get("SELECT 1 FROM tenants WHERE tenant_id = ?", [tenantId])) === undefined) throw notFound(`no tenant ${tenantId}`, "/tenant_id");
  const { changes } = await db.run("UPDATE users SET tenant_id = ? WHERE user_id = ?", [tenantId ?? null, userId]);
  if (changes === 0) throw notFound(`no user ${userId}`, "/user_id");
  return (await listUser(db, userId))!;
}
