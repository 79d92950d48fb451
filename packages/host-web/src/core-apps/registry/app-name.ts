/** An app's name as Apps shows it, in the UI language: a core app's own word, else the manifest's (localized) name. */
import { localizedAppName } from "../../i18n/app-text.js";
import { coreLabel } from "../../shell/opener.js";
import type { AppDetails } from "./manager-api.js";

export function appDisplayName(details: Pick<AppDetails, "record" | "projection">): string {
  return (details.record.kind === "core" ? coreLabel(details.record.app_scope) : undefined) ?? localizedAppName(details.projection)!;
}
