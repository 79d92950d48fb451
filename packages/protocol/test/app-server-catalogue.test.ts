import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  APP_SERVER_METHODS,
  APP_SERVER_NOTIFICATIONS,
  APP_SERVER_SCHEMAS,
  ALL_SCHEMAS,
  COMMON_ERRORS,
  ERROR_CODES,
  SESSION_EVENT_KINDS,
  isErrorCode,
  methodsForRole,
  validateNotificationParams,
  validateRequestParams,
  validateSessionEvent,
  validateSessionEventFrame,
  validators,
  type MethodSpec,
} from "@lineup/protocol";

const specs = Object.values(APP_SERVER_METHODS) as MethodSpec[];
const docs = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "docs", "app-server-protocol.md"), "utf8");

const envelope = (overrides: Record<string, unknown> = {}) => ({
  v: 1,
  id: "env-1",
  type: "lineup.tool.invoke",
  timestamp: "2026-08-06T10:00:00.000Z",
  sender: { kind: "agent", id: "agent-1" },
  target: { kind: "app", app_scope: "whiteboard" },
  scope: { app_scope: "whiteboard", conversation_id: "s1" },
  correlation: { call_id: "call-1", inventory_revision: "3" },
  payload: { method: "board.create", arguments: {} },
  ...overrides,
});

describe("the App Server catalogue", () => {
  it("registers every schema with a generated validator", () => {
    const ids = new Set(ALL_SCHEMAS.map((s) => s.$id));
    for (const schema of APP_SERVER_SCHEMAS) {
      expect(ids.has(schema.$id), `${schema.$id} in ALL_SCHEMAS`).toBe(true);
      expect(validators[schema.$id!], `validator for ${schema.$id}`).toBeTypeOf("function");
    }
    for (const spec of specs) {
      expect(validators[spec.params.$id!], `${spec.method} params`).toBeTypeOf("function");
      expect(validators[spec.result.$id!], `${spec.method} result`).toBeTypeOf("function");
    }
    for (const n of Object.values(APP_SERVER_NOTIFICATIONS)) expect(validators[n.params.$id!], n.method).toBeTypeOf("function");
    for (const k of Object.values(SESSION_EVENT_KINDS)) expect(validators[k.data.$id!], k.kind).toBeTypeOf("function");
  });

  it("names methods area/verb and lists only codes from the error table", () => {
    for (const spec of specs) {
      expect(spec.method === "initialize" || /^[a-z][A-Za-z]*(\/[a-z][A-Za-z]*)+$/.test(spec.method), spec.method).toBe(true);
      for (const code of [...spec.errors, ...COMMON_ERRORS]) expect(isErrorCode(code), `${spec.method}: ${code}`).toBe(true);
    }
  });

  it("requires idempotency_key on exactly the writes", () => {
    for (const spec of specs) {
      const required = (spec.params as { required?: string[] }).required ?? [];
      expect(required.includes("idempotency_key"), spec.method).toBe(spec.write);
      if (spec.write) expect(spec.errors, spec.method).toContain("idempotency_conflict");
    }
  });

  it("splits the methods by role", () => {
    const device = methodsForRole("device");
    const agent = methodsForRole("agent");
    expect(device).toEqual(expect.arrayContaining(["agentSession/start", "agentSession/turn/start", "agentSession/turn/cancel", "agentSession/action/respond", "inventory/publish"]));
    expect(device).not.toContain("agentSession/turn/complete");
    expect(agent).toEqual(expect.arrayContaining(["agentSession/turn/update", "agentSession/turn/complete", "agentSession/action/request", "inventory/read"]));
    expect(agent).not.toContain("agentSession/start");
    expect(agent).not.toContain("inventory/publish");
    expect(device).not.toContain("initialize");
    for (const both of ["agentSession/read", "agentSession/subscribe", "agentSession/envelope/send", "artifact/put", "artifact/read", "evidence/export", "capability/list"]) {
      expect(device, both).toContain(both);
      expect(agent, both).toContain(both);
    }
  });

  it("documents every method, notification, event kind and error code in docs/app-server-protocol.md", () => {
    for (const spec of specs) {
      expect(docs, spec.method).toContain(`\`${spec.method}\``);
      for (const code of spec.errors) expect(docs, `${spec.method} ${code}`).toContain(`\`${code}\``);
    }
    for (const n of Object.keys(APP_SERVER_NOTIFICATIONS)) expect(docs, n).toContain(`\`${n}\``);
    for (const k of Object.keys(SESSION_EVENT_KINDS)) expect(docs, k).toContain(`\`${k}\``);
  });
});

