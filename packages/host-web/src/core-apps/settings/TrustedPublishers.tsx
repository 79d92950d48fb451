/**
 * Trusted publishers (docs/bundle.md §4): the keys whose signed bundles this Runtime installs, each
 * with its label and shortened key id; add one by pasting its `publisher.pub.json` (checked here
 * first, then by the Runtime, which also proves the key id is the key's SHA-256), or remove one.
 */
import { useState } from "preact/hooks";
import type { ProtocolError } from "@lineup/protocol";
import { formatTime, shortKeyId } from "../registry/format.js";
import type { RuntimeSettings } from "../registry/manager-api.js";
import { parsePublisherKey } from "./publisher-key.js";
import { refusalOf } from "./refusal.js";
import { t } from "../../i18n/index.js";

export function TrustedPublishers({ settings }: { settings: RuntimeSettings }) {
  const [text, setText] = useState("");
  const [label, setLabel] = useState("");
  const [error, setError] = useState<ProtocolError | undefined>(undefined);
  const [notice, setNotice] = useState("");
  const [busy, setBusy] = useState(false);
  const publishers = settings.trustedPublishers();

  const add = async (event: Event) => {
    event.preventDefault();
    setNotice("");
    const parsed = parsePublisherKey(text, label);
    if (!parsed.ok) {
      setError({ ...parsed.error, message: refusalOf(parsed.error).message });
      return;
    }
    setBusy(true);
    try {
      await settings.addTrustedPublisher(parsed.value);
      setError(undefined);
      setText("");
      setLabel("");
      setNotice(t("publishers.nowTrusting", { name: parsed.value.label ?? shortKeyId(parsed.value.key_id) }));
    } catch (refused) {
      setError(refusalOf(refused));
    } finally {
      setBusy(false);
    }
  };

  const remove = async (keyId: string, name: string) => {
    setBusy(true);
    try {
      await settings.removeTrustedPublisher(keyId);
      setError(undefined);
      setNotice(t("publishers.noLongerTrusting", { name }));
    } catch (refused) {
      setError(refusalOf(refused));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="field" aria-labelledby="publishers-title">
      <h2 id="publishers-title">{t("publishers.title")}</h2>
      <p class="muted hint">{t("publishers.hint")}</p>
      {publishers.length === 0 ? (
        <p class="muted">{t("publishers.none")}</p>
      ) : (
        <ul class="settings-list" aria-label={t("publishers.list")}>
          {publishers.map((p) => {
            const name = p.label ?? shortKeyId(p.key_id);
            return (
              <li key={p.key_id} class="settings-row" data-key-id={p.key_id}>
                <strong translate={false}>{name}</strong>
                <code title={p.key_id} aria-label={t("publishers.keyId", { keyId: p.key_id })}>
                  {shortKeyId(p.key_id)}
                </code>
                <span class="row-end">
                  <span class="muted">{t("publishers.added", { at: formatTime(p.added_at) })}</span>
                  <button type="button" class="secondary danger" disabled={busy} aria-label={t("publishers.removeNamed", { name })} onClick={() => void remove(p.key_id, name)}>
                    {t("common.remove")}
                  </button>
                </span>
              </li>
            );
          })}
        </ul>
      )}
      <form class="inline-form" aria-label={t("publishers.addForm")} onSubmit={(e) => void add(e)}>
        <label class="stack">
          <span>
            {t("publishers.key")}
            <code>publisher.pub.json</code>
            {t("publishers.keyEnd")}
          </span>
          <textarea
            rows={3}
            value={text}
            spellcheck={false}
            translate={false}
            placeholder='{ "key_id": "…", "public_key": "…" }'
            aria-invalid={error !== undefined}
            aria-describedby={error !== undefined ? "publisher-error" : undefined}
            onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          />
        </label>
        <label class="stack">
          {t("publishers.label")}
          <input type="text" value={label} maxLength={80} onInput={(e) => setLabel((e.currentTarget as HTMLInputElement).value)} />
        </label>
        {error !== undefined ? (
          <p id="publisher-error" class="error-text" role="alert" data-code={error.code}>
            {t("publishers.notAdded", { message: error.message, at: error.path ?? "" })}
            {t("common.errorCode")} <code class="error-code">{error.code}</code>
          </p>
        ) : null}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {t("publishers.trust")}
          </button>
        </div>
      </form>
      <p role="status" class="muted">
        {notice}
      </p>
    </section>
  );
}
