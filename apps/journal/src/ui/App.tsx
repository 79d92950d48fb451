/** The journal's page: write a day's entry, read and search the entries, import text, summarize the week. */
import { useEffect, useState } from "preact/hooks";
import type { Entry, Journal, JournalState, SummaryRun } from "../journal.js";
import { journalText, type JournalText } from "./text.js";

const today = (): string => new Date().toISOString().slice(0, 10);

function useJournal(journal: Journal): JournalState {
  const [state, setState] = useState(journal.snapshot());
  useEffect(() => {
    const off = journal.subscribe(setState);
    // What changed between the first render and this effect (a load that finished first) is read once here.
    setState(journal.snapshot());
    return off;
  }, [journal]);
  return state;
}

function Editor({ journal, busy, editing, text }: { journal: Journal; busy: boolean; editing?: Entry; text: JournalText }) {
  const [day, setDay] = useState(editing?.day ?? today());
  const [title, setTitle] = useState(editing?.title ?? "");
  const [body, setBody] = useState(editing?.body ?? "");
  const [mood, setMood] = useState(editing?.mood ?? "");
  useEffect(() => {
    if (editing === undefined) return;
    setDay(editing.day);
    setTitle(editing.title);
    setBody(editing.body);
    setMood(editing.mood ?? "");
  }, [editing]);
  return (
    // Not a <form>: the app's sandbox allows no form submission, so the button does the work itself.
    <div class="editor" role="form" aria-label={text.write}>
      <div class="row">
        <label>
          {text.day} <input name="day" type="date" value={day} required onInput={(e) => setDay(e.currentTarget.value)} />
        </label>
        <label>
          {text.mood} <input name="mood" value={mood} maxLength={40} placeholder={text.moodPlaceholder} onInput={(e) => setMood(e.currentTarget.value)} />
        </label>
      </div>
      <label>
        {text.entryTitle} <input name="title" value={title} required maxLength={200} onInput={(e) => setTitle(e.currentTarget.value)} />
      </label>
      <label>
        {text.entry} <textarea name="body" rows={5} value={body} required maxLength={20000} onInput={(e) => setBody(e.currentTarget.value)} />
      </label>
      <button
        type="button"
        disabled={busy}
        onClick={() =>
          void journal.save({ day, title, body, mood }).then((kept) => {
            if (kept) {
              setTitle("");
              setBody("");
              setMood("");
            }
          })
        }
      >
        {text.keepEntry}
      </button>
    </div>
  );
}

function RunView({ journal, run, text }: { journal: Journal; run: SummaryRun; text: JournalText }) {
  const input = run.input as { from?: string; to?: string };
  const summary = (run.steps["ask"]?.output as { summary?: string } | undefined)?.summary;
  return (
    <li class={`run run-${run.status}`} data-run={run.run_id} data-status={run.status}>
      <div class="run-head">
        <strong>{text.week(input.from ?? "", input.to ?? "")}</strong> <span class="muted">{text.run(run.status, run.error?.code === "cancelled_by_user", run.error?.message ?? "unknown")}</span>
      </div>
      {summary === undefined ? null : <p class="summary">{summary}</p>}
      {run.status === "waiting_for_user" ? (
        <div class="row">
          <button type="button" onClick={() => void journal.answer(run.run_id, true)}>
            {text.keepIt}
          </button>
          <button type="button" onClick={() => void journal.answer(run.run_id, false)}>
            {text.dontKeep}
          </button>
        </div>
      ) : null}
      {run.status === "running" ? (
        <button type="button" onClick={() => void journal.cancel(run.run_id)}>
          {text.stop}
        </button>
      ) : null}
    </li>
  );
}

export function App({
  journal,
  newKey,
  standalone,
  locale: initialLocale = "en",
  onLocaleChange,
}: {
  journal: Journal;
  newKey: () => string;
  standalone?: boolean;
  /** The language LineUp tells the app (BCP 47), and its changes: the words follow it. */
  locale?: string;
  onLocaleChange?: (listener: (locale: string) => void) => () => void;
}) {
  const state = useJournal(journal);
  const [locale, setLocale] = useState(initialLocale);
  useEffect(() => onLocaleChange?.(setLocale), [onLocaleChange]);
  const text = journalText(locale);
  const [query, setQuery] = useState("");
  const [importing, setImporting] = useState("");
  const [editing, setEditing] = useState<Entry | undefined>(undefined);
  if (standalone === true) return (
      <main class="journal">
        <h1>{text.title}</h1>
        <p>{text.standalone}</p>
      </main>
    );
  const shown = state.found === undefined ? state.entries : state.found.flatMap((day) => state.entries.filter((e) => e.day === day));
  return (
    <main class="journal" aria-busy={state.busy}>
      <header class="head">
        <h1>{text.title}</h1>
        {state.usage === undefined ? null : (
          <span class="muted" data-usage="">
            {text.usage(state.usage.records, Math.ceil(state.usage.bytes / 1024), Math.round(state.usage.quota_bytes / 1048576))}
          </span>
        )}
      </header>
      {state.notice === undefined ? null : (
        <p class="notice" role="status">
          {state.notice}
        </p>
      )}
      <Editor journal={journal} busy={state.busy} text={text} {...(editing === undefined ? {} : { editing })} />
      <section aria-label={text.summaries}>
        <div class="row">
          <h2>{text.yourWeek}</h2>
          <button type="button" disabled={state.busy} onClick={() => void journal.summarize(today(), newKey())}>
            {text.summarize}
          </button>
        </div>
        <ul class="runs">
          {state.runs.slice(0, 5).map((run) => (
            <RunView key={run.run_id} journal={journal} run={run} text={text} />
          ))}
        </ul>
      </section>
      <section aria-label={text.entries}>
        <div class="row" role="search">
          <input
            name="query"
            type="search"
            aria-label={text.search}
            placeholder={text.search}
            value={query}
            onInput={(e) => setQuery(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter") void journal.search(query);
            }}
          />
          <button type="button" onClick={() => void journal.search(query)}>
            {text.searchButton}
          </button>
          {state.found === undefined ? null : (
            <button
              type="button"
              onClick={() => {
                setQuery("");
                void journal.search("");
              }}
            >
              {text.showAll}
            </button>
          )}
        </div>
        <ul class="entries">
          {shown.map((entry) => (
            <li key={entry.day} class="entry" data-day={entry.day}>
              <div class="row">
                <strong>{entry.day}</strong> {entry.title} {entry.mood === undefined ? null : <span class="mood">{entry.mood}</span>}
                <span class="spacer" />
                <button type="button" onClick={() => setEditing(entry)}>
                  {text.edit}
                </button>
                <button type="button" onClick={() => void journal.remove(entry.day)}>
                  {text.delete}
                </button>
              </div>
              <p>{entry.body}</p>
            </li>
          ))}
        </ul>
      </section>
      <details class="import">
        <summary>{text.importTitle}</summary>
        <textarea rows={4} value={importing} placeholder={"2026-12-01\nA quiet Monday."} onInput={(e) => setImporting(e.currentTarget.value)} />
        <button type="button" disabled={state.busy || importing.trim() === ""} onClick={() => void journal.importText(importing)}>
          {text.importButton}
        </button>
      </details>
    </main>
  );
}
