/**
 * Why something failed, for a notice in the UI's language. In English a notice shows the Runtime's own sentence
 * (it names the detail: a feature, a page); in any other language the typed cause — an error's code, a
 * `CannotOpen` kind — picks the catalogue's words, so a Chinese notice carries no English. A code the catalogue
 * does not word reads as a refusal, never as the English message.
 */
import { isErrorCode } from "@lineup/protocol";
import type { CannotOpen } from "@lineup/runtime";
import { t, uiLanguage } from "./index.js";
import { MESSAGES } from "./messages.js";

/** Why `error` (anything thrown or rejected; a Runtime refusal carries its `code`) failed, in the UI's language. */
export function reasonText(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown } | null;
  const message = typeof e?.message === "string" ? e.message : String(error);
  if (uiLanguage() === "en") return message;
  const key = `reason.${String(e?.code)}`;
  return isErrorCode(e?.code) && key in MESSAGES ? t(key as "reason.other") : t("reason.other");
}

/** Why an app cannot be opened, in the UI's language. */
export function cannotOpenText(cause: CannotOpen): string {
  return uiLanguage() === "en" ? cause.message : t(`why.${cause.kind}`);
}
