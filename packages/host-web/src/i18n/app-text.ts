/**
 * An app's name and description in the UI language: the manifest's `localized` entry for it (the exact
 * tag, else the same language in simplified script, else the language alone), else its plain name and
 * description.
 */
import type { LocalizedTexts } from "@lineup/protocol";
import { uiLanguage, type UiLanguage } from "./index.js";

interface Described {
  readonly name: string;
  readonly description: string;
  readonly localized?: LocalizedTexts;
}

const CANDIDATES: Readonly<Record<UiLanguage, readonly string[]>> = {
  en: ["en"],
  "zh-CN": ["zh-CN", "zh-Hans-CN", "zh-Hans", "zh"],
};

function entryFor(localized: LocalizedTexts | undefined, language: UiLanguage) {
  if (localized === undefined) return undefined;
  for (const tag of CANDIDATES[language]) {
    const entry = localized[tag];
    if (entry !== undefined) return entry;
  }
  return undefined;
}

/** The app's name for people in the UI language; undefined for no app. */
export function localizedAppName(app: Described | undefined, language: UiLanguage = uiLanguage()): string | undefined {
  if (app === undefined) return undefined;
  return entryFor(app.localized, language)?.name ?? app.name;
}

export function localizedDescription(app: Described, language: UiLanguage = uiLanguage()): string {
  return entryFor(app.localized, language)?.description ?? app.description;
}
