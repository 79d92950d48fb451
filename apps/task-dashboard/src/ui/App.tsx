/**
 * The task dashboard: "Ask the agent" forms beside the list of this app's tasks in the conversation,
 * newest first. A task just started opens; a change of status is said once in the live region.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { AgentTaskRequest } from "@lineup/protocol";
import { isEntryId } from "../entries.js";
import type { PickableFile } from "../model/files.js";
import { resultView } from "../model/results.js";
import type { TaskStore, TasksState } from "../task-store.js";
import { NewTask } from "./NewTask.js";
import { TaskCard } from "./TaskCard.js";
import { dashboardText, statusIn, TextContext, type DashboardText } from "./text.js";

export interface AppProps {
  readonly store: TaskStore;
  /** The conversation's text files, newest first. */
  readonly listFiles: () => Promise<PickableFile[]>;
  readonly newKey: () => string;
  /** Shown when the page runs outside LineUp: nothing can be asked. */
  readonly standalone?: boolean;
  /** The locale LineUp gives the app (the Host Bridge snapshot's), and its changes. */
  readonly locale?: string;
  readonly onLocaleChange?: (listener: (locale: string) => void) => () => void;
}

/** What the live region says about a task whose status (or decision) changed. */
function announcement(text: DashboardText, entry: TasksState["tasks"][number]): string {
  const { task } = entry;
  const name = task.title ?? (isEntryId(task.entry) ? text.entries[task.entry].title : task.entry);
  const result = task.status === "completed" && task.result !== undefined && task.decision === undefined ? ` — ${text.headline(resultView(task.entry, task.result.output))}` : "";
  return `${name}: ${statusIn(text, task)}${result}`;
}

export function App({ store, listFiles, newKey, standalone = false, locale: initialLocale = "en", onLocaleChange }: AppProps) {
  const [locale, setLocale] = useState(initialLocale);
  useEffect(() => onLocaleChange?.(setLocale), [onLocaleChange]);
  const text = dashboardText(locale);
  const [state, setState] = useState<TasksState>(store.state);
  const [files, setFiles] = useState<PickableFile[] | undefined>(undefined);
  const [filesProblem, setFilesProblem] = useState<string | undefined>(undefined);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [spoken, setSpoken] = useState("");
  const seen = useRef(new Map<string, string>());

  useEffect(() => {
    const off = store.subscribe(setState);
    // A change made before the effect ran (the list arrived during the first paint) had nobody listening.
    setState(store.state);
    return off;
  }, [store]);

  // The newest task opens when the list first arrives.
  const opened = useRef(false);
  useEffect(() => {
    if (opened.current || !state.loaded) return;
    opened.current = true;
    const newest = state.tasks[0];
    if (newest !== undefined) setExpanded(new Set([newest.task.task_id]));
  }, [state.loaded]);

  // Say each change of status once; the first sight of a listed task is not news.
  useEffect(() => {
    const lines: string[] = [];
    for (const entry of state.tasks) {
      const now = entry.task.status + (entry.task.decision?.decision ?? "");
      const before = seen.current.get(entry.task.task_id);
      seen.current.set(entry.task.task_id, now);
      if (before !== undefined && before !== now) lines.push(announcement(text, entry));
    }
    if (lines.length > 0) setSpoken(lines.join(". "));
  }, [state]);

  const refreshFiles = () => {
    if (standalone) {
      setFiles([]);
      return;
    }
    setFilesProblem(undefined);
    listFiles().then(setFiles, (error: unknown) => {
      setFiles([]);
      setFilesProblem(text.filesUnreadable(text.reason(error)));
    });
  };
  useEffect(refreshFiles, [listFiles]);

  const start = async (request: AgentTaskRequest): Promise<void> => {
    const taskId = await store.start(request);
    seen.current.set(taskId, "");
    setExpanded((open) => new Set([...open, taskId]));
  };
  const toggle = (taskId: string) =>
    setExpanded((open) => {
      const next = new Set(open);
      if (!next.delete(taskId)) next.add(taskId);
      return next;
    });

  return (
    <TextContext.Provider value={text}>
    <div class="td-app" lang={text.locale}>
      <header class="td-header">
        <h1>{text.title}</h1>
        <p class="td-hint">{text.intro}</p>
      </header>
      {standalone ? (
        <p class="td-notice">{text.standalone}</p>
      ) : (
        <div class="td-columns">
          <NewTask files={files} filesProblem={filesProblem} onRefreshFiles={refreshFiles} onStart={start} newKey={newKey} />
          <section class="td-list" aria-labelledby="tasks-heading">
            <h2 id="tasks-heading">
              {text.tasks} <span class="td-count">{state.tasks.length}</span>
            </h2>
            {state.problem !== undefined && (
              <p class="td-problem" role="alert">
                {text.storeProblem(state.problem)}
              </p>
            )}
            {!state.loaded ? (
              <p class="td-hint">{text.loading}</p>
            ) : state.tasks.length === 0 ? (
              <p class="td-hint">{text.noTasks}</p>
            ) : (
              <ol class="td-tasks">
                {state.tasks.map((entry) => (
                  <TaskCard
                    key={entry.task.task_id}
                    entry={entry}
                    expanded={expanded.has(entry.task.task_id)}
                    onToggle={() => toggle(entry.task.task_id)}
                    files={files ?? []}
                    onControl={(control) => void store.control(entry.task.task_id, control)}
                    onExport={() => void store.exportEvidence(entry.task.task_id)}
                  />
                ))}
              </ol>
            )}
          </section>
        </div>
      )}
      <p class="td-sr-only" role="status" aria-live="polite">
        {spoken}
      </p>
    </div>
    </TextContext.Provider>
  );
}
