import { useState } from "preact/hooks";
import { DEFAULT_AGENT_ID, DEFAULT_WORKSPACE_ID, parseHostConfig, type HostConfig } from "./config.js";
import { t } from "../i18n/index.js";

/** Sign-in when no config is served: the AppServer URL and a device token (`npm start` prints both). */
export function ConfigForm({ onSubmit, error }: { onSubmit: (config: HostConfig) => void; error?: string | undefined }) {
  const [serverUrl, setServerUrl] = useState("ws://127.0.0.1:8787/rpc");
  const [token, setToken] = useState("");
  const [problem, setProblem] = useState<string | undefined>(error);
  return (
    <main class="center-page">
      <form
        class="panel"
        aria-labelledby="signin-title"
        onSubmit={(e) => {
          e.preventDefault();
          const parsed = parseHostConfig({ server_url: serverUrl.trim(), device_token: token, agent_id: DEFAULT_AGENT_ID, workspace_id: DEFAULT_WORKSPACE_ID });
          if (parsed.ok) onSubmit(parsed.value);
          else setProblem(parsed.error.message);
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
          <input type="password" value={token} required autoComplete="off" onInput={(e) => setToken((e.currentTarget as HTMLInputElement).value)} />
        </label>
        {problem === undefined ? null : (
          <p class="error-text" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" class="primary">
          {t("signin.submit")}
        </button>
      </form>
    </main>
  );
}
