/**
 * The AppServer's catalog as Apps shows it: each app's newest release as a bundle to install (through the
 * usual review) or to update an installed app to, and its version history. The catalog is read when Apps
 * opens and on Refresh; while the AppServer is unreachable Apps says so and everything installed keeps
 * working, since nothing installed depends on the catalog.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { CatalogRelease } from "@lineup/protocol";
import type { RuntimeCatalog } from "@lineup/runtime";
import type { AvailableBundle } from "./InstallPanel.js";
import { reasonText } from "../../i18n/reasons.js";

export type CatalogView =
  | { readonly status: "loading" }
  | { readonly status: "ready"; readonly bundles: readonly CatalogBundle[] }
  | { readonly status: "unavailable"; readonly message: string };

/** An app's newest release, with the versions the catalog holds of it (newest first). */
export interface CatalogBundle extends AvailableBundle {
  readonly app_scope: string;
  readonly version: string;
  readonly versions: readonly string[];
  readonly description?: string;
  readonly publisher_key_id: string;
}

function bundlesOf(catalog: RuntimeCatalog, releases: readonly CatalogRelease[]): CatalogBundle[] {
  const byApp = new Map<string, CatalogRelease[]>();
  for (const release of releases) byApp.set(release.app_scope, [...(byApp.get(release.app_scope) ?? []), release]);
  // The list comes newest first per app.
  return [...byApp.values()].map((history) => {
    const latest = history[0]!;
    return {
      name: latest.name,
      file: `${latest.app_scope}-${latest.version}.lineup`,
      app_scope: latest.app_scope,
      version: latest.version,
      versions: history.map((r) => r.version),
      ...(latest.description === undefined ? {} : { description: latest.description }),
      publisher_key_id: latest.publisher.key_id,
      load: () => catalog.fetchBundle(latest.app_scope, latest.version),
    };
  });
}

/** The catalog's state and a refresh; without a catalog (a host with none) always "ready" and empty. */
export function useCatalog(catalog: RuntimeCatalog | undefined): { view: CatalogView; refresh: () => void } {
  const [view, setView] = useState<CatalogView>(catalog === undefined ? { status: "ready", bundles: [] } : { status: "loading" });
  const generation = useRef(0);
  const refresh = useCallback(() => {
    if (catalog === undefined) return;
    const mine = ++generation.current;
    setView({ status: "loading" });
    catalog.list().then(
      (releases) => {
        if (generation.current === mine) setView({ status: "ready", bundles: bundlesOf(catalog, releases) });
      },
      (error: unknown) => {
        if (generation.current === mine) setView({ status: "unavailable", message: reasonText(error) });
      },
    );
  }, [catalog]);
  useEffect(() => {
    refresh();
    return () => {
      generation.current++;
    };
  }, [refresh]);
  return { view, refresh };
}
