/**
 * One app in the App Registry: what it is (name, scope, version, kind, on or off, default, instances
 * running) and what can be done with it — Enable/Disable, Make default, Update to <version> (a newer
 * version this host bundles), Update from file… (an update that asks for a new capability waits here with
 * its diff until Approve or Keep current), Roll back…
 * (to a retained version, with a required reason), Remove… (after a confirmation that says the bundle
 * and the app's data are deleted). Core apps have no Disable, Remove or Update; a refusal by the manager
 * is shown with its step and code.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { PickedFile } from "./read-file.js";
import { DiffView } from "./DiffView.js";
import { FilePicker } from "./FilePicker.js";
import type { AvailableBundle } from "./InstallPanel.js";
import type { AppDetails, AppOperation, RuntimeAppManager } from "./manager-api.js";
import { OperationResult } from "./OperationResult.js";
import { unexpectedFailure } from "./operation-text.js";
import { t } from "../../i18n/index.js";
import { appDisplayName } from "./app-name.js";

type Panel = "none" | "rollback" | "remove";

interface Outcome {
  readonly operation: AppOperation;
  readonly success: string;
  /** The operation "failed" the way the user asked it to (Keep current). */
  readonly expected: boolean;
}

export function AppCard({
  manager,
  details,
  onRemoved,
  bundled,
}: {
  manager: RuntimeAppManager;
  details: AppDetails;
  onRemoved: (operation: AppOperation, message: string) => void;
  /** A newer version this host bundles: offered as "Update to …", through the same update as a file. */
  bundled?: AvailableBundle;
}) {
  const { record } = details;
  const scope = record.app_scope;
  const name = appDisplayName(details);
  const id = (part: string) => `app-${scope}-${part}`;
  const [panel, setPanel] = useState<Panel>("none");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const live = useRef(true);
  useEffect(
    () => () => {
      live.current = false;
    },
    [],
  );

  const run = (kind: AppOperation["kind"], start: () => Promise<AppOperation>, success: (operation: AppOperation) => string, expected: (operation: AppOperation) => boolean = () => false) => {
    setBusy(true);
    setOutcome(undefined);
    void start()
      .catch((error: unknown) => unexpectedFailure(error, kind, scope))
      .then((operation) => {
        if (kind === "remove" && operation.status === "succeeded") onRemoved(operation, success(operation));
        if (!live.current) return;
        setBusy(false);
        const asked = expected(operation);
        setOutcome({ operation, success: success(operation), expected: asked });
        if (operation.status !== "failed" || asked) setPanel("none");
      });
  };

  const toggle = () =>
    record.enabled
      ? run("disable", () => manager.disable(scope), () => t("app.turnedOff", { name }))
      : run("enable", () => manager.enable(scope), () => t("app.turnedOn", { name }));
  const makeDefault = () => run("set_default", () => manager.setDefaultApp(scope), () => t("app.isDefault", { name }));
  /** An update from a picked file or from the host's bundle: the same manager call, the same words. */
  const updateWith = (bytes: () => Promise<Uint8Array>) =>
    run(
      "update",
      async () => manager.update(scope, undefined, { bundle: await bytes() }),
      (op) => (op.status === "awaiting_approval" ? t("app.updateWaitsApproval", { version: op.to_version ?? "" }) : t("app.updated", { name, version: op.to_version ?? t("app.newVersion") })),
    );
  const update = (file: PickedFile) => updateWith(() => Promise.resolve(file.bytes));
  const resolveUpdate = (approved: boolean) =>
    run(
      "approve_update",
      () => manager.resolveUpdate(scope, approved),
      (op) => (approved ? t("app.updated", { name, version: op.to_version ?? t("app.newVersion") }) : t("app.kept", { name, version: record.installed_version })),
      (op) => !approved && op.error?.code === "cancelled_by_user",
    );

  const olderVersions = details.versions.filter((v) => !v.active);
  const pending = details.pending_update;
  const core = record.kind === "core";
  const running = record.active_instance_count;

  return (
    <li class="app-item app-card" data-app={scope} data-enabled={String(record.enabled)} aria-labelledby={id("name")}>
      <div class="app-head">
        <div>
          <strong id={id("name")} class="app-name">
            {name}
          </strong>
          {details.is_default ? <span class="badge">{t("app.default")}</span> : null}
          {pending !== undefined ? <span class="badge badge-warn">{t("app.updateWaiting")}</span> : null}
          <div class="muted app-meta">
            {/* Core apps are part of the shell, always there: a running count would only say "not running" while one is on screen. */}
            <code>{scope}</code> · {t("app.version", { version: record.installed_version })} · {core ? t("app.builtIn") : t("app.installedRunning", { count: running })}
          </div>
        </div>
        <span class={record.enabled ? "state state-on" : "state state-off"}>{t(record.enabled ? "app.enabled" : "app.disabled")}</span>
      </div>
      <div class="app-actions" role="group" aria-label={t("app.actions", { name })}>
        {/* A core app is always on (the Runtime refuses to disable one); Enable stays for one a store kept off. */}
        {core && record.enabled ? null : (
          <button type="button" class="secondary" disabled={busy} aria-label={t(record.enabled ? "app.disableNamed" : "app.enableNamed", { name })} onClick={toggle}>
            {t(record.enabled ? "app.disable" : "app.enable")}
          </button>
        )}
        {details.is_default || !canBeDefault(details) ? null : (
          <button type="button" class="secondary" disabled={busy} aria-label={t("app.makeDefaultNamed", { name })} onClick={makeDefault}>
            {t("app.makeDefault")}
          </button>
        )}
        {core || bundled === undefined ? null : (
          <button type="button" class="primary" disabled={busy || pending !== undefined} aria-label={t("app.updateToNamed", { name, version: bundled.version ?? t("app.bundledVersion") })} onClick={() => updateWith(() => bundled.load())}>
            {t("app.updateTo", { version: bundled.version ?? "" })}
          </button>
        )}
        {core ? null : <FilePicker label={t("app.updateFromFile")} name={t("app.updateFromFileNamed", { name })} disabled={busy || pending !== undefined} onPick={update} />}
        {olderVersions.length > 0 ? (
          <button
            type="button"
            class="secondary"
            disabled={busy}
            aria-expanded={panel === "rollback"}
            aria-controls={id("rollback")}
            aria-label={t("app.rollBackNamed", { name })}
            onClick={() => setPanel(panel === "rollback" ? "none" : "rollback")}
          >
            {t("app.rollBack")}
          </button>
        ) : null}
        {core ? null : (
          <button
            type="button"
            class="secondary danger"
            disabled={busy}
            aria-expanded={panel === "remove"}
            aria-controls={id("remove")}
            aria-label={t("app.removeNamed", { name })}
            onClick={() => setPanel(panel === "remove" ? "none" : "remove")}
          >
            {t("app.remove")}
          </button>
        )}
      </div>
      {pending !== undefined ? (
        <div class="pending-update" role="region" aria-label={t("app.pendingRegion", { name, version: pending.version })}>
          <p>
            <strong>{t("app.pendingWaits", { name, version: pending.version })}</strong> {pending.diff.requires_approval ? t("app.pendingAsksMore") : ""}
            {t("app.pendingUntil", { version: record.installed_version })}
          </p>
          <DiffView diff={pending.diff} />
          <div class="actions">
            <button type="button" class="primary" disabled={busy} onClick={() => resolveUpdate(true)}>
              {t("app.approveUpdate", { version: pending.version })}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={() => resolveUpdate(false)}>
              {t("app.keepCurrent", { version: record.installed_version })}
            </button>
          </div>
        </div>
      ) : null}
      {panel === "rollback" ? (
        <RollbackForm
          formId={id("rollback")}
          name={name}
          versions={olderVersions.map((v) => v.version)}
          busy={busy}
          onCancel={() => setPanel("none")}
          onSubmit={(version, reason) => run("rollback", () => manager.rollback(scope, { version, reason }), (op) => t("app.rolledBack", { name, version: op.to_version ?? version }))}
        />
      ) : null}
      {panel === "remove" ? (
        <RemoveConfirm
          panelId={id("remove")}
          name={name}
          busy={busy}
          onCancel={() => setPanel("none")}
          onConfirm={() => run("remove", () => manager.remove(scope, { confirmed: true }), () => t("app.removed", { name }))}
        />
      ) : null}
      <div aria-live="polite">{outcome !== undefined ? <OperationResult operation={outcome.operation} success={outcome.success} expected={outcome.expected} /> : null}</div>
    </li>
  );
}

