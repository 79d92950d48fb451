/**
 * The Settings core app: theme, the AppServer this device signs in to (and signing out), the
 * publishers whose bundles may be installed, remembered app permissions, and storage per app. The
 * Runtime's parts go through `RuntimeSettings`; the page re-renders on its change notifications.
 */
import "../registry/registry.css";
import { useState } from "preact/hooks";
import type { HostConfig } from "../../bootstrap/config.js";
import { applyTheme, loadTheme, type ThemeChoice } from "../../shell/theme.js";
import type { RuntimeSettings } from "../registry/manager-api.js";
import { useSubscription } from "../registry/use-subscription.js";
import { AppStorage } from "./AppStorage.js";
import type { AppNames } from "./app-label.js";
import { CapabilityGrants } from "./CapabilityGrants.js";
import { TrustedPublishers } from "./TrustedPublishers.js";

/** `appName`: an installed app's name for people (as the shell's tabs show it); undefined when it is not installed. */
export function SettingsApp({ config, onSignOut, settings, appName }: { config: HostConfig; onSignOut: () => void; settings: RuntimeSettings; appName?: AppNames }) {
  const revision = useSubscription(settings);
  const [theme, setTheme] = useState<ThemeChoice>(loadTheme());
  const choose = (choice: ThemeChoice) => {
    setTheme(choice);
    applyTheme(choice);
  };
  return (
    <section class="page settings" aria-labelledby="settings-title">
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
      <TrustedPublishers settings={settings} />
      <CapabilityGrants settings={settings} appName={appName} />
      <AppStorage settings={settings} revision={revision} appName={appName} />
    </section>
  );
}
