import { describe, expect, it } from "vitest";
import type { AppScope } from "@lineup/protocol";
import {
  decideDisable,
  decideEnable,
  decideInstall,
  decideRemove,
  decideRollback,
  decideSetDefaultApp,
  decideUpdate,
  decideUpdateApproval,
  getApp,
  getManagedApp,
  listApps,
  compareVersions,
  RETAINED_VERSIONS,
  type AppRegistryState,
} from "../src/app-lifecycle/manager/index.js";
import { candidate, coreRegistry, FULL_HOST, T0, whiteboardManifest, whiteboardWithClipboard } from "./apps-fixtures.js";

let op = 0;
const nextOp = () => `op-${++op}`;

function installed(version = "1.0.0"): AppRegistryState {
  const d = decideInstall(coreRegistry(), { operation_id: nextOp(), candidate: candidate(whiteboardManifest(version)), approved: true, now: T0 }, FULL_HOST);
  expect(d.operation.status).toBe("succeeded");
  return d.state;
}

function update(state: AppRegistryState, manifest: unknown, digest?: string) {
  return decideUpdate(state, { operation_id: nextOp(), app_scope: "whiteboard", candidate: candidate(manifest, digest), now: T0 + 1000 }, FULL_HOST);
}

describe("semantic version order", () => {
  it("orders by semver precedence, pre-releases before releases, build metadata ignored", () => {
    const ordered = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.2.0", "2.0.0"];
    for (let i = 0; i + 1 < ordered.length; i++) expect(compareVersions(ordered[i]!, ordered[i + 1]!)).toBe(-1);
    expect(compareVersions("1.0.0+build.1", "1.0.0+build.2")).toBe(0);
    expect(compareVersions("10.0.0", "9.0.0")).toBe(1);
  });
});

describe("install", () => {
  it("installs a verified bundle with every pipeline step done and the AppRecord of spec 4.3", () => {
    const d = decideInstall(coreRegistry(), { operation_id: "op-install", candidate: candidate(whiteboardManifest()), approved: true, now: T0 }, FULL_HOST);
    expect(d.operation.steps.map((s) => `${s.name}:${s.status}`)).toEqual(["verify:done", "projection:done", "readiness:done", "authorization:done", "enable:done"]);
    expect(d.operation.projection?.tools.map((t) => t.method)).toEqual(["board.create", "board.summary"]);
    expect(getApp(d.state, "whiteboard")).toEqual({
      app_scope: "whiteboard",
      kind: "installed",
      installed_version: "1.0.0",
      enabled: true,
      install_state: "installed",
      active_instance_count: 0,
      installed_at: "2026-11-30T08:00:00.000Z",
      enabled_at: "2026-11-30T08:00:00.000Z",
    });
    expect(d.effects).toContainEqual({ kind: "publish_inventory" });
    expect(d.audit[0]?.type).toBe("app.install.succeeded");
  });

  it("stops at the failing step with a distinct code and leaves the registry untouched", () => {
    const base = coreRegistry();
    const cases: Array<[string, Parameters<typeof decideInstall>[1], string, string]> = [
      ["bad signature", { operation_id: "a", candidate: { manifest: whiteboardManifest(), bundle_digest: "d", verification: { ok: false, error: { code: "manifest_invalid", message: "signature does not verify" } } }, approved: true, now: T0 }, "verify", "manifest_invalid"],
      ["invalid manifest", { operation_id: "b", candidate: candidate({ ...whiteboardManifest(), version: "one" }), approved: true, now: T0 }, "verify", "manifest_invalid"],
      // The verifier refuses a reserved scope itself; the pipeline guards the core apps' scopes whatever it is handed.
      ["core override", { operation_id: "c", candidate: { manifest: { ...whiteboardManifest(), app_scope: "chat" as AppScope }, bundle_digest: "d", verification: { ok: true } }, approved: true, now: T0 }, "verify", "app_protected"],
      ["user declined", { operation_id: "d", candidate: candidate(whiteboardManifest()), approved: false, now: T0 }, "authorization", "cancelled_by_user"],
    ];
    for (const [, request, step, code] of cases) {
      const d = decideInstall(base, request, FULL_HOST);
      expect(d.state).toBe(base);
      expect(d.operation.status).toBe("failed");
      expect(d.operation.error?.code).toBe(code);
      expect(d.operation.steps.find((s) => s.status === "failed")?.name).toBe(step);
      expect(d.operation.steps.filter((s) => s.status === "done").every((s) => ["verify", "projection", "readiness", "authorization"].indexOf(s.name) < ["verify", "projection", "readiness", "authorization"].indexOf(step))).toBe(true);
      expect(d.audit[0]).toMatchObject({ type: "app.install.failed", code });
    }
    const noTools = decideInstall(base, { operation_id: "e", candidate: candidate(whiteboardManifest()), approved: true, now: T0 }, { features: ["app.lifecycle.v1"] });
    expect(noTools.operation.error?.code).toBe("app_host_incompatible");
    expect(noTools.operation.steps.find((s) => s.status === "failed")?.name).toBe("readiness");
    const blocked = decideInstall(base, { operation_id: "f", candidate: candidate(whiteboardManifest()), approved: true, now: T0 }, FULL_HOST, { blocked_apps: ["whiteboard"] });
    expect(blocked.operation.error?.code).toBe("policy_denied");
  });

  it("refuses a second install of the same scope", () => {
    const state = installed();
    const d = decideInstall(state, { operation_id: "again", candidate: candidate(whiteboardManifest("2.0.0")), approved: true, now: T0 }, FULL_HOST);
    expect(d.operation.error?.code).toBe("app_already_installed");
    expect(d.state).toBe(state);
  });
});

