/** The host's theme as the bridge carries it: the `--lineup-*` tokens the page's stylesheet resolved. */
import type { BridgeTheme } from "@lineup/protocol";

export const THEME_TOKENS = [
  "--lineup-color-bg",
  "--lineup-color-fg",
  "--lineup-color-surface",
  "--lineup-color-border",
  "--lineup-color-muted",
  "--lineup-color-accent",
  "--lineup-radius",
  "--lineup-font-family",
] as const;

export function currentTheme(root: HTMLElement = document.documentElement): BridgeTheme {
  const style = getComputedStyle(root);
  const css_variables: Record<string, string> = {};
  for (const token of THEME_TOKENS) {
    const value = style.getPropertyValue(token).trim();
    if (value !== "") css_variables[token] = value.slice(0, 512);
  }
  const chosen = root.dataset["theme"];
  const effective = style.getPropertyValue("color-scheme").trim() === "dark" ? "dark" : "light";
  return { mode: chosen === "light" || chosen === "dark" ? chosen : "system", effective_mode: effective, color_scheme_id: "lineup-default", css_variables };
}
