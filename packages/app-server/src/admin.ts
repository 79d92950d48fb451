/**
 * The operator's faces of the server, on its HTTP port beside `/rpc`:
 *
 * - `POST /admin`: JSON-RPC 2.0 over HTTP (one message or a batch per request), authorized by an admin token
 *   (`Authorization: Bearer …`). Users, devices, agents and tenants are managed here; `lineup admin` is its
 *   client. A revocation commits, then closes the revoked principals' live connections with 4003 (`revoked`)
 *   on every server process of the store.
 * - `POST /pair`: a device exchanges a pairing code (`admin/device/pair`) for its token — plain JSON, and open to
 *   any origin, since a browser host on another origin calls it before it has any credential; the single-use
 *   code is the credential.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { answerFrame, createTokenBucket, decodeJson, decodeJsonRpc, isOpaqueId, isRecord, LineUpError, type JsonObject, type JsonRpcRequest, type JsonRpcResponse, type JsonValue, jsonRpcFailure, jsonRpcSuccess, type ProtocolError, type RateLimit, type ServerLimits, type TokenBucket } from "@lineup/protocol";
import type { Clock, IdSource } from "./clock.js";
import type { Logger } from "./logger.js";
import {
  addAgent,
  addDevice,
  addUser,
  createPairingCode,
  disableUser,
  isAdminToken,
  listAgents,
  listDevices,
  listTenants,
  listUsers,
  PAIRING_CODE_TTL_MS,
  redeemPairingCode,
  revokeAgent,
  revokeDevice,
  rotateAgent,
  setTenant,
  setUserTenant,
  type Revoked,
} from "./store/accounts.js";
import type { Db } from "./store/sql.js";
import type { WriteQueue } from "./write-queue.js";

export const ADMIN_PATH = "/admin";
export const PAIR_PATH = "/pair";
/** An admin request or a pairing body is small: a few ids and names. */
const MAX_BODY_BYTES = 64 * 1024;
/**
 * Pairing attempts per client address: 10 at once, then one every 6 seconds. A code is 40 bits, so one address
 * makes about 110 guesses in a code's 10 minutes: a chance of 1 in 10 billion.
 */
export const PAIR_ATTEMPTS: RateLimit = { burst: 10, perSecond: 1 / 6 };
/** Addresses whose attempts are remembered; past it, those whose bucket is full again are forgotten. */
const PAIR_ADDRESSES_KEPT = 4096;

export interface AdminDeps {
  readonly db: Db;
  readonly writes: WriteQueue;
  readonly limits: ServerLimits;
  readonly ids: IdSource;
  readonly clock: Clock;
  readonly logger: Logger;
  /** In a revocation's transaction: tells the other server processes of the store (PostgreSQL). */
  readonly announce: ((db: Db, revoked: readonly Revoked[]) => Promise<void>) | undefined;
  /** After a revocation committed: closes the principals' connections here; returns how many it closed. */
  revoked(principals: readonly Revoked[]): number;
  /** Maps what a handler threw to the error a client sees (the /rpc face's mapping: no stack traces). */
  toError(error: unknown): ProtocolError;
}

/** Reads a request's params by name: each reader refuses a wrong value with `invalid_params` at its pointer. */
class Params {
  private readonly used = new Set<string>();
  constructor(private readonly params: JsonObject) {}

  private take(name: string): JsonValue | undefined {
    this.used.add(name);
    return this.params[name];
  }

  id(name: string): string {
    const value = this.optionalId(name);
    if (value === undefined) throw new LineUpError("invalid_params", `${name} is required`, { path: `/${name}` });
    return value;
  }

  optionalId(name: string): string | undefined {
    const value = this.take(name);
    if (value === undefined) return undefined;
    if (!isOpaqueId(value)) throw new LineUpError("invalid_params", `${name} must be an id: 1–128 of A–Z a–z 0–9 . _ : ~ -, starting with a letter or digit`, { path: `/${name}` });
    return value;
  }

  text(name: string, fallback: string): string {
    const value = this.take(name);
    if (value === undefined) return fallback;
    if (typeof value !== "string" || value.trim() === "" || value.length > 200) throw new LineUpError("invalid_params", `${name} must be a non-empty string of at most 200 characters`, { path: `/${name}` });
    return value.trim();
  }

  count(name: string, fallback: number, max: number): number {
    const value = this.take(name);
    if (value === undefined) return fallback;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > max) throw new LineUpError("invalid_params", `${name} must be an integer 1…${max}`, { path: `/${name}` });
    return value;
  }

  raw(name: string): JsonValue | undefined {
    return this.take(name);
  }

  /** Refuses a member no reader took: params are closed objects. */
  done(): void {
    const extra = Object.keys(this.params).find((k) => !this.used.has(k));
    if (extra !== undefined) throw new LineUpError("invalid_params", `unknown member ${extra}`, { path: `/${extra}` });
  }
}