describe("update and rollback (RELIABILITY P3)", () => {
  it("refuses an older (or equal) validly signed bundle offered as an update and keeps the active version", () => {
    let state = installed("1.0.0");
    state = update(state, whiteboardManifest("2.0.0")).state;
    for (const older of ["1.0.0", "1.9.9", "2.0.0", "2.0.0-rc.1"]) {
      const d = update(state, whiteboardManifest(older));
      expect(d.operation.error?.code).toBe("bundle_downgrade");
      expect(d.state).toBe(state);
      expect(getApp(d.state, "whiteboard")?.installed_version).toBe("2.0.0");
    }
  });

  it("rolls back explicitly only to a retained version, audited with the reason", () => {
    let state = installed("1.0.0");
    for (const v of ["1.1.0", "1.2.0", "1.3.0"]) state = update(state, whiteboardManifest(v)).state;
    const app = getManagedApp(state, "whiteboard")!;
    expect(app.retained.map((v) => v.version)).toEqual(["1.1.0", "1.2.0", "1.3.0"]);
    expect(app.retained).toHaveLength(RETAINED_VERSIONS);

    const noReason = decideRollback(state, { operation_id: "r0", app_scope: "whiteboard", reason: "  ", now: T0 });
    expect(noReason.operation.error?.code).toBe("invalid_params");
    expect(noReason.state).toBe(state);
    const dropped = decideRollback(state, { operation_id: "r1", app_scope: "whiteboard", target_version: "1.0.0", reason: "crashes", now: T0 });
    expect(dropped.operation.error?.code).toBe("version_not_retained");
    expect(dropped.state).toBe(state);
    const toActive = decideRollback(state, { operation_id: "r2", app_scope: "whiteboard", target_version: "1.3.0", reason: "crashes", now: T0 });
    expect(toActive.operation.error?.code).toBe("version_not_retained");

    const back = decideRollback(state, { operation_id: "r3", app_scope: "whiteboard", target_version: "1.1.0", reason: "1.3.0 loses strokes", now: T0 });
    expect(back.operation.status).toBe("succeeded");
    expect(getApp(back.state, "whiteboard")).toMatchObject({ installed_version: "1.1.0", previous_version: "1.3.0" });
    expect(back.audit).toEqual([expect.objectContaining({ type: "app.rollback.succeeded", subject: "whiteboard", detail: expect.stringContaining("1.3.0 loses strokes") })]);
    expect(back.operation.reason).toBe("1.3.0 loses strokes");
    // Forward again is possible: the version rolled back from is still retained.
    const forward = decideRollback(back.state, { operation_id: "r4", app_scope: "whiteboard", reason: "fixed upstream", now: T0 });
    expect(getApp(forward.state, "whiteboard")?.installed_version).toBe("1.3.0");
  });

  it("deletes bundles that fall out of retention", () => {
    let state = installed("1.0.0");
    state = update(state, whiteboardManifest("1.1.0")).state;
    state = update(state, whiteboardManifest("1.2.0")).state;
    const d = update(state, whiteboardManifest("1.3.0"));
    expect(d.effects).toContainEqual({ kind: "delete_bundle", app_scope: "whiteboard", version: "1.0.0", bundle_digest: "sha256-1.0.0" });
  });
});

