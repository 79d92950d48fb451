/**
 * The order apps are listed in: the core apps first (chat, then the others by name), then installed
 * apps by name (as the UI language sorts), then by scope for equal names.
 */
import { compareText } from "../../i18n/index.js";

export interface ListedApp {
  readonly app_scope: string;
  readonly kind: "core" | "installed";
  /** The manifest's name, or the scope when there is none. */
  readonly name: string;
}


export function sortApps<T extends ListedApp>(apps: readonly T[]): T[] {
  const rank = (app: ListedApp) => (app.kind === "core" ? (app.app_scope === "chat" ? 0 : 1) : 2);
  return [...apps].sort((a, b) => rank(a) - rank(b) || compareText(a.name, b.name) || (a.app_scope < b.app_scope ? -1 : a.app_scope > b.app_scope ? 1 : 0));
}
