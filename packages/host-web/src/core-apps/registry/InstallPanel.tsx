/**
 * "Install from file…": the bundle's bytes go to `inspect` first, and what it would add — the
 * projection — is shown before anything is installed. Only "Install & enable" installs
 * (`install(bytes, { approved: true })`); Cancel forgets the file. A refused inspect or install shows
 * the step where it stopped and its code.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { PickedFile } from "./read-file.js";
import { FilePicker } from "./FilePicker.js";
import type { AppOperation, RuntimeAppManager } from "./manager-api.js";
import { OperationResult } from "./OperationResult.js";
import { unexpectedFailure } from "./operation-text.js";
import { ProjectionView } from "./ProjectionView.js";
import { t } from "../../i18n/index.js";
import { localizedAppName } from "../../i18n/app-text.js";
import type { CatalogView } from "./catalog.js";

type InstallState =
  | { readonly phase: "idle" }
  | { readonly phase: "inspecting"; readonly file: string }
  | { readonly phase: "review"; readonly file: PickedFile; readonly inspected: AppOperation }
  | { readonly phase: "installing"; readonly file: PickedFile; readonly inspected: AppOperation }
  | { readonly phase: "refused"; readonly file: string; readonly operation: AppOperation }
  | { readonly phase: "installed"; readonly operation: AppOperation };

/** A bundle the host offers (the built-in apps `npm start` signs with the local dev key). */
export interface AvailableBundle {
  readonly name: string;
  readonly file: string;
  /** The app it installs, when the host knows: not offered while that app is installed. */
  readonly app_scope?: string;
  /** Its version, when the host knows: an installed older version is offered the update on its card. */
  readonly version?: string;
  load(): Promise<Uint8Array>;
}

export interface InstallPanelProps {
  manager: RuntimeAppManager;
  available?: readonly AvailableBundle[];
  /** The AppServer's catalog, when this host offers one; its apps not `installed` can be installed from it. */
  catalog?: CatalogView;
  onRefreshCatalog?: () => void;
  installed?: readonly string[];
}

