/**
 * What the launcher lists (issue 21, "Opening and switching"): the apps open now, most recent first, then
 * every app a person may open, then the core apps in the switcher's order. Pure: the shell hands in what the Runtime says, the
 * query filters and ranks.
 */

/** An app a person may open from the launcher. */
import { compareText } from "../i18n/index.js";
export interface LauncherApp {
  readonly app_scope: string;
  readonly name: string;
  /** The manifest's description; the launcher shows its first sentence. */
  readonly description: string;
  /** The entrypoint it opens (undefined for a core app, which the shell renders). */
  readonly entrypoint?: string;
  readonly core: boolean;
}

/** An app open now (a live instance). */
export interface LauncherInstance {
  readonly instance_id: string;
  readonly app_scope: string;
  readonly name: string;
  /** The title of its conversation, if it has one. */
  readonly conversation?: string;
}

export type LauncherItem =
  | ({ readonly kind: "instance"; readonly key: string } & LauncherInstance)
  | ({ readonly kind: "app"; readonly key: string; readonly summary: string } & LauncherApp);

/** The first sentence of `description`, on one line (the launcher's line under the name). */
export function oneLine(description: string): string {
  const text = description.replace(/\s+/g, " ").trim();
  // A full stop ends a sentence before a space or the end; a Chinese one ends it anywhere.
  const end = text.search(/[.!?](\s|$)|[。！？]/);
  return end < 0 ? text : text.slice(0, end + 1);
}

/**
 * The launcher's rows for `query`, in three sections shown in this order: `recent` (open now, most recent
 * first), the installed apps (those open now first, in the same order, then by name), the core apps (in the
 * order given). A query keeps the rows whose name, description or conversation contains each of its words;
 * within a section, rows whose name starts with it come first.
 */
export function launcherItems(input: { readonly apps: readonly LauncherApp[]; readonly recent: readonly LauncherInstance[]; readonly query: string }): readonly LauncherItem[] {
  const recency = new Map<string, number>();
  input.recent.forEach((instance, i) => {
    if (!recency.has(instance.app_scope)) recency.set(instance.app_scope, i);
  });
  const byUse = (a: LauncherApp, b: LauncherApp) => (recency.get(a.app_scope) ?? Infinity) - (recency.get(b.app_scope) ?? Infinity) || compareText(a.name, b.name);
  const appRow = (a: LauncherApp): LauncherItem => ({ kind: "app", key: `app:${a.app_scope}`, summary: oneLine(a.description), ...a });
  const sections: LauncherItem[][] = [
    input.recent.map((i): LauncherItem => ({ kind: "instance", key: `instance:${i.instance_id}`, ...i })),
    input.apps.filter((a) => !a.core).sort(byUse).map(appRow),
    input.apps.filter((a) => a.core).map(appRow),
  ];
  const words = input.query.toLowerCase().split(/\s+/).filter((w) => w !== "");
  if (words.length === 0) return sections.flat();
  const haystack = (row: LauncherItem) => [row.name, row.app_scope, row.kind === "app" ? row.description : (row.conversation ?? "")].join(" ").toLowerCase();
  const first = words.join(" ");
  const leads = (row: LauncherItem) => row.name.toLowerCase().startsWith(first);
  return sections.flatMap((rows) => {
    const found = rows.filter((row) => words.every((w) => haystack(row).includes(w)));
    return [...found.filter(leads), ...found.filter((row) => !leads(row))];
  });
}

/** A hue for an app's monogram icon, the same for the same app every time. */
export function iconHue(appScope: string): number {
  let hash = 0;
  for (const char of appScope) hash = (hash * 31 + char.charCodeAt(0)) % 3600;
  return hash % 360;
}