type AdminHandler = (p: Params, deps: AdminDeps) => Promise<unknown>;

const write = <T>(deps: AdminDeps, op: (db: Db) => Promise<T>) => deps.writes.submit((w) => op(w.db));

/** A revocation: commits, then closes the connections it cut off. */
async function revoke(deps: AdminDeps, op: (db: Db) => Promise<Revoked[]>): Promise<{ closed_connections: number }> {
  const revoked = await write(deps, async (db) => {
    const cut = await op(db);
    await deps.announce?.(db, cut);
    return cut;
  });
  return { closed_connections: deps.revoked(revoked) };
}

/** The admin methods, area/verb as on `/rpc` (STYLE 7). */
export const ADMIN_METHODS: Readonly<Record<string, AdminHandler>> = {
  "admin/user/add": (p, deps) => {
    const [userId, name, tenant] = [p.id("user_id"), p.text("display_name", ""), p.optionalId("tenant_id")];
    p.done();
    return write(deps, async (db) => ({ user: await addUser(db, userId, name === "" ? userId : name, tenant) }));
  },
  "admin/user/list": async (p, deps) => {
    p.done();
    return { users: await listUsers(deps.db) };
  },
  "admin/user/disable": async (p, deps) => {
    const userId = p.id("user_id");
    p.done();
    return { user_id: userId, ...(await revoke(deps, (db) => disableUser(db, userId))) };
  },
  "admin/user/tenant": (p, deps) => {
    const [userId, tenant] = [p.id("user_id"), p.optionalId("tenant_id")];
    p.done();
    return write(deps, async (db) => ({ user: await setUserTenant(db, userId, tenant) }));
  },
  "admin/device/add": (p, deps) => {
    const [userId, deviceId, name] = [p.id("user_id"), p.optionalId("device_id"), p.text("name", "")];
    p.done();
    const id = deviceId ?? deps.ids.next("device");
    return write(deps, (db) => addDevice(db, userId, id, name === "" ? id : name));
  },
  "admin/device/list": async (p, deps) => {
    const userId = p.optionalId("user_id");
    p.done();
    return { devices: await listDevices(deps.db, userId) };
  },
  "admin/device/revoke": async (p, deps) => {
    const deviceId = p.id("device_id");
    p.done();
    return { device_id: deviceId, ...(await revoke(deps, (db) => revokeDevice(db, deviceId))) };
  },
  "admin/device/pair": (p, deps) => {
    const [userId, ttl] = [p.id("user_id"), p.count("ttl_seconds", PAIRING_CODE_TTL_MS / 1000, 24 * 3600)];
    p.done();
    return write(deps, async (db) => ({ user_id: userId, ...(await createPairingCode(db, userId, ttl * 1000)) }));
  },
  "admin/agent/add": (p, deps) => {
    const [agentId, name, owner] = [p.id("agent_id"), p.text("name", ""), p.optionalId("owner_user_id")];
    p.done();
    return write(deps, (db) => addAgent(db, agentId, name === "" ? agentId : name, owner));
  },
  "admin/agent/list": async (p, deps) => {
    const owner = p.optionalId("owner_user_id");
    p.done();
    return { agents: await listAgents(deps.db, owner) };
  },
  "admin/agent/revoke": async (p, deps) => {
    const agentId = p.id("agent_id");
    p.done();
    return { agent_id: agentId, ...(await revoke(deps, (db) => revokeAgent(db, agentId))) };
  },
  "admin/agent/rotate": async (p, deps) => {
    const agentId = p.id("agent_id");
    p.done();
    const rotated = await write(deps, async (db) => {
      const done = await rotateAgent(db, agentId);
      await deps.announce?.(db, done.revoked);
      return done;
    });
    return { agent_id: agentId, token: rotated.token, closed_connections: deps.revoked(rotated.revoked) };
  },
  "admin/tenant/set": (p, deps) => {
    const [tenantId, name, allowlist, policy] = [p.id("tenant_id"), p.text("name", ""), p.raw("app_allowlist"), p.raw("policy")];
    p.done();
    return write(deps, async (db) => ({ tenant: await setTenant(db, tenantId, name === "" ? tenantId : name, allowlist, policy) }));
  },
  "admin/tenant/list": async (p, deps) => {
    p.done();
    return { tenants: await listTenants(deps.db) };
  },
};

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}

const bearer = (req: IncomingMessage): string | undefined => /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];

