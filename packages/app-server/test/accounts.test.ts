/**
 * Accounts an operator manages through the admin face (`POST /admin`): users, devices, agents, pairing codes,
 * tenants. Tokens work once issued, are stored only as SHA-256, and a revocation closes the live connections it
 * cuts off at once with 4003 (`revoked`) while every other principal carries on. Isolation across two real users,
 * each with two devices and an agent of their own (RELIABILITY B8). On SQLite and on PostgreSQL.
 */
import { APP_SERVER_PROTOCOL_VERSION, CLOSE_CODES } from "@lineup/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAIR_ATTEMPTS } from "../src/admin.js";
import type { Store } from "../src/store/database.js";
import { adminCall, adminRequest, agentEnvelope, key, probeStore, START, startTestServer, TestClient, type TestServer } from "./helpers.js";

let server: TestServer;
let probe: Store;
const open: TestClient[] = [];

async function connect(token: string): Promise<TestClient> {
  const client = await TestClient.open(server, token);
  open.push(client);
  return client;
}

async function initializeRefusal(token: string): Promise<string> {
  const client = await TestClient.connect(server.url);
  open.push(client);
  const reply = await client.request("initialize", { protocol_version: APP_SERVER_PROTOCOL_VERSION, client_info: { name: "t" }, token });
  return reply.error?.data?.code ?? "accepted";
}

beforeAll(async () => {
  server = await startTestServer();
  probe = await probeStore(server);
});

afterAll(async () => {
  for (const c of open) await c.close();
  await probe.close();
  await server.dispose();
});

describe("the admin face", () => {
  it("refuses a request without the admin token, or with a device token, as unauthorized", async () => {
    for (const token of [null, "not-a-token", server.devCredentials!.device_token]) {
      const { status, body } = await adminRequest(server, "admin/user/list", {}, token);
      expect(status).toBe(401);
      expect(body.error).toMatchObject({ code: -32002, data: { code: "unauthorized" } });
    }
  });

  it("answers an unknown method, bad params and an unknown member with typed errors", async () => {
    expect((await adminRequest(server, "admin/user/explode")).body.error.data.code).toBe("method_not_found");
    expect((await adminRequest(server, "admin/user/add", { user_id: "bad id!" })).body.error.data).toMatchObject({ code: "invalid_params", path: "/user_id" });
    expect((await adminRequest(server, "admin/user/add", { user_id: "u-x", colour: "red" })).body.error.data).toMatchObject({ code: "invalid_params", path: "/colour" });
    expect((await adminRequest(server, "admin/device/add", { user_id: "nobody" })).body.error.data).toMatchObject({ code: "not_found", path: "/user_id" });
  });

  it("adds and lists users, refuses a second user with the same id, and stores no secret in clear", async () => {
    const { user } = await adminCall(server, "admin/user/add", { user_id: "carol", display_name: "Carol" });
    expect(user).toMatchObject({ user_id: "carol", display_name: "Carol", disabled_at: null, devices: 0 });
    expect((await adminRequest(server, "admin/user/add", { user_id: "carol" })).body.error.data.code).toBe("invalid_state");
    const { users } = await adminCall(server, "admin/user/list");
    expect(users.map((u: { user_id: string }) => u.user_id)).toEqual(["carol", "dev-user"]);
    const { token } = await adminCall(server, "admin/device/add", { user_id: "carol", device_id: "carol-laptop" });
    // Recognisable to a secret scanner, and never read as a flag on a command line.
    expect(token).toMatch(/^lu_[A-Za-z0-9_-]{43}$/);
    const client = await connect(token);
    expect((await client.call("agentSession/list")).sessions).toEqual([]);
    const atRest = JSON.stringify([await probe.reader.all("SELECT * FROM tokens"), await probe.reader.all("SELECT * FROM admin_tokens")]);
    expect(atRest).not.toContain(token);
    expect(atRest).not.toContain(server.adminToken);
  });
});