export function InstallPanel({ manager, available = [], catalog, onRefreshCatalog, installed = [] }: InstallPanelProps) {
  const [state, setState] = useState<InstallState>({ phase: "idle" });
  const live = useRef(true);
  useEffect(
    () => () => {
      live.current = false;
    },
    [],
  );

  const set = (next: InstallState) => {
    if (live.current) setState(next);
  };

  const onPick = (file: PickedFile) => {
    set({ phase: "inspecting", file: file.name });
    void manager.inspect(file.bytes).then(
      (operation) => set(operation.status === "failed" || operation.projection === undefined ? { phase: "refused", file: file.name, operation } : { phase: "review", file, inspected: operation }),
      (error: unknown) => set({ phase: "refused", file: file.name, operation: unexpectedFailure(error, "install", "") }),
    );
  };

  const install = (file: PickedFile, inspected: AppOperation) => {
    set({ phase: "installing", file, inspected });
    void manager.install(file.bytes, { approved: true }).then(
      (operation) => set(operation.status === "failed" ? { phase: "refused", file: file.name, operation } : { phase: "installed", operation }),
      (error: unknown) => set({ phase: "refused", file: file.name, operation: unexpectedFailure(error, "install", "") }),
    );
  };

  // The projection is what the user reads next: move focus there.
  useEffect(() => {
    if (state.phase === "review") document.getElementById("install-review-title")?.focus();
  }, [state.phase]);

  const fromBundle = (bundle: AvailableBundle) => {
    set({ phase: "inspecting", file: bundle.file });
    void bundle.load().then(
      (bytes) => onPick({ name: bundle.file, bytes }),
      (error: unknown) => set({ phase: "refused", file: bundle.file, operation: unexpectedFailure(error, "install", "") }),
    );
  };
  const busy = state.phase === "inspecting" || state.phase === "installing";

  const reviewing = state.phase === "review" || state.phase === "installing";
  return (
    <section class="install" aria-labelledby="install-title">
      <div class="install-bar">
        <h2 id="install-title">{t("install.title")}</h2>
        <FilePicker label={t("install.fromFile")} onPick={onPick} disabled={state.phase === "inspecting" || state.phase === "installing"} />
      </div>
      {available.length > 0 ? (
        <div class="install-available">
          <span class="muted">{t("install.bundled")}</span>
          {available.map((bundle) => (
            <button key={bundle.file} type="button" class="secondary" disabled={busy} onClick={() => fromBundle(bundle)}>
              {t("install.bundle", { name: bundle.name })}
            </button>
          ))}
        </div>
      ) : null}
      {catalog === undefined ? null : (
        <section class="install-catalog" aria-labelledby="catalog-title">
          <div class="install-bar">
            <h3 id="catalog-title">{t("catalog.title")}</h3>
            <button type="button" class="secondary" disabled={catalog.status === "loading"} onClick={onRefreshCatalog}>
              {t("catalog.refresh")}
            </button>
          </div>
          {catalog.status === "loading" ? <p role="status">{t("catalog.loading")}</p> : null}
          {catalog.status === "unavailable" ? <p role="status">{t("catalog.unavailable", { reason: catalog.message })}</p> : null}
          {catalog.status === "ready" && catalog.bundles.length === 0 ? <p class="muted">{t("catalog.empty")}</p> : null}
          {catalog.status === "ready" && catalog.bundles.length > 0 ? (
            <ul class="catalog-list">
              {catalog.bundles.map((bundle) => (
                <li key={bundle.app_scope} class="catalog-entry">
                  <div>
                    <strong translate={false}>{bundle.name}</strong> <span class="muted">{bundle.version}</span>
                    {bundle.description === undefined ? null : <p class="muted">{bundle.description}</p>}
                    <p class="muted">{t("catalog.versions", { versions: bundle.versions.join(", "), key: bundle.publisher_key_id.slice(0, 12) })}</p>
                  </div>
                  {installed.includes(bundle.app_scope) ? (
                    <span class="muted">{t("catalog.installed")}</span>
                  ) : (
                    <button type="button" class="secondary" disabled={busy} aria-label={t("catalog.installNamed", { name: bundle.name, version: bundle.version })} onClick={() => fromBundle(bundle)}>
                      {t("catalog.install")}
                    </button>
                  )}
                </li>
              ))}
            </ul>
          ) : null}
        </section>
      )}
      <div aria-live="polite" class="install-live">
        {state.phase === "idle" ? <p class="muted">{t("install.idle")}</p> : null}
        {state.phase === "inspecting" ? <p role="status">{t("install.checking", { file: state.file })}</p> : null}
        {state.phase === "installed" && stillInstalled(manager, state.operation) ? (
          <OperationResult
            operation={state.operation}
            success={t(state.operation.steps.some((s) => s.name === "enable" && s.status === "done") ? "install.installedOn" : "install.installed", {
              name: localizedAppName(state.operation.projection) ?? state.operation.app_scope,
              version: state.operation.to_version ?? "",
            })}
          />
        ) : null}
        {state.phase === "refused" ? (
          <div class="install-refused">
            <p>
              <strong translate={false}>{state.file}</strong>
              {t("install.notInstalled")}
            </p>
            <OperationResult operation={state.operation} />
          </div>
        ) : null}
      </div>
      {reviewing && state.inspected.projection !== undefined ? (
        <div class="install-review" role="region" aria-label={t("install.review")}>
          <p class="muted">
            {t("install.reviewLead")}
            <strong translate={false}>{state.file.name}</strong>
            {t("install.reviewLeadEnd")}
          </p>
          <ProjectionView projection={state.inspected.projection} headingId="install-review-title" />
          <div class="actions">
            <button type="button" class="primary" disabled={state.phase === "installing"} onClick={() => install(state.file, state.inspected)}>
              {t(state.phase === "installing" ? "install.installing" : "install.installAndEnable")}
            </button>
            <button type="button" class="secondary" disabled={state.phase === "installing"} onClick={() => set({ phase: "idle" })}>
              {t("common.cancel")}
            </button>
          </div>
        </div>
      ) : null}
    </section>
  );
}

/**
 * The line about an install stays only while it is still true: once the app is updated (on its card), rolled
 * back or removed, its own line there says what happened, and "Installed … 1.0.0" would contradict it.
 */
function stillInstalled(manager: RuntimeAppManager, operation: AppOperation): boolean {
  return manager.getApp(operation.app_scope)?.record.installed_version === operation.to_version;
}
