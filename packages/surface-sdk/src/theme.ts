/**
 * Host theme tokens in the app's document: the snapshot's CSS custom properties set on the root
 * element, plus `data-theme` and `color-scheme` so plain CSS can follow light and dark.
 */
import type { BridgeTheme } from "@lineup/protocol";

/** The part of an element the theme writes to (an `HTMLElement` fits). */
export interface ThemeTarget {
  readonly style: { setProperty(name: string, value: string): void; removeProperty(name: string): string };
  setAttribute(name: string, value: string): void;
}

const applied = new WeakMap<ThemeTarget, ReadonlySet<string>>();

/** Writes the theme's variables to `target` (default: the document's root element) and removes the ones a previous theme set. */
export function applyThemeVariables(theme: BridgeTheme, target: ThemeTarget | undefined = defaultTarget()): void {
  if (target === undefined) return;
  const names = new Set(Object.keys(theme.css_variables));
  for (const old of applied.get(target) ?? []) if (!names.has(old)) target.style.removeProperty(old);
  for (const [name, value] of Object.entries(theme.css_variables)) target.style.setProperty(name, value);
  target.style.setProperty("color-scheme", theme.effective_mode);
  target.setAttribute("data-theme", theme.effective_mode);
  applied.set(target, names);
}

function defaultTarget(): ThemeTarget | undefined {
  const doc = (globalThis as { document?: { documentElement?: ThemeTarget } }).document;
  return doc?.documentElement;
}