describe("two users, each with two devices and an agent of their own", () => {
  const tokens: Record<string, string> = {};
  const c: Record<string, TestClient> = {};

  beforeAll(async () => {
    for (const user of ["alice", "bob"]) {
      await adminCall(server, "admin/user/add", { user_id: user });
      for (const n of [1, 2]) tokens[`${user}-${n}`] = (await adminCall(server, "admin/device/add", { user_id: user, device_id: `${user}-${n}` })).token;
      tokens[`${user}-agent`] = (await adminCall(server, "admin/agent/add", { agent_id: `${user}-agent`, owner_user_id: user })).token;
      for (const name of [`${user}-1`, `${user}-2`, `${user}-agent`]) c[name] = await connect(tokens[name]!);
      await c[`${user}-1`]!.call("agentSession/start", START(`s-${user}`, { agent_id: `${user}-agent` }));
    }
  });

  it("lists each user's devices and agents", async () => {
    expect((await adminCall(server, "admin/device/list", { user_id: "alice" })).devices.map((d: { device_id: string }) => d.device_id)).toEqual(["alice-1", "alice-2"]);
    expect((await adminCall(server, "admin/agent/list", { owner_user_id: "bob" })).agents).toEqual([expect.objectContaining({ agent_id: "bob-agent", owner_user_id: "bob", revoked_at: null })]);
  });

  it("neither sees the other's sessions, events, presence or tools", async () => {
    await c["alice-2"]!.call("agentSession/subscribe", { session_id: "s-alice", after_seq: 0 });
    await c["bob-2"]!.call("agentSession/subscribe", { session_id: "s-bob", after_seq: 0 });
    expect((await c["alice-2"]!.call("agentSession/list")).sessions.map((s: { session_id: string }) => s.session_id)).toEqual(["s-alice"]);
    expect((await c["bob-agent"]!.call("agentSession/list")).sessions.map((s: { session_id: string }) => s.session_id)).toEqual(["s-bob"]);
    for (const [who, other] of [["bob", "alice"], ["alice", "bob"]] as const) {
      for (const name of [`${who}-1`, `${who}-agent`]) {
        expect(await c[name]!.refusal("agentSession/read", { session_id: `s-${other}` })).toBe("session_not_found");
        expect(await c[name]!.refusal("agentSession/subscribe", { session_id: `s-${other}`, after_seq: 0 })).toBe("session_not_found");
        expect(await c[name]!.refusal("inventory/read", { session_id: `s-${other}` })).toBe("session_not_found");
      }
      // An agent of one user cannot be bound to the other's sessions: it is not there for them.
      expect(await c[`${who}-1`]!.refusal("agentSession/start", START(`s-${who}-borrow`, { agent_id: `${other}-agent` }))).toBe("not_found");
    }
    await c["alice-agent"]!.call("agentSession/envelope/send", { session_id: "s-alice", idempotency_key: key(), envelope: agentEnvelope("s-alice", "env-alice-1", "alice-agent") });
    await c["alice-2"]!.waitFor((f) => f.method === "agentSession/event" && f.params.data?.envelope?.id === "env-alice-1");
    await c["bob-agent"]!.call("agentSession/envelope/send", { session_id: "s-bob", idempotency_key: key(), envelope: agentEnvelope("s-bob", "env-bob-1", "bob-agent") });
    await c["bob-2"]!.waitFor((f) => f.method === "agentSession/event" && f.params.data?.envelope?.id === "env-bob-1");
    const sessionsHeard = (client: TestClient) => new Set(client.frames.filter((f) => f.method?.startsWith("agentSession/") && f.params?.session_id !== undefined).map((f) => f.params.session_id));
    expect(sessionsHeard(c["alice-2"]!)).toEqual(new Set(["s-alice"]));
    expect(sessionsHeard(c["bob-2"]!)).toEqual(new Set(["s-bob"]));
    const presence = (client: TestClient) => client.frames.filter((f) => f.method === "agentSession/presence").map((f) => f.params.agent_id);
    expect(new Set(presence(c["alice-2"]!))).toEqual(new Set(["alice-agent"]));
    expect(new Set(presence(c["bob-2"]!))).toEqual(new Set(["bob-agent"]));
  });

  it("revoking one of bob's devices closes it at once with 4003 and touches nobody else", async () => {
    const reply = await adminCall(server, "admin/device/revoke", { device_id: "bob-2" });
    expect(reply).toEqual({ device_id: "bob-2", closed_connections: 1 });
    expect((await c["bob-2"]!.closed).code).toBe(CLOSE_CODES.revoked);
    expect(await initializeRefusal(tokens["bob-2"]!)).toBe("unauthorized");
    for (const name of ["bob-1", "alice-1", "alice-2"]) expect((await c[name]!.call("agentSession/list")).sessions.length).toBe(1);
    expect((await c["bob-1"]!.call("agentSession/read", { session_id: "s-bob" })).session.session_id).toBe("s-bob");
  });

  it("rotating alice's agent closes its connection, refuses the old token and accepts the new one", async () => {
    const { token, closed_connections } = await adminCall(server, "admin/agent/rotate", { agent_id: "alice-agent" });
    expect(closed_connections).toBe(1);
    expect((await c["alice-agent"]!.closed).code).toBe(CLOSE_CODES.revoked);
    expect(await initializeRefusal(tokens["alice-agent"]!)).toBe("unauthorized");
    const renewed = await connect(token);
    expect((await renewed.call("agentSession/list")).sessions.map((s: { session_id: string }) => s.session_id)).toEqual(["s-alice"]);
    expect((await c["bob-agent"]!.call("agentSession/list")).sessions.length).toBe(1);
  });

  it("disabling bob closes his devices and his agent, refuses their tokens, and alice carries on", async () => {
    const { closed_connections } = await adminCall(server, "admin/user/disable", { user_id: "bob" });
    expect(closed_connections).toBe(2);
    expect((await c["bob-1"]!.closed).code).toBe(CLOSE_CODES.revoked);
    expect((await c["bob-agent"]!.closed).code).toBe(CLOSE_CODES.revoked);
    expect(await initializeRefusal(tokens["bob-1"]!)).toBe("unauthorized");
    expect(await initializeRefusal(tokens["bob-agent"]!)).toBe("unauthorized");
    expect((await adminRequest(server, "admin/device/add", { user_id: "bob" })).body.error.data.code).toBe("invalid_state");
    expect((await c["alice-1"]!.call("agentSession/read", { session_id: "s-alice" })).session.owner_user_id).toBe("alice");
  });

  it("revoking an agent closes it and no new session can be bound to it", async () => {
    await adminCall(server, "admin/agent/add", { agent_id: "alice-helper", owner_user_id: "alice" }).then(async ({ token }) => (c["alice-helper"] = await connect(token)));
    expect((await adminCall(server, "admin/agent/revoke", { agent_id: "alice-helper" })).closed_connections).toBe(1);
    expect((await c["alice-helper"]!.closed).code).toBe(CLOSE_CODES.revoked);
    expect(await c["alice-1"]!.refusal("agentSession/start", START("s-helper", { agent_id: "alice-helper" }))).toBe("not_found");
  });
});