/** Chat, or an app with a default-eligible primary entrypoint (the manager still has the last word). */
function canBeDefault(details: AppDetails): boolean {
  return details.record.app_scope === "chat" || details.projection.entrypoints.some((e) => e.kind === "primary" && e.default_eligible);
}

function RollbackForm(props: { formId: string; name: string; versions: readonly string[]; busy: boolean; onCancel: () => void; onSubmit: (version: string, reason: string) => void }) {
  const [version, setVersion] = useState(props.versions[0] ?? "");
  const [reason, setReason] = useState("");
  const [missingReason, setMissingReason] = useState(false);
  const versionRef = useRef<HTMLSelectElement>(null);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  useEffect(() => versionRef.current?.focus(), []);
  const submit = (event: Event) => {
    event.preventDefault();
    if (reason.trim() === "") {
      setMissingReason(true);
      reasonRef.current?.focus();
      return;
    }
    props.onSubmit(version, reason.trim());
  };
  return (
    <form id={props.formId} class="inline-form" aria-label={t("app.rollBackForm", { name: props.name })} onSubmit={submit}>
      <label class="stack">
        {t("app.rollBackVersion")}
        <select ref={versionRef} value={version} onChange={(e) => setVersion((e.currentTarget as HTMLSelectElement).value)}>
          {props.versions.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      </label>
      <label class="stack">
        {t("app.rollBackReason")}
        <textarea
          ref={reasonRef}
          rows={2}
          value={reason}
          aria-invalid={missingReason}
          aria-describedby={missingReason ? `${props.formId}-error` : undefined}
          onInput={(e) => {
            setReason((e.currentTarget as HTMLTextAreaElement).value);
            setMissingReason(false);
          }}
        />
      </label>
      {missingReason ? (
        <p id={`${props.formId}-error`} class="error-text" role="alert">
          {t("app.rollBackNeedsReason")}
        </p>
      ) : null}
      <div class="actions">
        <button type="submit" class="primary" disabled={props.busy}>
          {t("app.rollBackTo", { version })}
        </button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          {t("common.cancel")}
        </button>
      </div>
    </form>
  );
}

function RemoveConfirm(props: { panelId: string; name: string; busy: boolean; onCancel: () => void; onConfirm: () => void }) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => cancelRef.current?.focus(), []);
  return (
    <div id={props.panelId} class="confirm-remove" role="group" aria-labelledby={`${props.panelId}-question`} aria-describedby={`${props.panelId}-detail`}>
      <p id={`${props.panelId}-question`}>
        <strong>{t("app.removeQuestion", { name: props.name })}</strong>
      </p>
      <p id={`${props.panelId}-detail`}>
        {t("app.removeDetail")}
      </p>
      <div class="actions">
        <button type="button" class="primary danger" disabled={props.busy} onClick={props.onConfirm}>
          {t("app.removeConfirm", { name: props.name })}
        </button>
        <button ref={cancelRef} type="button" class="secondary" onClick={props.onCancel}>
          {t("common.cancel")}
        </button>
      </div>
    </div>
  );
}
