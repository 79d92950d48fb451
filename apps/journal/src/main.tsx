/**
 * The journal's entry: connect to the Runtime over the Surface Bridge, load the entries from the app's own storage
 * and the week summaries its workflow ran, render, then say `ready`. Opened outside LineUp it says where to use it.
 */
import { render } from "preact";
import { connectSurface, type Surface } from "@lineup/surface-sdk";
import { Journal, type JournalPort, type SummaryRun } from "./journal.js";
import { App } from "./ui/App.js";
import "./ui/styles.css";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** A summary request's idempotency key (`getRandomValues` works in an opaque-origin sandbox). */
function newKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let key = "week-";
  for (const b of bytes) key += ALPHABET[b % ALPHABET.length];
  return key;
}

function portOf(surface: Surface): JournalPort {
  return {
    listEntries: () => surface.storage.list("entries", { reverse: true, limit: 1000 }),
    putEntry: (day, value) => surface.storage.put("entries", day, value),
    deleteEntry: (day) => surface.storage.delete("entries", day),
    usage: () => surface.storage.usage(),
    search: async (query, entries) => (await surface.backend.call("search", "search", { query, entries: entries.map((e) => ({ key: e.key, text: e.text })) })) as unknown as { matches: { key: string; score: number }[] },
    importText: async (text) => (await surface.backend.call("importer", "import.text", { text })) as unknown as { imported: number; days: string[] },
    startSummary: async (from, to, key) => (await surface.workflow.start("summarize-week", { from, to }, { idempotency_key: key })) as unknown as SummaryRun,
    runs: async () => (await surface.workflow.runs()) as unknown as SummaryRun[],
    confirm: async (runId, stepId, keep) => (await surface.workflow.confirm(runId, stepId, keep)) as unknown as SummaryRun,
    cancel: async (runId) => (await surface.workflow.cancel(runId)) as unknown as SummaryRun,
    onRunChanged: (listener) => surface.workflow.onChanged(({ run }) => listener(run as unknown as SummaryRun)),
  };
}

async function start(): Promise<void> {
  const root = document.getElementById("app");
  if (root === null) return;
  const surface = await connectSurface().catch(() => undefined);
  if (surface === undefined) {
    render(<App journal={new Journal(offline)} newKey={newKey} standalone locale={navigator.language} />, root);
    return;
  }
  const journal = new Journal(portOf(surface));
  render(<App journal={journal} newKey={newKey} locale={surface.app.locale} onLocaleChange={surface.followLocale} />, root);
  surface.lifecycle.on("closing", () => journal.dispose());
  const loaded = journal.load();
  await surface.lifecycle.ready();
  await loaded;
}

const refuse = () => Promise.reject(new Error("not connected to LineUp"));
const offline: JournalPort = {
  listEntries: refuse,
  putEntry: refuse,
  deleteEntry: refuse,
  usage: refuse,
  search: refuse,
  importText: refuse,
  startSummary: refuse,
  runs: async () => [],
  confirm: refuse,
  cancel: refuse,
  onRunChanged: () => () => undefined,
};

void start();
