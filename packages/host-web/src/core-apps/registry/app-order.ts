/**
 * The order apps are listed in: the core apps first (chat, then the others by name), then installed
 * apps by name, then by scope for equal names. Pure.
 */

export interface ListedApp {
  readonly app_scope: string;
  readonly kind: "core" | "installed";
  /** The manifest's name, or the scope when there is none. */
  readonly name: string;
}

const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true });

export function sortApps<T extends ListedApp>(apps: readonly T[]): T[] {
  const rank = (app: ListedApp) => (app.kind === "core" ? (app.app_scope === "chat" ? 0 : 1) : 2);
  return [...apps].sort((a, b) => rank(a) - rank(b) || collator.compare(a.name, b.name) || (a.app_scope < b.app_scope ? -1 : a.app_scope > b.app_scope ? 1 : 0));
}
