/**
 * The journal's state, apart from its page: the entries it keeps in the app's own storage (one a day, keyed by
 * date), what a search found (the wasm back-end), and the week summaries its workflow runs. Everything goes
 * through a `JournalPort` (the Surface SDK in the app, a fake in tests), and a listener hears every change.
 */
export interface Entry {
  readonly day: string;
  readonly title: string;
  readonly body: string;
  readonly mood?: string;
  /** The app version that wrote it (the record's provenance). */
  readonly written_by?: string;
}

export interface Usage {
  readonly bytes: number;
  readonly records: number;
  readonly quota_bytes: number;
}

export interface SummaryRun {
  readonly run_id: string;
  readonly status: "running" | "waiting_for_user" | "completed" | "failed" | "cancelled";
  readonly input: unknown;
  readonly current: number;
  readonly steps: Readonly<Record<string, { readonly status: string; readonly output?: unknown; readonly error?: { readonly code: string; readonly message: string } }>>;
  readonly output?: unknown;
  readonly error?: { readonly code: string; readonly message: string; readonly step_id?: string };
  readonly created_at: string;
}

export interface JournalPort {
  listEntries(): Promise<readonly { readonly key: string; readonly value: unknown; readonly provenance?: { readonly app_version: string } }[]>;
  putEntry(day: string, value: { title: string; body: string; mood?: string }): Promise<Usage>;
  deleteEntry(day: string): Promise<Usage>;
  usage(): Promise<Usage>;
  search(query: string, entries: readonly { key: string; text: string }[]): Promise<{ readonly matches: readonly { readonly key: string; readonly score: number }[] }>;
  importText(text: string): Promise<{ readonly imported: number; readonly days: readonly string[] }>;
  startSummary(from: string, to: string, idempotencyKey: string): Promise<SummaryRun>;
  runs(): Promise<readonly SummaryRun[]>;
  confirm(runId: string, stepId: string, keep: boolean): Promise<SummaryRun>;
  cancel(runId: string): Promise<SummaryRun>;
  onRunChanged(listener: (run: SummaryRun) => void): () => void;
}

export const DAY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

/** The Monday and Sunday (YYYY-MM-DD, UTC) of the week `day` falls in. */
export function weekOf(day: string): { from: string; to: string } {
  const at = new Date(`${day}T00:00:00Z`);
  const monday = new Date(at.getTime() - ((at.getUTCDay() + 6) % 7) * 86_400_000);
  const sunday = new Date(monday.getTime() + 6 * 86_400_000);
  return { from: monday.toISOString().slice(0, 10), to: sunday.toISOString().slice(0, 10) };
}

/** Why something failed, in a person's words: the Runtime's code decides the sentence, its message the detail. */
export function describeFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as { message?: unknown } | null)?.message;
  switch (code) {
    case "unsupported_on_host":
      return "This device cannot run that part of the journal.";
    case "quota_exceeded":
      return "The journal is full: it may keep 50 MB on this device. Delete some entries first.";
    case "invalid_params":
      return `That entry cannot be kept: ${typeof message === "string" ? message : "it is not valid"}.`;
    case "operation_expired":
      return "That took too long and was stopped.";
    default:
      return typeof message === "string" && message !== "" ? message : "Something went wrong.";
  }
}

function toEntry(row: { key: string; value: unknown; provenance?: { app_version: string } }): Entry | undefined {
  const value = row.value as { title?: unknown; body?: unknown; mood?: unknown } | null;
  if (typeof value !== "object" || value === null || typeof value.title !== "string" || typeof value.body !== "string") return undefined;
  return {
    day: row.key,
    title: value.title,
    body: value.body,
    ...(typeof value.mood === "string" && value.mood !== "" ? { mood: value.mood } : {}),
    ...(row.provenance === undefined ? {} : { written_by: row.provenance.app_version }),
  };
}

export interface JournalState {
  readonly entries: readonly Entry[];
  readonly usage: Usage | undefined;
  /** The days a search found, best first; undefined when no search is shown. */
  readonly found: readonly string[] | undefined;
  readonly runs: readonly SummaryRun[];
  readonly notice: string | undefined;
  readonly busy: boolean;
}