describe("capability escalation on update (RELIABILITY P4)", () => {
  it("waits for approval showing the added capability; refusing keeps v1 running", () => {
    const v1 = installed("1.0.0");
    const d = update(v1, whiteboardWithClipboard("2.0.0"));
    expect(d.operation.status).toBe("awaiting_approval");
    expect(d.operation.diff?.added_capabilities.map((c) => c.name)).toEqual(["clipboard.write"]);
    expect(d.operation.steps.find((s) => s.name === "authorization")?.status).toBe("waiting");
    expect(d.operation.steps.find((s) => s.name === "enable")?.status).toBe("not_reached");
    expect(getApp(d.state, "whiteboard")).toMatchObject({ installed_version: "1.0.0", install_state: "updating", enabled: true });

    const refused = decideUpdateApproval(d.state, { operation_id: d.operation.operation_id, app_scope: "whiteboard", approved: false, now: T0 });
    expect(refused.operation.status).toBe("failed");
    expect(refused.operation.error?.code).toBe("cancelled_by_user");
    expect(getApp(refused.state, "whiteboard")).toMatchObject({ installed_version: "1.0.0", install_state: "installed" });
    expect(getManagedApp(refused.state, "whiteboard")?.pending_update).toBeUndefined();
    expect(refused.effects).toContainEqual({ kind: "delete_bundle", app_scope: "whiteboard", version: "2.0.0", bundle_digest: "sha256-2.0.0" });
    // A second answer to the same operation finds nothing waiting.
    expect(decideUpdateApproval(refused.state, { operation_id: d.operation.operation_id, app_scope: "whiteboard", approved: true, now: T0 }).operation.error?.code).toBe("update_not_pending");
  });

  it("approving activates v2 and records v1 as the previous version", () => {
    const d = update(installed("1.0.0"), whiteboardWithClipboard("2.0.0"));
    const approved = decideUpdateApproval(d.state, { operation_id: d.operation.operation_id, app_scope: "whiteboard", approved: true, now: T0 });
    expect(approved.operation.status).toBe("succeeded");
    expect(getApp(approved.state, "whiteboard")).toMatchObject({ installed_version: "2.0.0", previous_version: "1.0.0", install_state: "installed" });
    expect(approved.audit[0]?.detail).toContain("clipboard.write");
  });

  it("an update that adds no capability needs no approval", () => {
    const d = update(installed("1.0.0"), whiteboardManifest("1.0.1"));
    expect(d.operation.status).toBe("succeeded");
    expect(d.operation.diff?.requires_approval).toBe(false);
  });
});

