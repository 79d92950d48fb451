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
      setError(parsed.error);
      return;
    }
    setBusy(true);
    try {
      await settings.addTrustedPublisher(parsed.value);
      setError(undefined);
      setText("");
      setLabel("");
      setNotice(`Now trusting ${parsed.value.label ?? shortKeyId(parsed.value.key_id)}.`);
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
      setNotice(`No longer trusting ${name}. Apps it signed stay installed; their updates need a trusted key.`);
    } catch (refused) {
      setError(refusalOf(refused));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="field" aria-labelledby="publishers-title">
      <h2 id="publishers-title">Trusted publishers</h2>
      <p class="muted hint">Only bundles signed by one of these keys can be installed.</p>
      {publishers.length === 0 ? (
        <p class="muted">No publisher is trusted yet.</p>
      ) : (
        <ul class="settings-list" aria-label="Trusted publisher keys">
          {publishers.map((p) => {
            const name = p.label ?? shortKeyId(p.key_id);
            return (
              <li key={p.key_id} class="settings-row" data-key-id={p.key_id}>
                <strong>{name}</strong>
                <code title={p.key_id} aria-label={`key id ${p.key_id}`}>
                  {shortKeyId(p.key_id)}
                </code>
                <span class="row-end">
                  <span class="muted">added {formatTime(p.added_at)}</span>
                  <button type="button" class="secondary danger" disabled={busy} aria-label={`Remove publisher ${name}`} onClick={() => void remove(p.key_id, name)}>
                    Remove
                  </button>
                </span>
              </li>
            );
          })}
        </ul>
      )}
      <form class="inline-form" aria-label="Add a trusted publisher" onSubmit={(e) => void add(e)}>
        <label class="stack">
          Publisher key (paste publisher.pub.json)
          <textarea
            rows={3}
            value={text}
            spellcheck={false}
            placeholder='{ "key_id": "…", "public_key": "…" }'
            aria-invalid={error !== undefined}
            aria-describedby={error !== undefined ? "publisher-error" : undefined}
            onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          />
        </label>
        <label class="stack">
          Label (optional)
          <input type="text" value={label} maxLength={80} onInput={(e) => setLabel((e.currentTarget as HTMLInputElement).value)} />
        </label>
        {error !== undefined ? (
          <p id="publisher-error" class="error-text" role="alert" data-code={error.code}>
            Not added: {error.message}
            {error.path !== undefined && error.path !== "" ? ` (at ${error.path})` : ""}. Error code <code class="error-code">{error.code}</code>
          </p>
        ) : null}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Trust this publisher
          </button>
        </div>
      </form>
      <p role="status" class="muted">
        {notice}
      </p>
    </section>
  );
}