export class Journal {
  private state: JournalState = { entries: [], runs: [], busy: false, found: undefined, notice: undefined, usage: undefined };
  private readonly listeners = new Set<(state: JournalState) => void>();
  private readonly stopRuns: () => void;

  constructor(private readonly port: JournalPort) {
    this.stopRuns = port.onRunChanged((run) => this.upsertRun(run));
  }

  snapshot(): JournalState {
    return this.state;
  }

  subscribe(listener: (state: JournalState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    this.stopRuns();
    this.listeners.clear();
  }

  async load(): Promise<void> {
    await this.attempt(async () => {
      const [rows, usage, runs] = await Promise.all([this.port.listEntries(), this.port.usage(), this.port.runs()]);
      this.set({ entries: rows.flatMap((r) => toEntry(r as never) ?? []).sort((a, b) => (a.day < b.day ? 1 : -1)), usage, runs: [...runs] });
    });
  }

  async save(entry: { day: string; title: string; body: string; mood?: string }): Promise<boolean> {
    if (!DAY.test(entry.day)) {
      this.set({ notice: "Give the entry its date as YYYY-MM-DD." });
      return false;
    }
    if (entry.title.trim() === "" || entry.body.trim() === "") {
      this.set({ notice: "An entry needs a title and some text." });
      return false;
    }
    return this.attempt(async () => {
      const usage = await this.port.putEntry(entry.day, { title: entry.title, body: entry.body, ...(entry.mood === undefined || entry.mood === "" ? {} : { mood: entry.mood }) });
      const kept: Entry = { day: entry.day, title: entry.title, body: entry.body, ...(entry.mood === undefined || entry.mood === "" ? {} : { mood: entry.mood }) };
      this.set({ entries: [kept, ...this.state.entries.filter((e) => e.day !== entry.day)].sort((a, b) => (a.day < b.day ? 1 : -1)), usage, notice: `Kept the entry of ${entry.day}.` });
    });
  }

  async remove(day: string): Promise<boolean> {
    return this.attempt(async () => {
      const usage = await this.port.deleteEntry(day);
      this.set({ entries: this.state.entries.filter((e) => e.day !== day), usage, notice: `Deleted the entry of ${day}.` });
    });
  }

  async search(query: string): Promise<void> {
    const words = query.trim();
    if (words === "") {
      this.set({ found: undefined });
      return;
    }
    await this.attempt(async () => {
      const result = await this.port.search(words, this.state.entries.map((e) => ({ key: e.day, text: `${e.title}\n${e.body}` })));
      this.set({ found: result.matches.map((m) => m.key), notice: result.matches.length === 0 ? `No entry mentions “${words}”.` : undefined });
    });
  }

  async importText(text: string): Promise<void> {
    await this.attempt(async () => {
      const result = await this.port.importText(text);
      await this.load();
      this.set({ notice: result.imported === 0 ? "Nothing to import: start each entry with its date on a line of its own." : `Imported ${result.imported} ${result.imported === 1 ? "entry" : "entries"}.` });
    });
  }

  async summarize(day: string, idempotencyKey: string): Promise<void> {
    const { from, to } = weekOf(day);
    await this.attempt(async () => {
      this.upsertRun(await this.port.startSummary(from, to, idempotencyKey));
    });
  }

  async answer(runId: string, keep: boolean): Promise<void> {
    await this.attempt(async () => this.upsertRun(await this.port.confirm(runId, "keep", keep)));
  }

  async cancel(runId: string): Promise<void> {
    await this.attempt(async () => this.upsertRun(await this.port.cancel(runId)));
  }

  private upsertRun(run: SummaryRun): void {
    this.set({ runs: [run, ...this.state.runs.filter((r) => r.run_id !== run.run_id)].sort((a, b) => (a.created_at < b.created_at ? 1 : -1)) });
  }

  private async attempt(work: () => Promise<void>): Promise<boolean> {
    this.set({ busy: true, notice: undefined });
    try {
      await work();
      return true;
    } catch (error) {
      this.set({ notice: describeFailure(error) });
      return false;
    } finally {
      this.set({ busy: false });
    }
  }

  private set(patch: Partial<JournalState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener(this.state);
  }
}
