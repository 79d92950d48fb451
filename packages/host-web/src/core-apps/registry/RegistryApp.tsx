import type { AppDirectory } from "@lineup/runtime";

/**
 * The App Registry core app, first cut: the apps the Runtime knows, their kind, version and state, and
 * which one opens by default. Installing, enabling and removing bundles arrive with the Runtime's app
 * manager wiring (issue 6, later parts).
 */
export function RegistryApp({ apps }: { apps: AppDirectory }) {
  const list = apps.list();
  const defaultApp = apps.defaultApp();
  return (
    <section class="page" aria-labelledby="registry-title">
      <h1 id="registry-title">Apps</h1>
      <p class="muted">Apps on this device. Installing apps from a bundle file comes next.</p>
      <ul class="app-list">
        {list.map((app) => (
          <li key={app.app_scope} class="app-item">
            <div>
              <strong>{app.app_scope}</strong>
              {app.app_scope === defaultApp ? <span class="badge">default</span> : null}
              <div class="muted">
                {app.kind === "core" ? "Built in" : "Installed"} · version {app.installed_version}
              </div>
            </div>
            <span class={app.enabled ? "state state-on" : "state state-off"}>{app.enabled ? "Enabled" : "Disabled"}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
