/** The manager's recent operations, newest first, one compact line each; a failure shows its code. */
import { formatTime } from "./format.js";
import type { AppOperation } from "./manager-api.js";
import { activityStatus, newestFirst, operationParts } from "./operation-text.js";
import { t } from "../../i18n/index.js";

export const OPERATIONS_SHOWN = 20;

export function OperationsList({ operations }: { operations: readonly AppOperation[] }) {
  const shown = newestFirst(operations).slice(0, OPERATIONS_SHOWN);
  return (
    <section class="activity" aria-labelledby="operations-title">
      <h2 id="operations-title">{t("registry.activity")}</h2>
      {shown.length === 0 ? (
        <p class="muted">{t("registry.nothingYet")}</p>
      ) : (
        <ol class="activity-list">
          {shown.map((operation, index) => (
            <li key={operation.operation_id === "" ? `#${index}` : operation.operation_id} class={`activity activity-${operation.status}`} data-kind={operation.kind} data-status={operation.status}>
              <time class="muted" dateTime={operation.requested_at}>
                {formatTime(operation.requested_at, { seconds: true })}
              </time>
              <span class="activity-summary">
                <Summary operation={operation} />
              </span>
              <span class={`activity-status tone-${activityStatus(operation).tone}`}>{activityStatus(operation).label}</span>
              {operation.error !== undefined && activityStatus(operation).tone === "failed" ? <code class="error-code">{operation.error.code}</code> : null}
              {operation.reason !== undefined ? <span class="muted activity-reason">“{operation.reason}”</span> : null}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** What was done and the versions in words; the app by its scope, as code. */
function Summary({ operation }: { operation: AppOperation }) {
  const { kind, scope, versions } = operationParts(operation);
  return (
    <>
      {kind} {scope === "" ? t("op.unknownApp") : <code>{scope}</code>}
      {versions}
    </>
  );
}