describe("pairing", () => {
  const pair = (body: unknown) => fetch(`${server.httpUrl}/pair`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  it("exchanges a code for a working device token once, stores only its hash, and refuses it again", async () => {
    await adminCall(server, "admin/user/add", { user_id: "dana" });
    const { code, expires_at } = await adminCall(server, "admin/device/pair", { user_id: "dana" });
    expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(Date.parse(expires_at) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(JSON.stringify(await probe.reader.all("SELECT * FROM pairing_codes"))).not.toContain(code.replace("-", ""));
    const response = await pair({ code: code.toLowerCase(), device_name: "Dana's phone" });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    const paired = await response.json();
    expect(paired).toMatchObject({ user_id: "dana", device_id: expect.stringMatching(/^device-/) });
    const client = await connect(paired.device_token);
    expect((await client.call("agentSession/start", START("s-dana"))).session.owner_user_id).toBe("dana");
    const again = await pair({ code });
    expect(again.status).toBe(401);
    expect((await again.json()).error.code).toBe("unauthorized");
    expect((await adminCall(server, "admin/device/list", { user_id: "dana" })).devices).toEqual([expect.objectContaining({ name: "Dana's phone", revoked_at: null })]);
  });

  it("refuses an expired code, an unknown one and a malformed body with typed errors", async () => {
    const { code } = await adminCall(server, "admin/device/pair", { user_id: "dana" });
    await probe.writer.run("UPDATE pairing_codes SET expires_at = ? WHERE device_id IS NULL", ["2000-01-01T00:00:00.000Z"]);
    for (const body of [{ code }, { code: "ZZZZ-ZZZZ" }]) {
      const response = await pair(body);
      expect([response.status, (await response.json()).error.code]).toEqual([401, "unauthorized"]);
    }
    const malformed = await pair({ code: 42 });
    expect([malformed.status, (await malformed.json()).error.code]).toEqual([400, "invalid_params"]);
    const preflight = await fetch(`${server.httpUrl}/pair`, { method: "OPTIONS" });
    expect([preflight.status, preflight.headers.get("access-control-allow-methods")]).toEqual([204, "POST"]);
  });

  it("bounds how fast one address tries codes: past the burst even a good code is refused 429 until a token comes back", async () => {
    // Time on this server's clock is the test's to move; everything else about it is real.
    let skewMs = 0;
    const own = await startTestServer({ clock: { now: () => new Date(Date.now() + skewMs).toISOString(), nowMs: () => Date.now() + skewMs } });
    try {
      const tryCode = (code: string) => fetch(`${own.httpUrl}/pair`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code }) });
      await adminCall(own, "admin/user/add", { user_id: "gus" });
      const { code } = await adminCall(own, "admin/device/pair", { user_id: "gus" });
      for (let i = 0; i < PAIR_ATTEMPTS.burst; i++) expect((await tryCode(`ZZZZ-ZZZ${i}`)).status).toBe(401);
      const limited = await tryCode(code);
      expect(limited.status).toBe(429);
      expect((await limited.json()).error.code).toBe("rate_limited");
      const retryAfter = Number(limited.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(Math.ceil(1 / PAIR_ATTEMPTS.perSecond));
      // The refused attempt did not use the code: once a token is back, it pairs.
      skewMs += retryAfter * 1000;
      const paired = await tryCode(code);
      expect(paired.status).toBe(200);
      expect(await paired.json()).toMatchObject({ user_id: "gus" });
      // And the next one waits again.
      expect((await tryCode("ZZZZ-ZZZZ")).status).toBe(429);
    } finally {
      await own.dispose();
    }
  });
});

