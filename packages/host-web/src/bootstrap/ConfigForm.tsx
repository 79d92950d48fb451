import { useState } from "preact/hooks";
import { DEFAULT_AGENT_ID, DEFAULT_WORKSPACE_ID, parseHostConfig, redeemPairingCode, type HostConfig } from "./config.js";
import { t } from "../i18n/index.js";

/** The name a paired device gets in the operator's `lineup admin device list`. */
const PAIRED_DEVICE_NAME = "LineUp web host";

/**
 * Sign-in when no config is served: the AppServer URL and a device token (`npm start` prints both), or a
 * pairing code (`lineup admin device pair USER`) that the form exchanges for a new device's token.
 */
export function ConfigForm({ onSubmit }: { onSubmit: (config: HostConfig) => void }) {
  const [serverUrl, setServerUrl] = useState("ws://127.0.0.1:8787/rpc");
  const [token, setToken] = useState("");
  const [code, setCode] = useState("");
  const [pairing, setPairing] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const submit = async () => {
    const url = serverUrl.trim();
    let deviceToken = token.trim();
    if (deviceToken === "" && code.trim() === "") return setProblem(t("signin.needOne"));
    if (deviceToken === "") {
      // Checked first, so a bad address is reported as such rather than as an unreachable server.
      const checked = parseHostConfig({ server_url: url, device_token: "pending" });
      if (!checked.ok) return setProblem(checked.error.message);
      setPairing(true);
      const paired = await redeemPairingCode(url, code, PAIRED_DEVICE_NAME);
      setPairing(false);
      if (!paired.ok) {
        const { code: refused, retry_after_s: seconds } = paired.error;
        return setProblem(refused === "unauthorized" ? t("signin.pairRefused") : refused === "rate_limited" ? t("signin.pairLimited", { seconds: seconds ?? 60 }) : t("signin.pairUnreachable"));
      }
      deviceToken = paired.value;
    }
    const parsed = parseHostConfig({ server_url: url, device_token: deviceToken, agent_id: DEFAULT_AGENT_ID, workspace_id: DEFAULT_WORKSPACE_ID });
    if (parsed.ok) onSubmit(parsed.value);
    else setProblem(parsed.error.message);
  };
  return (
    <main class="center-page">
      <form
        class="panel"
        aria-labelledby="signin-title"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <h1 id="signin-title">{t("signin.title")}</h1>
        <p class="muted">{t("signin.hint")}</p>
        <label class="stack">
          {t("signin.url")}
          <input type="url" value={serverUrl} required onInput={(e) => setServerUrl((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <label class="stack">
          {t("signin.token")}
          <input type="password" value={token} autoComplete="off" onInput={(e) => setToken((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <label class="stack">
          {t("signin.code")}
          <input type="text" value={code} autoComplete="one-time-code" spellcheck={false} maxLength={32} onInput={(e) => setCode((e.currentTarget as HTMLInputElement).value)} />
        </label>
        {problem === undefined ? null : (
          <p class="error-text" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" class="primary" disabled={pairing}>
          {pairing ? t("signin.pairing") : t("signin.submit")}
        </button>
      </form>
    </main>
  );
}
