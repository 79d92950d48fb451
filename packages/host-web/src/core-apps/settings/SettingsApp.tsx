/**
 * The Settings core app: the UI language (kept by the Runtime, so every host of the profile reads it), theme, the AppServer this device signs in to (and signing out), the
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
import { ViewGrants } from "./ViewGrants.js";
import { TrustedPublishers } from "./TrustedPublishers.js";
import { browserLanguages, t, UI_LANGUAGES, uiLanguageOf, type UiLanguage } from "../../i18n/index.js";
import { refusalOf } from "./refusal.js";

/** `appName`: an installed app's name for people (as the shell's tabs show it); undefined when it is not installed. */
export function SettingsApp({ config, onSignOut, settings, appName }: { config: HostConfig; onSignOut: () => void; settings: RuntimeSettings; appName?: AppNames }) {
  const revision = useSubscription(settings);
  const [theme, setTheme] = useState<ThemeChoice>(loadTheme());
  const choose = (choice: ThemeChoice) => {
    setTheme(choice);
    applyTheme(choice);
  };
  const [languageError, setLanguageError] = useState<string | undefined>(undefined);
  const chooseLanguage = (value: string) => {
    setLanguageError(undefined);
    settings.setLanguage(value === "" ? undefined : value).catch((error: unknown) => setLanguageError(t("settings.languageNotSaved", { reason: refusalOf(error).message })));
  };
  return (
    <section class="page settings" aria-labelledby="settings-title">
      <h1 id="settings-title">{t("settings.title")}</h1>
      <div class="field">
        <label class="stack" for="settings-language">
          <h2 id="language-title">{t("settings.language")}</h2>
        </label>
        <select id="settings-language" aria-describedby="language-hint" value={settings.language() ?? ""} onChange={(e) => chooseLanguage((e.currentTarget as HTMLSelectElement).value)}>
          <option value="">{t("settings.languageDevice", { language: languageName(uiLanguageOf(browserLanguages())) })}</option>
          {UI_LANGUAGES.map((language) => (
            <option key={language} value={language} lang={language}>
              {languageName(language)}
            </option>
          ))}
        </select>
        <p id="language-hint" class="muted hint">
          {t("settings.languageHint")}
        </p>
        {languageError === undefined ? null : (
          <p class="error-text" role="alert">
            {languageError}
          </p>
        )}
      </div>
      <fieldset class="field">
        <legend>{t("settings.theme")}</legend>
        {(["system", "light", "dark"] as const).map((choice) => (
          <label key={choice} class="radio">
            <input type="radio" name="theme" value={choice} checked={theme === choice} onChange={() => choose(choice)} />
            {t(choice === "system" ? "settings.themeSystem" : choice === "light" ? "settings.themeLight" : "settings.themeDark")}
          </label>
        ))}
      </fieldset>
      <div class="field">
        <h2>{t("settings.connection")}</h2>
        <p>
          AppServer <code>{config.server_url}</code>
        </p>
        <p class="muted">
          {t("settings.newConversationsGoTo")}
          <code>{config.agent_id}</code>
          {t("settings.newConversationsGoToEnd")}
        </p>
        <button type="button" class="secondary" onClick={onSignOut}>
          {t("settings.signOut")}
        </button>
      </div>
      <TrustedPublishers settings={settings} />
      <CapabilityGrants settings={settings} appName={appName} />
      <ViewGrants settings={settings} appName={appName} />
      <AppStorage settings={settings} revision={revision} appName={appName} />
    </section>
  );
}

/** Each language by its own name (an endonym: the same whatever the UI language), as people look for it in a list. */
const LANGUAGE_NAMES: Readonly<Record<UiLanguage, string>> = { en: "English", "zh-CN": "简体中文" };

function languageName(language: UiLanguage): string {
  return LANGUAGE_NAMES[language];
}
