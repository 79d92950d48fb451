/**
 * Who may connect: users, their devices, agents, and the bearer tokens that name them.
 * Tokens are 256-bit random strings shown once; only their SHA-256 is stored. The writers here run
 * inside a write transaction (the write queue's), so a device and its token are stored together.
 */
import { createHash, hash, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppServerRole } from "@lineup/protocol";
import type { Db } from "./sql.js";

/** The authenticated caller of a connection. `key` scopes idempotency keys. */
export type Principal =
  | { readonly role: "device"; readonly key: string; readonly device_id: string; readonly user_id: string }
  | { readonly role: "agent"; readonly key: string; readonly agent_id: string };

export function principalId(principal: Principal): string {
  return principal.role === "device" ? principal.device_id : principal.agent_id;
}

export function sha256Hex(input: string | Uint8Array): string {
  // The one-shot `hash` is about twice as fast as a Hash object for the small inputs of every write.
  return typeof input === "string" ? hash("sha256", input, "hex") : createHash("sha256").update(input).digest("hex");
}

/**
 * A new secret token: `lu_` and 32 random bytes in base64url. The prefix makes a leaked token recognisable
 * to a secret scanner, and means no token begins with a dash (a command line would read `--token -x…` as a
 * missing value).
 */
export function newToken(): string {
  return `lu_${randomBytes(32).toString("base64url")}`;
}

/** The principal a token names, or undefined for an unknown or revoked token, a revoked device or agent, or a disabled user's. */
export async function findPrincipal(db: Db, token: string): Promise<Principal | undefined> {
  const row = await db.get<{ role: AppServerRole; device_id: string | null; agent_id: string | null; user_id: string | null }>(
    `SELECT t.role, t.device_id, t.agent_id, d.user_id FROM tokens t
       LEFT JOIN devices d ON d.device_id = t.device_id
       LEFT JOIN users u ON u.user_id = d.user_id
       LEFT JOIN agents a ON a.agent_id = t.agent_id
       LEFT JOIN users o ON o.user_id = a.owner_user_id
     WHERE t.token_sha256 = ? AND t.revoked_at IS NULL AND d.revoked_at IS NULL AND u.disabled_at IS NULL AND a.revoked_at IS NULL AND o.disabled_at IS NULL`,
    [sha256Hex(token)],
  );
  if (row === undefined) return undefined;
  if (row.role === "device" && row.device_id !== null && row.user_id !== null) {
    return { role: "device", key: `device:${row.device_id}`, device_id: row.device_id, user_id: row.user_id };
  }
  if (row.role === "agent" && row.agent_id !== null) return { role: "agent", key: `agent:${row.agent_id}`, agent_id: row.agent_id };
  return undefined;
}

const now = () => new Date().toISOString();

export async function createUser(db: Db, userId: string, displayName = userId, tenantId: string | null = null): Promise<void> {
  await db.run("INSERT INTO users (user_id, display_name, created_at, tenant_id) VALUES (?, ?, ?, ?)", [userId, displayName, now(), tenantId]);
}

/** Registers a device of a user and returns its new token. */
export async function createDevice(db: Db, deviceId: string, userId: string, name = deviceId): Promise<string> {
  const token = newToken();
  await db.run("INSERT INTO devices (device_id, user_id, name, created_at) VALUES (?, ?, ?, ?)", [deviceId, userId, name, now()]);
  await db.run("INSERT INTO tokens (token_sha256, role, device_id, created_at) VALUES (?, 'device', ?, ?)", [sha256Hex(token), deviceId, now()]);
  return token;
}

/** Registers an agent (shared, or owned by one user) and returns its new token. */
export async function createAgent(db: Db, agentId: string, name = agentId, ownerUserId: string | null = null): Promise<string> {
  const token = newToken();
  await db.run("INSERT INTO agents (agent_id, name, created_at, owner_user_id) VALUES (?, ?, ?, ?)", [agentId, name, now(), ownerUserId]);
  await db.run("INSERT INTO tokens (token_sha256, role, agent_id, created_at) VALUES (?, 'agent', ?, ?)", [sha256Hex(token), agentId, now()]);
  return token;
}

export const DEV_CREDENTIALS_FILE = "dev-credentials.json";
export const DEV_USER_ID = "dev-user";
export const DEV_DEVICE_ID = "dev-device";
export const DEV_AGENT_ID = "demo-agent";

export interface DevCredentials {
  readonly device_token: string;
  readonly agent_token: string;
}

/**
 * On a fresh store: a dev user with one device and the demo agent (in the caller's transaction).
 * Returns undefined when the store has users already — another server on the same PostgreSQL
 * database provisioned them first.
 */
export async function provisionDevCredentials(db: Db): Promise<DevCredentials | undefined> {
  if ((await db.get("SELECT 1 FROM users LIMIT 1")) !== undefined) return undefined;
  await createUser(db, DEV_USER_ID, "Dev user");
  return { device_token: await createDevice(db, DEV_DEVICE_ID, DEV_USER_ID, "Dev device"), agent_token: await createAgent(db, DEV_AGENT_ID, "Demo agent") };
}

/** Writes the dev tokens to `<dataDir>/dev-credentials.json` (mode 0600) — the only place they exist in clear. */
export function writeDevCredentials(dataDir: string, credentials: DevCredentials): void {
  writeSecretFile(dataDir, DEV_CREDENTIALS_FILE, `${JSON.stringify(credentials, null, 2)}\n`);
}

/** The file in the data directory that holds the store's first admin token (`lineup admin` reads it). */
export const ADMIN_TOKEN_FILE = "admin-token";

/** Writes a secret into the data directory, readable by its owner only (mode 0600). */
export function writeSecretFile(dataDir: string, name: string, text: string): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, name), text, { mode: 0o600 });
}
