/**
 * The host UI's words: `t(key, params?)` looks a message up in the catalogue of the current UI language.
 * The host shows one language at a time; the root sets it (`setUiLanguage`) from Settings or the browser
 * and re-renders, so every component and every notice after that speaks it. Dates, numbers, lists and
 * sorting go through `format()` / `compareText` in the same language. English is always here; another
 * language's catalogue is a chunk fetched by `loadUiLanguage` before the UI switches to it, so the UI
 * never shows English while it waits.
 */
import { Emitter, type Unsubscribe } from "@lineup/runtime";
import { createFormat, type Format } from "./format.js";
import { UI_LANGUAGES, type UiLanguage } from "./language.js";
import { MESSAGES, type MessageParams, type Translation } from "./messages.js";
import { lazyModule, type LazyModule } from "../shell/lazy-module.js";

export { UI_LANGUAGES, browserLanguages, uiLanguageOf, type UiLanguage } from "./language.js";
export type { Format } from "./format.js";

export type MessageKey = keyof typeof MESSAGES;
/** The parameters `key` takes: none for a plain string, else the one object its message reads. */
export type MessageArgs<K extends MessageKey> = [MessageParams<(typeof MESSAGES)[K]>] extends [void] ? [] : [params: MessageParams<(typeof MESSAGES)[K]>];

const TRANSLATIONS: Readonly<Record<Exclude<UiLanguage, "en">, LazyModule<Translation>>> = {
  "zh-CN": lazyModule("Chinese catalogue", () => import("./messages.zh-CN.js").then((module) => module.ZH_CN)),
};

/** True when `language`'s catalogue is here, so `setUiLanguage` can switch to it now (English always is). */
export function hasUiLanguage(language: UiLanguage): boolean {
  return language === "en" || TRANSLATIONS[language].current() !== undefined;
}

/** Fetches `language`'s catalogue (once; again after a failed fetch). Resolves when `setUiLanguage` can switch to it. */
export async function loadUiLanguage(language: UiLanguage): Promise<void> {
  if (language !== "en") await TRANSLATIONS[language].load();
}

let current: UiLanguage = "en";
/** The tag the person chose in Settings, when they did: apps hear it as their locale. */
let chosen: string | undefined;
const changed = new Emitter<void>((error) => console.error("[lineup] a UI language listener failed", error));
let currentFormat: Format = createFormat(current);
/** Made on first use, as the formatters are (`createFormat`). */
let collator: Intl.Collator | undefined;

export function uiLanguage(): UiLanguage {
  return current;
}

/** The language the person chose in Settings (a BCP 47 tag); undefined while the browser's is followed. */
export function chosenLanguage(): string | undefined {
  return chosen;
}

/** Called after the UI language or the person's choice changed (the app bridges pass the locale on). */
export function onUiLanguageChange(listener: () => void): Unsubscribe {
  return changed.on(listener);
}

/**
 * Switches the UI language and the page's `lang`; the caller re-renders. `choice` is the person's tag from
 * Settings. A language whose catalogue has not been fetched (`loadUiLanguage`) is refused with an error.
 */
export function setUiLanguage(language: UiLanguage, choice?: string): void {
  if (!UI_LANGUAGES.includes(language)) return;
  if (!hasUiLanguage(language)) throw new Error(`the ${language} catalogue is not loaded yet (loadUiLanguage)`);
  const before = `${current} ${chosen}`;
  chosen = choice;
  current = language;
  currentFormat = createFormat(language);
  collator = undefined;
  if (globalThis.document !== undefined) document.documentElement.lang = language;
  if (`${current} ${chosen}` !== before) changed.fire(undefined);
}

/** The message `key` in the current UI language. */
export function t<K extends MessageKey>(key: K, ...args: MessageArgs<K>): string {
  return render(current, key, args);
}

/** The message `key` in `language` (a test, or a line that must be in a given language); its catalogue must be loaded. */
export function tIn<K extends MessageKey>(language: UiLanguage, key: K, ...args: MessageArgs<K>): string {
  return render(language, key, args, language === current ? currentFormat : createFormat(language));
}

function render(language: UiLanguage, key: MessageKey, args: readonly unknown[], format: Format = currentFormat): string {
  const message = (language === "en" ? MESSAGES[key].en : catalogue(language)[key]) as string | ((params: unknown, format: Format) => string);
  return typeof message === "string" ? message : message(args[0], format);
}

function catalogue(language: Exclude<UiLanguage, "en">): Translation {
  const translation = TRANSLATIONS[language].current();
  if (translation === undefined) throw new Error(`the ${language} catalogue is not loaded yet (loadUiLanguage)`);
  return translation;
}

/** Formatting in the current UI language. */
export function format(): Format {
  return currentFormat;
}

/** Sorts text as people of the current UI language expect (case-insensitive, numbers by value). */
export function compareText(a: string, b: string): number {
  return (collator ??= new Intl.Collator(current, { sensitivity: "base", numeric: true })).compare(a, b);
}
