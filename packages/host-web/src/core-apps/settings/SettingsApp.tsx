import { useEffect, useState } from "preact/hooks";
import type { HostConfig } from "../../bootstrap/config.js";
import { applyTheme, loadTheme, type ThemeChoice } from "../../shell/theme.js";

/** Settings, first cut: theme, the server this device signs in to, storage used, sign out. */
export function SettingsApp({ config, onSignOut }: { config: HostConfig; onSignOut: () => void }) {
  const [theme, setTheme] = useState<ThemeChoice>(loadTheme());
  const [usage, setUsage] = useState<string>("…");
  useEffect(() => {
    let live = true;
    void navigator.storage
      ?.estimate?.()
      .then((estimate) => {
        if (live) setUsage(`${((estimate.usage ?? 0) / 1024 / 1024).toFixed(1)} MB used`);
      })
      .catch(() => live && setUsage("unknown"));
    return () => {
      live = false;
    };
  }, []);
  const choose = (choice: ThemeChoice) => {
    setTheme(choice);
    applyTheme(choice);
  };
  return (
    <section class="page" aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <fieldset class="field">
        <legend>Theme</legend>
        {(["system", "light", "dark"] as const).map((choice) => (
          <label key={choice} class="radio">
            <input type="radio" name="theme" value={choice} checked={theme === choice} onChange={() => choose(choice)} />
            {choice === "system" ? "Follow the system" : choice === "light" ? "Light" : "Dark"}
          </label>
        ))}
      </fieldset>
      <div class="field">
        <h2>Connection</h2>
        <p>
          AppServer <code>{config.server_url}</code>
        </p>
        <p class="muted">New conversations go to agent {config.agent_id}.</p>
        <button type="button" class="secondary" onClick={onSignOut}>
          Sign out of this browser
        </button>
      </div>
      <div class="field">
        <h2>Storage</h2>
        <p>{usage}</p>
      </div>
    </section>
  );
}