describe("validateRequestParams", () => {
  const start = { idempotency_key: "k1", app_scope: "chat", workspace_id: "w1", agent_id: "agent-1" };

  it("accepts valid params and narrows the call", () => {
    const r = validateRequestParams("agentSession/start", "device", start);
    expect(r).toEqual({ ok: true, value: { method: "agentSession/start", params: start } });
  });

  it("refuses in the documented order: method, handshake, role, params", () => {
    expect(validateRequestParams("nope/nothing", "device", {})).toMatchObject({ ok: false, error: { code: "method_not_found" } });
    expect(validateRequestParams("agentSession/start", undefined, start)).toMatchObject({ ok: false, error: { code: "not_initialized" } });
    expect(validateRequestParams("initialize", "agent", {})).toMatchObject({ ok: false, error: { code: "already_initialized" } });
    expect(validateRequestParams("agentSession/start", "agent", start)).toMatchObject({ ok: false, error: { code: "method_not_found" } });
    expect(validateRequestParams("agentSession/start", "device", { ...start, app_scope: "Not A Scope" })).toMatchObject({
      ok: false,
      error: { code: "invalid_params", path: "/app_scope" },
    });
  });

  it("treats absent params as {} and refuses positional params", () => {
    expect(validateRequestParams("agentSession/list", "agent", undefined)).toMatchObject({ ok: true });
    expect(validateRequestParams("agentSession/list", "agent", [1])).toMatchObject({ ok: false, error: { code: "invalid_params", path: "" } });
    expect(validateRequestParams("agentSession/read", "agent", undefined)).toMatchObject({ ok: false, error: { code: "invalid_params", path: "/session_id" } });
  });

  it("refuses unknown members", () => {
    expect(validateRequestParams("agentSession/read", "device", { session_id: "s1", extra: 1 })).toMatchObject({ ok: false, error: { code: "invalid_params", path: "/extra" } });
  });

  it("checks a carried envelope with the envelope's own codes", () => {
    const send = (env: unknown, role: "device" | "agent" = "agent") =>
      validateRequestParams("agentSession/envelope/send", role, { session_id: "s1", idempotency_key: "k", envelope: env });
    expect(send(envelope())).toMatchObject({ ok: true });
    expect(send(envelope({ scope: { app_scope: "whiteboard", conversation_id: "other" } }))).toMatchObject({
      ok: false,
      error: { code: "scope_mismatch", path: "/envelope/scope/conversation_id" },
    });
    expect(send(envelope(), "device")).toMatchObject({ ok: false, error: { code: "sender_not_allowed", path: "/envelope/sender/kind" } });
    expect(send(envelope({ payload: { method: "board.create" } }))).toMatchObject({ ok: false, error: { code: "payload_invalid", path: "/envelope/payload/arguments" } });
    expect(send(envelope({ correlation: { call_id: "c" } }))).toMatchObject({ ok: false, error: { code: "correlation_missing", path: "/envelope/correlation/inventory_revision" } });
    expect(send(envelope({ v: 2 }))).toMatchObject({ ok: false, error: { code: "envelope_unsupported_version" } });
  });

  it("applies the rules a schema cannot state", () => {
    expect(validateRequestParams("agentSession/start", "device", { ...start, session_id: "runtime:global" })).toMatchObject({ ok: false, error: { code: "scope_invalid" } });
    expect(validateRequestParams("agentSession/turn/complete", "agent", { session_id: "s1", turn_id: "t1", idempotency_key: "k", outcome: "failed" })).toMatchObject({
      ok: false,
      error: { code: "invalid_params", path: "/error" },
    });
    expect(validateRequestParams("agentSession/turn/update", "agent", { session_id: "s1", turn_id: "t1", idempotency_key: "k" })).toMatchObject({ ok: false, error: { code: "invalid_params" } });
    expect(validateRequestParams("agentSession/action/request", "agent", { session_id: "s1", idempotency_key: "k", kind: "choice", prompt: "Pick" })).toMatchObject({
      ok: false,
      error: { code: "invalid_params", path: "/options" },
    });
    const put = { session_id: "s1", idempotency_key: "k", artifact_id: "a1", name: "a.txt", mime_type: "text/plain", size: 2, sha256: "0".repeat(64), offset: 0 };
    expect(validateRequestParams("artifact/put", "device", { ...put, data: "aGk=" })).toMatchObject({ ok: true });
    expect(validateRequestParams("artifact/put", "device", { ...put, data: "aGkh" })).toMatchObject({ ok: false, error: { code: "invalid_params", path: "/data" } });
    expect(validateRequestParams("artifact/put", "device", { ...put, data: "a=Gk" })).toMatchObject({ ok: false, error: { code: "invalid_params", path: "/data" } });
    const tool = { app_scope: "whiteboard", method: "board.create", contract_version: "1", title: "Create", description: "d", input_schema: {}, call_model: "command" };
    expect(validateRequestParams("inventory/publish", "device", { session_id: "s1", idempotency_key: "k", revision: 1, tools: [tool, tool] })).toMatchObject({
      ok: false,
      error: { code: "invalid_params", path: "/tools/1/method" },
    });
  });

  it("validates client notifications", () => {
    expect(validateNotificationParams("initialized", undefined)).toMatchObject({ ok: true });
    expect(validateNotificationParams("agentSession/event", {})).toMatchObject({ ok: false, error: { code: "method_not_found" } });
  });
});

