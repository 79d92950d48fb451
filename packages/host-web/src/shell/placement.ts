/**
 * Which installed app floats as picture-in-picture over Chat (spec 4.5): the most recent instance on the
 * focus stack that is not the one on screen and still has a surface — if its entrypoint declares the `pip`
 * display mode. An app that only declares `foreground` is never squeezed into the small window: it waits
 * behind its tab until it is opened again, and no older app floats up in its place.
 */
import type { AppManifest } from "@lineup/protocol";
import type { AppInstance } from "@lineup/runtime";

/** The display modes of the entrypoint `instance` was opened at (the manifest's default: `foreground` only). */
export function displayModesOf(manifest: AppManifest | undefined, instance: Pick<AppInstance, "entrypoint">): readonly string[] {
  if (manifest === undefined) return [];
  const entry = manifest.entrypoints.find((e) => e.id === instance.entrypoint) ?? manifest.entrypoints.find((e) => e.kind === "primary") ?? manifest.entrypoints[0];
  if (entry === undefined) return [];
  return entry.display_modes ?? (entry.kind === "background" ? [] : ["foreground"]);
}

/**
 * The instance to show as picture-in-picture, or undefined: walking the focus stack from its top, the first
 * instance other than `shownId` that `onScreen` knows (live, not closing), when `canPip` allows it.
 */
export function pipCandidateOf(
  focusStack: readonly string[],
  shownId: string | undefined,
  onScreen: (instanceId: string) => AppInstance | undefined,
  canPip: (instance: AppInstance) => boolean,
): string | undefined {
  for (let i = focusStack.length - 1; i >= 0; i--) {
    const id = focusStack[i]!;
    if (id === shownId) continue;
    const instance = onScreen(id);
    if (instance !== undefined) return canPip(instance) ? id : undefined;
  }
  return undefined;
}