export function createAdminEndpoint(deps: AdminDeps) {
  const pairAttempts = new Map<string, TokenBucket>();
  /** The bucket of pairing attempts from one address (as this server sees it: behind a proxy, the proxy's). */
  const attemptsFrom = (address: string): TokenBucket => {
    let bucket = pairAttempts.get(address);
    if (bucket === undefined) {
      if (pairAttempts.size >= PAIR_ADDRESSES_KEPT) for (const [kept, b] of pairAttempts) if (b.idle()) pairAttempts.delete(kept);
      bucket = createTokenBucket(PAIR_ATTEMPTS, () => deps.clock.nowMs());
      pairAttempts.set(address, bucket);
    }
    return bucket;
  };
  const answer = async (request: JsonRpcRequest): Promise<JsonRpcResponse> => {
    const handler = Object.hasOwn(ADMIN_METHODS, request.method) ? ADMIN_METHODS[request.method] : undefined;
    if (handler === undefined) return jsonRpcFailure(request.id, { code: "method_not_found", message: `method "${request.method.slice(0, 128)}" does not exist on the admin face` });
    const params = request.params ?? {};
    if (typeof params !== "object" || params === null || Array.isArray(params)) return jsonRpcFailure(request.id, { code: "invalid_params", message: "params must be an object (by-name)", path: "" });
    try {
      const result = await handler(new Params(params as JsonObject), deps);
      deps.logger.info("admin request", { method: request.method });
      return jsonRpcSuccess(request.id, result as JsonValue);
    } catch (error) {
      return jsonRpcFailure(request.id, deps.toError(error));
    }
  };

  return {
    /** `POST /admin`. */
    async admin(req: IncomingMessage, res: ServerResponse): Promise<void> {
      if (req.method !== "POST") return sendJson(res, 405, jsonRpcFailure(null, { code: "invalid_request", message: "POST a JSON-RPC request" }), { allow: "POST" });
      const token = bearer(req);
      if (token === undefined || !(await isAdminToken(deps.db, token))) {
        req.resume();
        return sendJson(res, 401, jsonRpcFailure(null, { code: "unauthorized", message: "the admin face needs an admin token: Authorization: Bearer <token>" }), { "www-authenticate": "Bearer" });
      }
      const body = await readBody(req);
      if (body === undefined) return sendJson(res, 413, jsonRpcFailure(null, { code: "message_too_large", message: `an admin request is at most ${MAX_BODY_BYTES} bytes` }));
      const decoded = decodeJsonRpc(body, { maxBytes: MAX_BODY_BYTES, maxDepth: deps.limits.max_json_depth, maxBatch: deps.limits.max_batch });
      const reply = await answerFrame(decoded, answer);
      if (reply === undefined) {
        res.writeHead(204).end();
        return;
      }
      sendJson(res, 200, reply);
    },

    /** `POST /pair` (and its CORS preflight): `{code, device_name?}` → `{user_id, device_id, device_token}`. */
    async pair(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const cors = { "access-control-allow-origin": "*", "access-control-allow-methods": "POST", "access-control-allow-headers": "content-type", "access-control-max-age": "600" };
      if (req.method === "OPTIONS") {
        res.writeHead(204, cors).end();
        return;
      }
      if (req.method !== "POST") return sendJson(res, 405, { error: { code: "invalid_request", message: "POST {code, device_name?}" } }, { ...cors, allow: "POST, OPTIONS" });
      const body = await readBody(req);
      const decoded = body === undefined ? undefined : decodeJson(body, { maxBytes: MAX_BODY_BYTES, maxDepth: 4 });
      const value = decoded?.ok === true ? decoded.value : undefined;
      const code = isRecord(value) ? value["code"] : undefined;
      const name = isRecord(value) ? (value["device_name"] ?? "Paired device") : undefined;
      if (typeof code !== "string" || code.length > 32 || typeof name !== "string" || name.trim() === "" || name.length > 200) {
        return sendJson(res, 400, { error: { code: "invalid_params", message: "the body is {code, device_name?}: the pairing code as shown, a device name of at most 200 characters" } }, cors);
      }
      // Each attempt at a code counts, whatever its outcome: a guesser learns nothing from which ones.
      const attempts = attemptsFrom(req.socket.remoteAddress ?? "");
      if (!attempts.take()) {
        const seconds = Math.ceil(attempts.waitMs() / 1000);
        deps.logger.warn("pairing attempts refused", { address: req.socket.remoteAddress ?? "" });
        return sendJson(res, 429, { error: { code: "rate_limited", message: `too many pairing attempts from this address: try again in ${seconds} s` } }, { ...cors, "retry-after": String(seconds), "access-control-expose-headers": "retry-after" });
      }
      try {
        const paired = await deps.writes.submit((w) => redeemPairingCode(w.db, code, name.trim(), deps.ids.next("device")));
        deps.logger.info("device paired", { user: paired.user_id, device: paired.device_id });
        sendJson(res, 200, { user_id: paired.user_id, device_id: paired.device_id, device_token: paired.token }, cors);
      } catch (error) {
        const refused = deps.toError(error);
        sendJson(res, refused.code === "unauthorized" ? 401 : refused.code === "store_write_failed" ? 503 : 500, { error: refused }, cors);
      }
    },
  };
}
