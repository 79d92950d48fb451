/**
 * Theme tokens (the whiteboard and every surface read the same CSS variables): light, dark, or the
 * system's. The choice is a host preference, kept in localStorage.
 */
export type ThemeChoice = "system" | "light" | "dark";

const KEY = "lineup.host.theme";

export function loadTheme(storage: Storage | undefined = globalThis.localStorage): ThemeChoice {
  const saved = storage?.getItem(KEY);
  return saved === "light" || saved === "dark" ? saved : "system";
}

export function applyTheme(choice: ThemeChoice, storage: Storage | undefined = globalThis.localStorage): void {
  if (choice === "system") {
    delete document.documentElement.dataset["theme"];
    storage?.removeItem(KEY);
  } else {
    document.documentElement.dataset["theme"] = choice;
    storage?.setItem(KEY, choice);
  }
}
