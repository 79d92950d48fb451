// The browser entry: the theme first (no flash of the wrong one), then the host, in the browser's language
// (its catalogue fetched first when it is not English: the page never shows English while it waits).
import { render } from "preact";
import { Host, preloadRuntime } from "./bootstrap/Host.js";
import { readHostConfig } from "./bootstrap/config.js";
import { mirrorTitle, nativeHost } from "./bootstrap/native-host.js";
import { openProfileDatabaseEarly } from "./bootstrap/profile-database.js";
import { openConnectionEarly } from "./bootstrap/early-connection.js";
import { browserLanguages, loadUiLanguage, uiLanguageOf } from "./i18n/index.js";
import { applyTheme, loadTheme } from "./shell/theme.js";
import "./styles.css";

// The sign-in config is in the page. The profile's database opens, and the AppServer's socket connects, first:
// that is work of the browser's own threads, which goes on while this one renders and loads the Runtime's code.
const config = readHostConfig();
performance.mark("lineup:config-read");
if (config !== undefined) {
  openProfileDatabaseEarly(config);
  openConnectionEarly(config);
}
applyTheme(loadTheme());
// The Runtime's chunks are fetched from here on, while the page renders.
preloadRuntime();
const root = document.getElementById("app");
// A catalogue that cannot be fetched is logged by its loader; the page then starts in English.
if (root !== null) void loadUiLanguage(uiLanguageOf(browserLanguages())).catch(() => undefined).then(() => render(<Host config={config} />, root));
// Inside the desktop host's window, its title follows the page's (nothing answers in a plain browser).
void nativeHost().then((host) => host !== undefined && mirrorTitle(host));