describe("validateSessionEvent", () => {
  it("checks the frame and the kind's data", () => {
    const event = { session_id: "s1", seq: 2, kind: "turn.activated", created_at: "2026-08-06T10:00:00.000Z", actor: { role: "server", id: "server" }, data: { turn_id: "t1" } };
    expect(validateSessionEvent(event)).toMatchObject({ ok: true });
    expect(validateSessionEvent({ ...event, seq: 0 })).toMatchObject({ ok: false, error: { code: "invalid_params", path: "/seq" } });
    expect(validateSessionEvent({ ...event, data: { turn: "t1" } })).toMatchObject({ ok: false, error: { code: "invalid_params", path: "/data/turn_id" } });
    expect(validateSessionEvent({ ...event, kind: "turn.exploded" })).toMatchObject({ ok: false, error: { code: "invalid_params", path: "/kind" } });
  });

  it("validateSessionEventFrame checks the frame only: the data is the reader's to check", () => {
    const event = { session_id: "s1", seq: 3, kind: "envelope", created_at: "2026-08-06T10:00:00.000Z", actor: { role: "agent", id: "agent-1" }, data: { envelope: envelope({ v: 2 }) } };
    expect(validateSessionEventFrame(event)).toMatchObject({ ok: true });
    expect(validateSessionEvent(event)).toMatchObject({ ok: false, error: { code: "invalid_params" } });
    expect(validateSessionEventFrame({ ...event, seq: 0 })).toMatchObject({ ok: false, error: { code: "invalid_params", path: "/seq" } });
    expect(validateSessionEventFrame({ ...event, data: "text" })).toMatchObject({ ok: false, error: { code: "invalid_params", path: "/data" } });
  });

  it("every retryable code is one the server never stores for idempotency", () => {
    // The doc promises stored failures are exactly the non-retryable ones; keep the table honest.
    expect(ERROR_CODES.overloaded.retryable).toBe(true);
    expect(ERROR_CODES.store_write_failed.retryable).toBe(true);
    expect(ERROR_CODES.invalid_state.retryable).toBe(false);
  });
});

describe("the app-server validators, split by receiver", () => {
  it("a client's module holds what the server sends, the server's module the rest, and no schema is lost", async () => {
    const { validators: client } = await import("../src/generated/app-server-client.js");
    const { validators: server } = await import("../src/generated/app-server.js");
    const notifications = Object.values(APP_SERVER_NOTIFICATIONS) as { direction: string; params: { $id?: string } }[];
    for (const n of notifications) expect(n.direction === "server_to_client" ? client : server, n.params.$id).toHaveProperty([n.params.$id!]);
    expect(client).toHaveProperty([SESSION_EVENT_KINDS["turn.completed"].data.$id!]);
    for (const spec of specs) expect(Object.keys(client), spec.method).not.toContain(spec.params.$id);
    const ids = APP_SERVER_SCHEMAS.map((s) => s.$id!);
    expect(ids.filter((id) => !(id in client) && !(id in server))).toEqual([]);
    expect(Object.keys(client).filter((id) => id in server)).toEqual([]);
    for (const id of ids) expect(validators[id], id).toBe(client[id] ?? server[id]);
  });
});
