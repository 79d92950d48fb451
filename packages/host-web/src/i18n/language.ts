/**
 * The host UI's language: one of the languages the catalogue has, picked from the person's choice in
 * Settings, else the browser's preferred languages in order, else English. Dates, numbers and sorting use
 * the same tag (`Intl.*`), and the page's `lang` attribute says it.
 */
import { isSimplifiedChinese } from "@lineup/protocol";

export const UI_LANGUAGES = ["en", "zh-CN"] as const;
export type UiLanguage = (typeof UI_LANGUAGES)[number];

/**
 * The catalogue language for `preferred` (most wanted first). Any Chinese tag written in simplified script
 * or for mainland China or Singapore (`zh`, `zh-CN`, `zh-Hans-…`, `zh-SG`) is zh-CN; other Chinese (`zh-TW`,
 * `zh-Hant`) is not served by this catalogue and falls through to the next preference.
 */
export function uiLanguageOf(preferred: readonly (string | undefined)[]): UiLanguage {
  for (const tag of preferred) {
    const canonical = canonicalTag(tag);
    if (canonical === undefined) continue;
    if (canonical.split("-")[0] === "en") return "en";
    if (isSimplifiedChinese(canonical)) return "zh-CN";
  }
  return "en";
}

/** The browser's preferred languages, most wanted first. */
export function browserLanguages(): readonly string[] {
  const nav = globalThis.navigator;
  if (nav === undefined) return [];
  return nav.languages !== undefined && nav.languages.length > 0 ? nav.languages : [nav.language];
}

function canonicalTag(tag: string | undefined): string | undefined {
  try {
    return tag === undefined ? undefined : Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined; // not a language tag ("C", "en_US.UTF-8")
  }
}
