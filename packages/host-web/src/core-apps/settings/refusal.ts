/**
 * A rejected settings change as the Settings app shows it: its protocol code and message when it
 * carries one (a `LineUpError` or a `ProtocolError`), otherwise `internal_error`; the message in the UI's
 * language (`reasonText`: the Runtime's sentence in English, the catalogue's words by code otherwise).
 */
import { isErrorCode, type ProtocolError } from "@lineup/protocol";
import { t } from "../../i18n/index.js";
import { reasonText } from "../../i18n/reasons.js";

export function refusalOf(error: unknown): ProtocolError {
  if (typeof error === "object" && error !== null) {
    const code = (error as { code?: unknown }).code;
    const message = (error as { message?: unknown }).message;
    if (isErrorCode(code)) return { code, message: typeof message === "string" && message !== "" ? reasonText(error) : t("settings.refused") };
  }
  return { code: "internal_error", message: reasonText({ code: "internal_error", message: error instanceof Error ? error.message : String(error) }) };
}
