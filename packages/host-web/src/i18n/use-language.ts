/**
 * The UI language as the host's root renders it: the person's choice in Settings (the Runtime's
 * `settings.language()`, once the Runtime runs), else the browser's languages; it follows both as they
 * change. Set before the children render, so everything under the root speaks it.
 */
import { useEffect, useState } from "preact/hooks";
import type { RuntimeSettings } from "@lineup/runtime";
import { browserLanguages, setUiLanguage, uiLanguageOf, type UiLanguage } from "./index.js";

type LanguageSetting = Pick<RuntimeSettings, "language" | "subscribe">;

export function useUiLanguage(settings?: LanguageSetting): UiLanguage {
  const pick = () => ({ language: uiLanguageOf([settings?.language(), ...browserLanguages()]), choice: settings?.language() });
  const [picked, setPicked] = useState(pick);
  useEffect(() => {
    const update = () => setPicked((before) => {
      const next = pick();
      return next.language === before.language && next.choice === before.choice ? before : next;
    });
    update();
    const off = settings?.subscribe(update);
    globalThis.addEventListener("languagechange", update);
    return () => {
      off?.();
      globalThis.removeEventListener("languagechange", update);
    };
  }, [settings]);
  setUiLanguage(picked.language, picked.choice);
  return picked.language;
}