describe("tenants", () => {
  it("delivers a tenant's allowlist and policy to its users' devices in initialize, and refuses bad settings", async () => {
    const { tenant } = await adminCall(server, "admin/tenant/set", { tenant_id: "acme", name: "Acme", app_allowlist: ["whiteboard", "whiteboard"], policy: { denied_capabilities: ["camera.capture"] } });
    expect(tenant).toMatchObject({ tenant_id: "acme", name: "Acme", app_allowlist: ["whiteboard"], policy: { denied_capabilities: ["camera.capture"] } });
    await adminCall(server, "admin/user/add", { user_id: "finn", tenant_id: "acme" });
    const { token } = await adminCall(server, "admin/device/add", { user_id: "finn" });
    const client = await TestClient.connect(server.url);
    open.push(client);
    const init = await client.call("initialize", { protocol_version: APP_SERVER_PROTOCOL_VERSION, client_info: { name: "t" }, token });
    expect(init.tenant).toEqual({ tenant_id: "acme", app_allowlist: ["whiteboard"], policy: { denied_capabilities: ["camera.capture"] } });
    const devOnly = await TestClient.connect(server.url);
    open.push(devOnly);
    expect((await devOnly.call("initialize", { protocol_version: APP_SERVER_PROTOCOL_VERSION, client_info: { name: "t" }, token: server.devCredentials!.device_token })).tenant).toBeUndefined();
    expect((await adminRequest(server, "admin/tenant/set", { tenant_id: "acme", app_allowlist: ["Not An App"] })).body.error.data).toMatchObject({ code: "invalid_params", path: "/app_allowlist" });
    expect((await adminRequest(server, "admin/tenant/set", { tenant_id: "acme", policy: { open_doors: [] } })).body.error.data).toMatchObject({ code: "invalid_params", path: "/policy/open_doors" });
    expect((await adminRequest(server, "admin/user/tenant", { user_id: "finn", tenant_id: "nope" })).body.error.data).toMatchObject({ code: "not_found", path: "/tenant_id" });
    expect((await adminCall(server, "admin/tenant/list")).tenants.map((t: { tenant_id: string }) => t.tenant_id)).toEqual(["acme"]);
  });
});
