/** A settings change the Runtime refused, said where the change was asked for: its message and its code. */
import type { ProtocolError } from "@lineup/protocol";
import { t } from "../../i18n/index.js";

export function NotChanged({ error }: { error: ProtocolError | undefined }) {
  if (error === undefined) return null;
  return (
    <p class="error-text" role="alert" data-code={error.code}>
      {t("grants.notChanged", { message: error.message })}
      {t("common.errorCode")} <code class="error-code">{error.code}</code>
    </p>
  );
}
