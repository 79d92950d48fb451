/**
 * `lineup dev` publishes each change as a dev release (`X.Y.Z-dev.<seconds>`) to the AppServer's catalog, which
 * tells connected devices (`catalog/released`). A host follows those releases for an app the person installed from
 * a dev release: it fetches the newer one and updates to it through the App Manager's usual path (the bundle
 * verified against this Runtime's trusted keys; an update that asks for more waits for the person's approval).
 * Any other release is only offered, in Apps. Updates of one app run one after another.
 */
import type { CatalogRelease } from "@lineup/protocol";
import type { AppOperation, RuntimeAppManager } from "./app-manager-api.js";
import { compareVersions } from "./manager/versions.js";
import type { RuntimeCatalog } from "../communication/catalog.js";

/** A version `lineup dev` publishes: its pre-release part starts with `dev.`. */
export function isDevVersion(version: string): boolean {
  const pre = version.split("+")[0]!.split("-").slice(1).join("-");
  return pre === "dev" || pre.startsWith("dev.");
}

export interface DevReleaseFollower {
  /** Handles one published release; resolves with the update it made, if any. */
  released(release: CatalogRelease): Promise<AppOperation | undefined>;
}

export function followDevReleases(deps: { readonly manager: RuntimeAppManager; readonly catalog: RuntimeCatalog }): DevReleaseFollower {
  const queues = new Map<string, Promise<unknown>>();
  const follow = async (release: CatalogRelease): Promise<AppOperation | undefined> => {
    const app = deps.manager.getApp(release.app_scope);
    if (app === undefined || app.record.kind !== "installed") return undefined;
    const installed = app.record.installed_version;
    if (!isDevVersion(installed) || compareVersions(release.version, installed) <= 0) return undefined;
    const bundle = await deps.catalog.fetchBundle(release.app_scope, release.version);
    return deps.manager.update(release.app_scope, release.version, { bundle });
  };
  return {
    released(release) {
      if (!isDevVersion(release.version)) return Promise.resolve(undefined);
      const next = (queues.get(release.app_scope) ?? Promise.resolve()).then(() => follow(release));
      queues.set(release.app_scope, next.catch(() => undefined));
      return next;
    },
  };
}
