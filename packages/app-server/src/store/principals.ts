/**
 * Who may connect: users, their devices, agents, and the bearer tokens that name them.
 * Tokens are 256-bit random strings shown once; only their SHA-256 is stored.
 */
import { createHash, hash, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppServerRole } from "@lineup/protocol";
import type { Db } from "./database.js";

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

export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The principal a token names, or undefined for an unknown or revoked token. */
export function findPrincipal(db: Db, token: string): Principal | undefined {
  const row = db
    .prepare(
      `SELECT t.role, t.device_id, t.agent_id, d.user_id FROM tokens t LEFT JOIN devices d ON d.device_id = t.device_id
       WHERE t.token_sha256 = ? AND t.revoked_at IS NULL`,
    )
    .get(sha256Hex(token)) as { role: AppServerRole; device_id: string | null; agent_id: string | null; user_id: string | null } | undefined;
  if (row === undefined) return undefined;
  if (row.role === "device" && row.device_id !== null && row.user_id !== null) {
    return { role: "device", key: `device:${row.device_id}`, device_id: row.device_id, user_id: row.user_id };
  }
  if (row.role === "agent" && row.agent_id !== null) return { role: "agent", key: `agent:${row.agent_id}`, agent_id: row.agent_id };
  return undefined;
}

const now = () => new Date().toISOString();

export function createUser(db: Db, userId: string, displayName = userId): void {
  db.prepare("INSERT INTO users (user_id, display_name, created_at) VALUES (?, ?, ?)").run(userId, displayName, now());
}

/** Registers a device of a user and returns its new token. */
export function createDevice(db: Db, deviceId: string, userId: string, name = deviceId): string {
  const token = newToken();
  db.transaction(() => {
    db.prepare("INSERT INTO devices (device_id, user_id, name, created_at) VALUES (?, ?, ?, ?)").run(deviceId, userId, name, now());
    db.prepare("INSERT INTO tokens (token_sha256, role, device_id, created_at) VALUES (?, 'device', ?, ?)").run(sha256Hex(token), deviceId, now());
  })();
  return token;
}

/** Registers an agent and returns its new token. */
export function createAgent(db: Db, agentId: string, name = agentId): string {
  const token = newToken();
  db.transaction(() => {
    db.prepare("INSERT INTO agents (agent_id, name, created_at) VALUES (?, ?, ?)").run(agentId, name, now());
    db.prepare("INSERT INTO tokens (token_sha256, role, agent_id, created_at) VALUES (?, 'agent', ?, ?)").run(sha256Hex(token), agentId, now());
  })();
  return token;
}

export function agentExists(db: Db, agentId: string): boolean {
  return db.prepare("SELECT 1 FROM agents WHERE agent_id = ?").get(agentId) !== undefined;
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
 * On a fresh data directory: a dev user with one device and the demo agent, their tokens written to
 * `<dataDir>/dev-credentials.json` (mode 0600) — the only place the tokens exist in clear.
 */
export function provisionDevCredentials(db: Db, dataDir: string): DevCredentials {
  const credentials = db.transaction((): DevCredentials => {
    createUser(db, DEV_USER_ID, "Dev user");
    return { device_token: createDevice(db, DEV_DEVICE_ID, DEV_USER_ID, "Dev device"), agent_token: createAgent(db, DEV_AGENT_ID, "Demo agent") };
  })();
  writeFileSync(join(dataDir, DEV_CREDENTIALS_FILE), `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  return credentials;
}
