/**
 * Whether a person can open an app on this host, and at which entrypoint (spec 4.3): what the start-up
 * order and the shell's launcher consult before anything is launched, so a removed, disabled or
 * incompatible app is named with its reason instead of failing on screen. Pure.
 */
import { projectManifest, type ManifestProjection, type ProjectedEntrypoint } from "@lineup/protocol";
import { activeManifest, getManagedApp, type AppRegistryState } from "./records.js";
import { hostShortfall, type HostEnvironment } from "./pipeline.js";

/** Entrypoints a person may open on screen: any but `background`, shown in the foreground or as picture-in-picture. */
export function openableEntrypoints(projection: Pick<ManifestProjection, "entrypoints">): readonly ProjectedEntrypoint[] {
  return projection.entrypoints.filter((e) => e.kind !== "background" && (e.display_modes.includes("foreground") || e.display_modes.includes("pip")));
}

/** The entrypoint a launcher opens: the first `primary` one a person may open, else the first `contextual` one. */
export function launcherEntrypoint(projection: Pick<ManifestProjection, "entrypoints">): ProjectedEntrypoint | undefined {
  const openable = openableEntrypoints(projection);
  return openable.find((e) => e.kind === "primary") ?? openable.find((e) => e.kind === "contextual");
}

/**
 * Why a person cannot open an app, as a kind a host can put in its own words (`not_installed`, …) and as a
 * sentence in English (`message`, "it is disabled (enable it in Apps)").
 */
export type CannotOpen =
  | { readonly kind: "not_installed" | "install_failed" | "disabled" | "host_incompatible" | "nothing_to_show" | "not_default_eligible"; readonly message: string }
  | { readonly kind: "no_such_page"; readonly entrypoint: string; readonly message: string };

/**
 * Why a person cannot open `appScope` (at `entrypoint`, when named) on this host; undefined when they can.
 * Core apps are always openable: the shell renders them.
 */
export function cannotOpen(state: AppRegistryState, host: HostEnvironment, appScope: string, entrypoint?: string): CannotOpen | undefined {
  const app = getManagedApp(state, appScope);
  const manifest = app === undefined ? undefined : activeManifest(app);
  if (app === undefined || manifest === undefined) return { kind: "not_installed", message: "it is not installed" };
  if (app.record.kind === "core") return undefined;
  if (app.record.install_state === "failed") return { kind: "install_failed", message: "its installation failed" };
  if (!app.record.enabled) return { kind: "disabled", message: "it is disabled (enable it in Apps)" };
  const shortfall = hostShortfall(manifest, host);
  if (shortfall !== undefined) return { kind: "host_incompatible", message: shortfall.message };
  const openable = openableEntrypoints(projectManifest(manifest));
  if (entrypoint !== undefined && !openable.some((e) => e.id === entrypoint)) return { kind: "no_such_page", entrypoint, message: `it has no page “${entrypoint}” to open` };
  if (openable.length === 0) return { kind: "nothing_to_show", message: "it has nothing to show on screen" };
  return undefined;
}

/** Why a person cannot open `appScope` (at `entrypoint`), in words for a notice ("it is disabled"); undefined when they can. */
export function whyCannotOpen(state: AppRegistryState, host: HostEnvironment, appScope: string, entrypoint?: string): string | undefined {
  return cannotOpen(state, host, appScope, entrypoint)?.message;
}