describe("enable, disable, default app, remove", () => {
  it("disabling yields call refusal, instance close and republish; enabling re-checks readiness", () => {
    const state = installed();
    const off = decideDisable(state, { operation_id: "x", app_scope: "whiteboard", now: T0 });
    expect(getApp(off.state, "whiteboard")?.enabled).toBe(false);
    expect(off.effects).toEqual([
      { kind: "refuse_pending_calls", app_scope: "whiteboard", code: "app_disabled" },
      { kind: "close_instances", app_scope: "whiteboard" },
      { kind: "publish_inventory" },
    ]);
    expect(decideEnable(off.state, { operation_id: "y", app_scope: "whiteboard", now: T0 }, { features: [] }).operation.error?.code).toBe("app_host_incompatible");
    const on = decideEnable(off.state, { operation_id: "z", app_scope: "whiteboard", now: T0 + 5 }, FULL_HOST);
    expect(getApp(on.state, "whiteboard")).toMatchObject({ enabled: true, enabled_at: "2026-11-30T08:00:00.005Z" });
  });

  it("protects core apps: none can be disabled, removed, updated or rolled back", () => {
    const state = coreRegistry();
    for (const scope of ["chat", "settings", "app-registry"]) {
      const disable = decideDisable(state, { operation_id: "a", app_scope: scope, now: T0 });
      expect(disable.operation.error?.code).toBe("app_protected");
      expect(disable.state).toBe(state);
      expect(disable.effects).toEqual([]);
      expect(decideRemove(state, { operation_id: "b", app_scope: scope, confirmed: true, now: T0 }).operation.error?.code).toBe("app_protected");
      expect(decideRollback(state, { operation_id: "c", app_scope: scope, reason: "x", now: T0 }).operation.error?.code).toBe("app_protected");
    }
    expect(decideUpdate(state, { operation_id: "d", app_scope: "chat", candidate: candidate({ ...whiteboardManifest("9.0.0"), app_scope: "chat" }), now: T0 }, FULL_HOST).operation.error?.code).toBe("app_protected");
    expect(listApps(state).map((r) => r.app_scope)).toEqual(["app-registry", "chat", "settings"]);
  });

  it("remove needs confirmation, then closes instances and deletes every bundle and the app's data", () => {
    let state = installed("1.0.0");
    state = update(state, whiteboardManifest("1.1.0")).state;
    state = decideSetDefaultApp(state, { operation_id: "def", app_scope: "whiteboard", now: T0 }).state;
    expect(state.default_app).toBe("whiteboard");
    const unconfirmed = decideRemove(state, { operation_id: "r", app_scope: "whiteboard", confirmed: false, now: T0 });
    expect(unconfirmed.operation.error?.code).toBe("confirmation_required");
    expect(unconfirmed.state).toBe(state);
    const removed = decideRemove(state, { operation_id: "r2", app_scope: "whiteboard", confirmed: true, now: T0 });
    expect(getApp(removed.state, "whiteboard")).toBeUndefined();
    expect(removed.state.default_app).toBe("chat");
    expect(removed.effects).toEqual([
      { kind: "refuse_pending_calls", app_scope: "whiteboard", code: "app_not_installed" },
      { kind: "close_instances", app_scope: "whiteboard" },
      { kind: "delete_bundle", app_scope: "whiteboard", version: "1.0.0", bundle_digest: "sha256-1.0.0" },
      { kind: "delete_bundle", app_scope: "whiteboard", version: "1.1.0", bundle_digest: "sha256-1.1.0" },
      { kind: "delete_app_data", app_scope: "whiteboard" },
      { kind: "publish_inventory" },
    ]);
  });

  it("only an enabled app with a default-eligible primary entrypoint can be the default", () => {
    const state = decideDisable(installed(), { operation_id: "x", app_scope: "whiteboard", now: T0 }).state;
    expect(decideSetDefaultApp(state, { operation_id: "d", app_scope: "whiteboard", now: T0 }).operation.error?.code).toBe("app_not_default_eligible");
    expect(decideSetDefaultApp(state, { operation_id: "d", app_scope: "settings", now: T0 }).operation.error?.code).toBe("app_not_default_eligible");
    expect(decideSetDefaultApp(state, { operation_id: "d", app_scope: "voice", now: T0 }).operation.error?.code).toBe("app_not_installed");
  });

  it("the registry state is plain JSON and survives a round trip", () => {
    const state = update(installed(), whiteboardWithClipboard("2.0.0")).state;
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
  });
});
