/**
 * `RuntimeAppManager` as spec 4.3 writes it: `update(appScope, targetVersion?)`, `disable(appScope, options?)`,
 * `remove(appScope, options?)`, `rollback(appScope)` — each callable in the spec's short form, the richer forms
 * (a bundle, a reason, a version, a confirmation) as options, every outcome an observable `AppOperation`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_ROLLBACK_REASON } from "../src/index.js";
import { whiteboardManifest } from "./apps-fixtures.js";
import { onlineDevice, signedBundle } from "./helpers/apps-harness.js";
import { auditOf, createMemoryStoreData, type Device } from "./helpers/runtime-harness.js";

let devices: Device[] = [];
afterEach(async () => {
  for (const d of devices) await d.stop();
  devices = [];
});

async function boardAt(...versions: string[]) {
  const data = createMemoryStoreData();
  const { d } = await onlineDevice({ data, install: whiteboardManifest(versions[0]) });
  devices.push(d);
  const manager = d.runtime.appManager;
  for (const version of versions.slice(1)) expect((await manager.update("whiteboard", version, { bundle: await signedBundle(whiteboardManifest(version)) })).status).toBe("succeeded");
  const active = () => manager.getApp("whiteboard")?.record.installed_version;
  return { d, data, manager, active };
}

describe("RuntimeAppManager, spec 4.3 signatures", () => {
  it("rollback(appScope) goes to the previous version, audited with the default reason; update(appScope) comes forward again to the newest retained one", async () => {
    const { data, manager, active } = await boardAt("1.0.0", "1.1.0", "1.2.0");
    expect(active()).toBe("1.2.0");

    expect(await manager.rollback("whiteboard")).toMatchObject({ status: "succeeded", kind: "rollback", from_version: "1.2.0", to_version: "1.1.0" });
    expect(await manager.rollback("whiteboard", { version: "1.0.0", reason: "1.1.0 loses strokes" })).toMatchObject({ status: "succeeded", to_version: "1.0.0" });
    expect(active()).toBe("1.0.0");

    expect(await manager.update("whiteboard", "1.1.0")).toMatchObject({ status: "succeeded", kind: "update", from_version: "1.0.0", to_version: "1.1.0" });
    expect(await manager.update("whiteboard")).toMatchObject({ status: "succeeded", kind: "update", to_version: "1.2.0" });
    expect(active()).toBe("1.2.0");
    // Nothing newer is held here: a definite refusal, the active version kept.
    expect((await manager.update("whiteboard")).error?.code).toBe("version_not_retained");
    expect((await manager.update("whiteboard", "9.0.0")).error?.code).toBe("version_not_retained");
    expect(active()).toBe("1.2.0");

    const audit = await auditOf(data);
    expect(audit.find((a) => a.type === "app.rollback.succeeded")?.detail).toBe(`1.2.0 -> 1.1.0; reason: ${DEFAULT_ROLLBACK_REASON}`);
    expect(audit.filter((a) => a.type === "app.update.succeeded").map((a) => a.detail)).toContain("1.1.0 -> 1.2.0 (a retained version)");
    // An empty reason is still refused: a stated reason is what the audit keeps.
    expect((await manager.rollback("whiteboard", { reason: " " })).error?.code).toBe("invalid_params");
  });

  it("update with a bundle of another version than the one asked for is refused and changes nothing", async () => {
    const { manager, active } = await boardAt("1.0.0");
    const refused = await manager.update("whiteboard", "1.1.0", { bundle: await signedBundle(whiteboardManifest("1.2.0")) });
    expect(refused).toMatchObject({ status: "failed", error: { code: "invalid_params" } });
    expect(active()).toBe("1.0.0");
  });

  it("disable(appScope, { reason }) is audited with it; remove(appScope) without confirmation is refused and changes nothing", async () => {
    const { d, data, manager } = await boardAt("1.0.0");
    expect((await manager.disable("whiteboard", { reason: "the person turned it off" })).status).toBe("succeeded");
    expect((await auditOf(data)).find((a) => a.type === "app.disable.succeeded")?.detail).toBe("reason: the person turned it off");
    expect((await manager.enable("whiteboard")).status).toBe("succeeded");

    const instance = await manager.launch({ app_scope: "whiteboard", conversation_id: "s-1" });
    await d.runtime.instances.ready(instance.instance_id);
    expect((await manager.remove("whiteboard")).error?.code).toBe("confirmation_required");
    expect(manager.getApp("whiteboard")?.record.enabled).toBe(true);
    expect(d.runtime.instances.snapshot().instances.map((i) => i.instance_id)).toContain(instance.instance_id);
    expect((await manager.remove("whiteboard", { confirmed: true })).status).toBe("succeeded");
    expect(manager.getApp("whiteboard")).toBeUndefined();
  });
});
