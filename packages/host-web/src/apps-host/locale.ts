/**
 * The locale and time zone the host hands apps (the Host Bridge snapshot and its updates). The browser's own
 * `navigator.language` is not always a language tag: WebKitGTK in a process under the C locale reports "C"
 * (measured in the desktop host), which the snapshot's schema refuses, so no app could start there. Anything
 * that is not a well-formed BCP 47 tag becomes "en"; a missing time zone becomes "UTC". A language chosen
 * in Settings goes first (`appLocale`).
 */
import { chosenLanguage } from "../i18n/index.js";

export function hostLocale(language: string | undefined = globalThis.navigator?.language): string {
  try {
    const [canonical] = Intl.getCanonicalLocales(language ?? []);
    if (canonical !== undefined && /^[a-z]{2,3}(?:-|$)/i.test(canonical)) return canonical;
  } catch {
    // not a language tag
  }
  return "en";
}

/** The locale apps get: the language the person chose in Settings, else the browser's (`hostLocale`). */
export function appLocale(): string {
  return chosenLanguage() ?? hostLocale();
}

export function hostTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}
