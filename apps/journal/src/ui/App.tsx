/** The journal's page: write a day's entry, read and search the entries, import text, summarize the week. */
import { useEffect, useState } from "preact/hooks";
import type { Entry, Journal, JournalState, SummaryRun } from "../journal.js";

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

function Editor({ journal, busy, editing }: { journal: Journal; busy: boolean; editing?: Entry }) {
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
    <div class="editor" role="form" aria-label="Write an entry">
      <div class="row">
        <label>
          Day <input name="day" type="date" value={day} required onInput={(e) => setDay(e.currentTarget.value)} />
        </label>
        <label>
          Mood <input name="mood" value={mood} maxLength={40} placeholder="calm, tired…" onInput={(e) => setMood(e.currentTarget.value)} />
        </label>
      </div>
      <label>
        Title <input name="title" value={title} required maxLength={200} onInput={(e) => setTitle(e.currentTarget.value)} />
      </label>
      <label>
        Entry <textarea name="body" rows={5} value={body} required maxLength={20000} onInput={(e) => setBody(e.currentTarget.value)} />
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
        Keep entry
      </button>
    </div>
  );
}

function RunView({ journal, run }: { journal: Journal; run: SummaryRun }) {
  const input = run.input as { from?: string; to?: string };
  const summary = (run.steps["ask"]?.output as { summary?: string } | undefined)?.summary;
  const words: Record<SummaryRun["status"], string> = {
    running: "Working on it…",
    waiting_for_user: "Keep this summary?",
    completed: "Kept.",
    failed: run.error?.code === "cancelled_by_user" ? "Not kept." : `Failed: ${run.error?.message ?? "unknown"}`,
    cancelled: "Stopped.",
  };
  return (
    <li class={`run run-${run.status}`} data-run={run.run_id} data-status={run.status}>
      <div class="run-head">
        <strong>
          Week {input.from} – {input.to}
        </strong>{" "}
        <span class="muted">{words[run.status]}</span>
      </div>
      {summary === undefined ? null : <p class="summary">{summary}</p>}
      {run.status === "waiting_for_user" ? (
        <div class="row">
          <button type="button" onClick={() => void journal.answer(run.run_id, true)}>
            Keep it
          </button>
          <button type="button" onClick={() => void journal.answer(run.run_id, false)}>
            Don't keep it
          </button>
        </div>
      ) : null}
      {run.status === "running" ? (
        <button type="button" onClick={() => void journal.cancel(run.run_id)}>
          Stop
        </button>
      ) : null}
    </li>
  );
}

export function App({ journal, newKey, standalone }: { journal: Journal; newKey: () => string; standalone?: boolean }) {
  const state = useJournal(journal);
  const [query, setQuery] = useState("");
  const [importing, setImporting] = useState("");
  const [editing, setEditing] = useState<Entry | undefined>(undefined);
  if (standalone === true) return <main class="journal"><h1>Journal</h1><p>Open this journal in LineUp: its entries live in the app's storage there.</p></main>;
  const shown = state.found === undefined ? state.entries : state.found.flatMap((day) => state.entries.filter((e) => e.day === day));
  return (
    <main class="journal" aria-busy={state.busy}>
      <header class="head">
        <h1>Journal</h1>
        {state.usage === undefined ? null : (
          <span class="muted" data-usage="">
            {state.usage.records} {state.usage.records === 1 ? "entry" : "entries"} · {Math.ceil(state.usage.bytes / 1024)} KB of {Math.round(state.usage.quota_bytes / 1048576)} MB
          </span>
        )}
      </header>
      {state.notice === undefined ? null : (
        <p class="notice" role="status">
          {state.notice}
        </p>
      )}
      <Editor journal={journal} busy={state.busy} {...(editing === undefined ? {} : { editing })} />
      <section aria-label="Summaries">
        <div class="row">
          <h2>Your week</h2>
          <button type="button" disabled={state.busy} onClick={() => void journal.summarize(today(), newKey())}>
            Summarize my week
          </button>
        </div>
        <ul class="runs">
          {state.runs.slice(0, 5).map((run) => (
            <RunView key={run.run_id} journal={journal} run={run} />
          ))}
        </ul>
      </section>
      <section aria-label="Entries">
        <div class="row" role="search">
          <input
            name="query"
            type="search"
            aria-label="Search your entries"
            placeholder="Search your entries"
            value={query}
            onInput={(e) => setQuery(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter") void journal.search(query);
            }}
          />
          <button type="button" onClick={() => void journal.search(query)}>
            Search
          </button>
          {state.found === undefined ? null : (
            <button
              type="button"
              onClick={() => {
                setQuery("");
                void journal.search("");
              }}
            >
              Show all
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
                  Edit
                </button>
                <button type="button" onClick={() => void journal.remove(entry.day)}>
                  Delete
                </button>
              </div>
              <p>{entry.body}</p>
            </li>
          ))}
        </ul>
      </section>
      <details class="import">
        <summary>Import from text</summary>
        <textarea rows={4} value={importing} placeholder={"2026-12-01\nA quiet Monday."} onInput={(e) => setImporting(e.currentTarget.value)} />
        <button type="button" disabled={state.busy || importing.trim() === ""} onClick={() => void journal.importText(importing)}>
          Import
        </button>
      </details>
    </main>
  );
}
