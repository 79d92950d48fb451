/**
 * A tenant's settings from the real AppServer, applied by the Runtime: the operator puts a user in a tenant that
 * allows only the whiteboard; when the user's device next signs in, an app it installed before that is outside
 * the allowlist is disabled and cannot be enabled again, installing another is refused at authorization with `policy_denied`, and the
 * whiteboard carries on.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AppManifest } from "@lineup/protocol";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createNodeRuntime, type NodeRuntime } from "../src/node/index.js";
import { withTenantAppPolicy, withTenantCapabilityPolicy } from "../src/host-facts.js";
import { whiteboardManifest } from "./apps-fixtures.js";
import { publisherKey, signedBundle } from "./helpers/apps-harness.js";
import { until } from "./helpers/runtime-harness.js";

const dirs: string[] = [];
const temp = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
let server: AppServerHandle;
let runtime: NodeRuntime | undefined;

async function admin(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.httpUrl}/admin`, { method: "POST", headers: { authorization: `Bearer ${server.adminToken}` }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const reply = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (reply.result === undefined) throw new Error(`${method} refused: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

beforeAll(async () => {
  server = await startAppServer({ dataDir: temp("lineup-tenant-server-"), port: 0, logger: silentLogger });
});

afterAll(async () => {
  await runtime?.stop();
  await server.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

it("disables an installed app outside the tenant's allowlist, refuses enabling it and installing another", async () => {
  await admin("admin/user/add", { user_id: "ann" });
  const { token } = (await admin("admin/device/add", { user_id: "ann" })) as { token: string };
  const key = await publisherKey();
  runtime = await createNodeRuntime({ serverUrl: server.url, token, dataDir: temp("lineup-tenant-device-"), trustedPublishers: [key.trustedKey], backoff: { baseMs: 20, capMs: 200 } });
  await runtime.start();
  await runtime.whenOnline();
  const notes = { ...whiteboardManifest(), app_scope: "notes" } as AppManifest;
  for (const manifest of [whiteboardManifest(), notes]) expect((await runtime.appManager.install(await signedBundle(manifest, key), { approved: true })).status).toBe("succeeded");

  await admin("admin/tenant/set", { tenant_id: "acme", app_allowlist: ["whiteboard"], policy: { blocked_execution_modes: ["server-assisted"] } });
  await admin("admin/user/tenant", { user_id: "ann", tenant_id: "acme" });
  runtime.dropConnection();
  await runtime.whenOnline();
  await until(() => runtime!.appManager.getApp("notes")?.record.enabled === false, 10_000, "notes disabled");
  expect(runtime.appManager.getApp("whiteboard")?.record.enabled).toBe(true);
  expect(await runtime.appManager.enable("notes")).toMatchObject({ status: "failed", error: { code: "policy_denied" } });
  expect(runtime.appManager.getApp("notes")?.record.enabled).toBe(false);

  const refused = await runtime.appManager.install(await signedBundle({ ...whiteboardManifest(), app_scope: "sketch" } as AppManifest, key), { approved: true });
  expect(refused).toMatchObject({ status: "failed", error: { code: "policy_denied" } });
  expect(refused.error?.message).toContain("allowlist");
  expect(refused.steps.find((s) => s.status === "failed")?.name).toBe("authorization");
  expect(runtime.appManager.getApp("sketch")).toBeUndefined();
});

it("adds a tenant's lists to the host's policy and keeps only apps both allow", () => {
  const tenant = { tenant_id: "acme", app_allowlist: ["whiteboard", "notes"], policy: { blocked_capabilities: ["camera.capture"], denied_capabilities: ["clipboard.write"], require_confirmation: ["microphone.record"] } };
  expect(withTenantAppPolicy({ allowed_apps: ["whiteboard", "sketch"], blocked_capabilities: ["location.read"] }, tenant)).toEqual({ allowed_apps: ["whiteboard"], blocked_capabilities: ["location.read", "camera.capture"] });
  expect(withTenantAppPolicy({ blocked_apps: ["x"] }, { tenant_id: "open", policy: {} })).toEqual({ blocked_apps: ["x"] });
  expect(withTenantCapabilityPolicy({ denied_capabilities: ["clipboard.write"], rate_limit: { max: 1, window_ms: 10 } }, tenant)).toEqual({
    denied_capabilities: ["clipboard.write"],
    require_confirmation: ["microphone.record"],
    rate_limit: { max: 1, window_ms: 10 },
  });
  expect(withTenantCapabilityPolicy({ request_timeout_ms: 5 }, undefined)).toEqual({ request_timeout_ms: 5 });
});

