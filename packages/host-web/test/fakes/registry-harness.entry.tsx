/**
 * The test page for test/registry.browser.test.ts: the real App Registry and Settings apps (with the
 * host's CSS) over the in-memory fakes, switched by `#registry` / `#settings` without a reload so
 * their shared state (trusted publishers decide which bundles verify) survives. The fakes are on
 * `window.__registry` for the test's checks of what was (not) asked of the Runtime.
 */
import "../../src/styles.css";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { HostConfig } from "../../src/bootstrap/config.js";
import type { AvailableBundle } from "../../src/core-apps/registry/InstallPanel.js";
import { RegistryApp } from "../../src/core-apps/registry/RegistryApp.js";
import { SettingsApp } from "../../src/core-apps/settings/SettingsApp.js";
import { createFakeAppManager } from "./fake-app-manager.js";
import { createFakeSettings } from "./fake-settings.js";

let now = Date.UTC(2026, 10, 30, 9, 0, 0);
const settings = createFakeSettings({
  now: () => now,
  grants: [
    { app_scope: "notes", capability: "clipboard.write", decision: "granted", decided_at: "2026-11-29T18:04:00Z" },
    { app_scope: "notes", capability: "link.open", decision: "denied", decided_at: "2026-11-29T18:05:00Z" },
    { app_scope: "whiteboard", capability: "file.save", decision: "granted", decided_at: "2026-11-29T18:06:00Z" },
  ],
  usage: () => manager.usage(),
});
const manager = createFakeAppManager({ settings: () => settings, now: () => now, tick: () => (now += 1000) });

const config: HostConfig = { server_url: "ws://127.0.0.1:8787/", device_token: "test-token", agent_id: "demo-agent", workspace_id: "default", trusted_publishers: [], builtin_apps: [] };
const signOuts: string[] = [];
/** The host's bundled apps (`config.builtin_apps` in the real shell); the test offers them with `offer`. */
let offerBundle: (bundle: AvailableBundle) => void = () => undefined;
const offer = (bundle: { name: string; file: string; app_scope: string; version: string; base64: string }): void => {
  const { base64, ...rest } = bundle;
  offerBundle({ ...rest, load: async () => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)) });
};
(window as unknown as { __registry: unknown }).__registry = { manager, settings, signOuts, offer };

const viewOf = () => (location.hash === "#settings" ? "settings" : "registry");

function Harness() {
  const [view, setView] = useState(viewOf());
  const [available, setAvailable] = useState<readonly AvailableBundle[]>([]);
  offerBundle = (bundle) => setAvailable((offered) => [...offered, bundle]);
  useEffect(() => {
    const onHash = () => setView(viewOf());
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);
  return (
    <div class="shell">
      <header class="shell-bar">
        <div class="brand">LineUp</div>
        <nav class="switcher" aria-label="Test views">
          <a class={view === "registry" ? "switch active" : "switch"} href="#registry">
            Apps
          </a>
          <a class={view === "settings" ? "switch active" : "switch"} href="#settings">
            Settings
          </a>
        </nav>
      </header>
      <main class="app-area" data-app={view}>
        {view === "registry" ? <RegistryApp manager={manager} available={available} /> : <SettingsApp config={config} settings={settings} onSignOut={() => signOuts.push("signed out")} appName={(scope) => manager.getApp(scope)?.manifest.name} />}
      </main>
    </div>
  );
}

const root = document.getElementById("app");
if (root !== null) render(<Harness />, root);
