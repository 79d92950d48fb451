/**
 * The UI language as the host's root renders it: the person's choice in Settings (the Runtime's
 * `settings.language()`, once the Runtime runs), else the browser's languages; it follows both as they
 * change. Set before the children render, so everything under the root speaks it. A language whose
 * catalogue is still being fetched is switched to when it arrives; until then the UI keeps its language.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { RuntimeSettings } from "@lineup/runtime";
import { browserLanguages, hasUiLanguage, loadUiLanguage, setUiLanguage, uiLanguage, uiLanguageOf, type UiLanguage } from "./index.js";

type LanguageSetting = Pick<RuntimeSettings, "language" | "subscribe">;

export function useUiLanguage(settings?: LanguageSetting): UiLanguage {
  // Read in the render itself, so the first render with the Runtime's settings already speaks the chosen language.
  const picked = { language: uiLanguageOf([settings?.language(), ...browserLanguages()]), choice: settings?.language() };
  const last = useRef(picked);
  last.current = picked;
  const [, render] = useState(0);
  useEffect(() => {
    const update = () => {
      const next = { language: uiLanguageOf([settings?.language(), ...browserLanguages()]), choice: settings?.language() };
      if (next.language !== last.current.language || next.choice !== last.current.choice) render((n) => n + 1);
    };
    const off = settings?.subscribe(update);
    globalThis.addEventListener("languagechange", update);
    return () => {
      off?.();
      globalThis.removeEventListener("languagechange", update);
    };
  }, [settings]);
  useEffect(() => {
    if (hasUiLanguage(picked.language)) return;
    let live = true;
    // A failed fetch is logged by the loader; the UI stays in the language it speaks until the language picked changes again.
    loadUiLanguage(picked.language).then(() => live && render((n) => n + 1), () => undefined);
    return () => {
      live = false;
    };
  }, [picked.language]);
  if (hasUiLanguage(picked.language)) setUiLanguage(picked.language, picked.choice);
  return uiLanguage();
}
