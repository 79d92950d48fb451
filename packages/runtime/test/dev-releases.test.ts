/** Which catalog releases a host follows by itself: only a newer dev release of an app installed from a dev release. */
import type { CatalogRelease } from "@lineup/protocol";
import { describe, expect, it } from "vitest";
import { followDevReleases, isDevVersion } from "../src/app-lifecycle/dev-releases.js";
import type { AppDetails, RuntimeAppManager, UpdateAppOptions } from "../src/app-lifecycle/app-manager-api.js";
import type { RuntimeCatalog } from "../src/communication/catalog.js";

const release = (app_scope: string, version: string): CatalogRelease => ({ app_scope, version, name: app_scope, publisher: { key_id: "k".repeat(64), public_key: "p" }, sha256: "0".repeat(64), size: 1, published_at: "2026-12-06T00:00:00.000Z" });

function world(installed: Record<string, string>) {
  const updates: string[] = [];
  const manager = {
    getApp: (scope: string) => (scope in installed ? ({ record: { kind: "installed", installed_version: installed[scope] } } as unknown as AppDetails) : undefined),
    update: async (scope: string, version?: string, options?: UpdateAppOptions) => {
      updates.push(`${scope}@${version} (${options?.bundle?.byteLength} bytes)`);
      installed[scope] = version!;
      return { status: "succeeded" };
    },
  } as unknown as RuntimeAppManager;
  const catalog = { list: async () => [], fetchBundle: async () => new Uint8Array(3) } as RuntimeCatalog;
  return { updates, follower: followDevReleases({ manager, catalog }) };
}

describe("following lineup dev's releases", () => {
  it("knows a dev version by its pre-release part", () => {
    expect(["0.1.0-dev.1733400000", "1.0.0-dev", "2.0.0-dev.3+build"].map(isDevVersion)).toEqual([true, true, true]);
    expect(["1.0.0", "1.0.0-beta.1", "1.0.0-devel", "1.0.0+dev.1"].map(isDevVersion)).toEqual([false, false, false, false]);
  });

  it("updates an app installed from a dev release to each newer dev release, one after another", async () => {
    const { updates, follower } = world({ notes: "0.1.0-dev.1" });
    await Promise.all([follower.released(release("notes", "0.1.0-dev.2")), follower.released(release("notes", "0.1.0-dev.3"))]);
    expect(updates).toEqual(["notes@0.1.0-dev.2 (3 bytes)", "notes@0.1.0-dev.3 (3 bytes)"]);
    // An older one, arriving late, changes nothing.
    await follower.released(release("notes", "0.1.0-dev.2"));
    expect(updates).toHaveLength(2);
  });

  it("leaves alone a normal release, an app installed from a normal release, and an app not installed", async () => {
    const { updates, follower } = world({ notes: "0.1.0-dev.1", board: "1.0.0" });
    await follower.released(release("notes", "0.2.0"));
    await follower.released(release("board", "1.1.0-dev.1"));
    await follower.released(release("voice", "0.1.0-dev.9"));
    expect(updates).toEqual([]);
  });
});
