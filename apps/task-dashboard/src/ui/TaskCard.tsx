/**
 * One task: its header (title, what it is, when, its status) toggles the details — progress, the text
 * the agent streams, the tools it calls, blocks and errors, earlier attempts, the result — and the
 * controls the task's status allows: Cancel, Retry, Edit & resubmit, Accept, Reject (with a reason), and
 * Export evidence once it has ended.
 */
import { useState } from "preact/hooks";
import type { AgentTaskControl } from "@lineup/protocol";
import { ENTRIES, inputOf, inputProblem, isEntryId, taskInput, type EntryInput } from "../entries.js";
import { allowedControls, canExportEvidence, STATUS_LABELS, statusText, type TaskControlName } from "../model/controls.js";
import type { PickableFile } from "../model/files.js";
import { resultHeadline, resultView } from "../model/results.js";
import { attemptLine, currentAttempt, tellsMore } from "../model/task-view.js";
import type { TaskEntry } from "../task-store.js";
import { FilePicker } from "./NewTask.js";
import { ResultBody } from "./ResultBody.js";

export interface TaskCardProps {
  readonly entry: TaskEntry;
  readonly expanded: boolean;
  readonly onToggle: () => void;
  readonly files: readonly PickableFile[];
  readonly onControl: (control: AgentTaskControl) => void;
  readonly onExport: () => void;
}

const CONTROL_LABELS: Readonly<Record<TaskControlName, string>> = { cancel: "Cancel", retry: "Retry", resubmit: "Edit & resubmit", accept: "Accept", reject: "Reject" };
const PENDING_LABELS: Readonly<Record<TaskControlName | "export", string>> = {
  cancel: "Cancelling…",
  retry: "Starting again…",
  resubmit: "Resubmitting…",
  accept: "Accepting…",
  reject: "Rejecting…",
  export: "Exporting…",
};

const timeOf = (iso: string): string => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleTimeString([], { hour: "numeric", minute: "2-digit" });
};

/** Why the attempt was stopped, when the Runtime said more than that it was cancelled. */
function stoppedText(reason: string | undefined, wroteSomething: boolean): string {
  const why = tellsMore("cancelled", reason) ? ` (${reason})` : "";
  return `Stopped before the agent finished${why}.${wroteSomething ? " What it had written stays above." : ""}`;
}

function Editor({ entry, files, onResubmit, onClose }: { entry: EntryInput; files: readonly PickableFile[]; onResubmit: (input: EntryInput) => void; onClose: () => void }) {
  const [input, setInput] = useState<EntryInput>(entry);
  const problem = inputProblem(input);
  const known = new Set(files.map((f) => f.artifact_id));
  // Files the task had that the conversation no longer lists stay pickable.
  const offered = input.entry === "summarize_files" ? [...files, ...input.files.filter((f) => !known.has(f.artifact_id)).map((f) => ({ ...f, size: 0, created_at: "" }))] : [];
  return (
    // A group, not a form: the sandbox forbids form submission.
    <div class="td-editor" role="group" aria-label="Edit and resubmit">
      {input.entry === "summarize_files" ? (
        <FilePicker files={offered} picked={input.files} onChange={(picked) => setInput({ entry: "summarize_files", files: picked })} legend="Files to summarize" />
      ) : (
        <label class="td-label">
          {input.entry === "plan_week" ? "Notes" : "Topic"}
          <textarea class="td-input" rows={input.entry === "plan_week" ? 5 : 2} value={input.text} onInput={(e) => setInput({ entry: input.entry, text: (e.currentTarget as HTMLTextAreaElement).value })} />
        </label>
      )}
      {problem !== undefined && <p class="td-hint">{problem}</p>}
      <div class="td-form-actions">
        <button type="button" class="td-button td-quiet" onClick={onClose}>
          Keep as it was
        </button>
        <button type="button" class="td-button td-primary" disabled={problem !== undefined} onClick={() => onResubmit(input)}>
          Resubmit
        </button>
      </div>
    </div>
  );
}

export function TaskCard({ entry, expanded, onToggle, files, onControl, onExport }: TaskCardProps) {
  const { task, view } = entry;
  const [reason, setReason] = useState("");
  const [editing, setEditing] = useState(false);
  const allowed = allowedControls(task);
  const attempt = currentAttempt(view, task.attempt);
  const result = task.result === undefined ? undefined : resultView(task.entry, task.result.output);
  const entryTitle = isEntryId(task.entry) ? ENTRIES[task.entry].title : task.entry;
  const bodyId = `task-${task.task_id}`;
  const busy = entry.pending !== undefined;
  const earlier = view.attempts.filter((a) => a.attempt < task.attempt);
  const names = new Map(files.map((f) => [f.artifact_id, f.name]));
  // The streamed text is the result's draft: shown while it comes, and kept when the attempt ends without one.
  const streamed = attempt.text.length > 0 && (task.status !== "completed" || result === undefined || result.kind === "json");
  const control = (op: TaskControlName) => {
    if (op === "resubmit") {
      setEditing(true);
      return;
    }
    const request: AgentTaskControl = op === "reject" ? { op, ...(reason.trim() === "" ? {} : { reason: reason.trim() }) } : op === "cancel" ? { op, reason: "cancelled from the task dashboard" } : { op };
    onControl(request);
    if (op === "reject") setReason("");
  };

  return (
    <li class="td-task" data-status={task.status} data-entry={task.entry} data-task={task.task_id}>
      <h3 class="td-task-head">
        <button type="button" class="td-task-toggle" aria-expanded={expanded} aria-controls={bodyId} onClick={onToggle}>
          <span class="td-task-title">{task.title ?? entryTitle}</span>
          <span class={`td-badge td-badge-${task.status}`}>{statusText(task)}</span>
          <span class="td-task-meta">
            {entryTitle} · {timeOf(task.created_at)}
            {task.attempt > 1 ? ` · attempt ${task.attempt}` : ""}
            {!expanded && result !== undefined ? ` · ${resultHeadline(result)}` : ""}
          </span>
        </button>
      </h3>
      {expanded && (
        <div id={bodyId} class="td-task-body">
          {attempt.progress !== undefined && task.status === "running" && (
            <div class="td-progress">
              {attempt.progress.value !== undefined && <progress max={1} value={attempt.progress.value} aria-label="Progress" />}
              {attempt.progress.label !== undefined && <span>{attempt.progress.label}</span>}
            </div>
          )}
          {task.status === "queued" && <p class="td-hint">Waiting for the agent: it works on one thing at a time in this conversation.</p>}
          {streamed && (
            <section class="td-stream" aria-label="What the agent wrote">
              <p>
                {attempt.text}
                {task.status === "running" && <span class="td-caret" aria-hidden="true" />}
              </p>
            </section>
          )}
          {attempt.toolCalls.length > 0 && (
            <ul class="td-tools" aria-label="Tools the agent used">
              {attempt.toolCalls.map((c) => (
                <li key={c.call_id} data-outcome={c.outcome ?? "running"}>
                  <code>{c.method}</code> {c.outcome === undefined ? "running" : c.outcome === "result" ? "done" : `failed${c.code === undefined ? "" : ` (${c.code})`}`}
                </li>
              ))}
            </ul>
          )}
          {attempt.knowledge > 0 && <p class="td-hint">The agent used {attempt.knowledge === 1 ? "1 reference" : `${attempt.knowledge} references`}.</p>}
          {attempt.artifacts.length > 0 && <p class="td-hint">Files so far: {attempt.artifacts.map((a) => a.name).join(", ")}</p>}
          {attempt.actions.map((a) => (
            <p key={a.action_id} class="td-notice">
              The agent asks: {a.prompt} — answer in the chat.
            </p>
          ))}
          {attempt.blocked.map((b, i) => (
            <p key={`b${i}`} class="td-notice">
              Blocked: {b.message} ({b.code})
            </p>
          ))}
          {task.status === "failed" && (
            <p class="td-error">
              {task.error === undefined ? "The agent could not finish this task." : `${task.error.message} (${task.error.code})`}
            </p>
          )}
          {task.status === "cancelled" && <p class="td-hint">{stoppedText(attempt.reason, attempt.text.length > 0)}</p>}
          {result !== undefined && (
            <section class="td-result" aria-label="Result">
              <ResultBody view={result} />
            </section>
          )}
          {task.decision !== undefined && (
            <p class={`td-decision td-decision-${task.decision.decision}`}>
              {task.decision.decision === "accepted" ? "You accepted this result." : `You rejected this result${task.decision.reason === undefined ? "." : `: ${task.decision.reason}`}`}
            </p>
          )}
          {earlier.length > 0 && (
            <ul class="td-attempts" aria-label="Earlier attempts">
              {earlier.map((a) => (
                <li key={a.attempt}>{attemptLine(a, (s) => STATUS_LABELS[s])}</li>
              ))}
            </ul>
          )}
          {allowed.has("reject") && (
            <label class="td-label td-reason">
              Reason for rejecting (the agent is told)
              <input class="td-input" type="text" value={reason} maxLength={2000} onInput={(e) => setReason((e.currentTarget as HTMLInputElement).value)} />
            </label>
          )}
          {/* An accepted result is done: no control is left to offer. */}
          {allowed.size > 0 && (
            <div class="td-controls" role="group" aria-label="Task controls">
              {(["cancel", "retry", "resubmit", "accept", "reject"] as const).map((op) => (
                <button type="button" key={op} class={`td-button${op === "accept" ? " td-primary" : op === "reject" || op === "cancel" ? " td-danger" : ""}`} disabled={busy || !allowed.has(op) || (op === "resubmit" && editing)} onClick={() => control(op)}>
                  {entry.pending === op ? PENDING_LABELS[op] : CONTROL_LABELS[op]}
                </button>
              ))}
            </div>
          )}
          {editing && (
            <Editor
              entry={inputOf(isEntryId(task.entry) ? task.entry : "write_note", task.request.input, names)}
              files={files}
              onClose={() => setEditing(false)}
              onResubmit={(input) => {
                setEditing(false);
                onControl({ op: "resubmit", input: taskInput(input) });
              }}
            />
          )}
          <div class="td-evidence">
            <button type="button" class="td-button td-quiet" disabled={busy || !canExportEvidence(task)} onClick={onExport}>
              {entry.pending === "export" ? PENDING_LABELS.export : "Export evidence"}
            </button>
            {entry.evidence !== undefined && (
              <p class="td-digest" title={entry.evidence.artifact.name}>
                Evidence pack of events 1–{entry.evidence.through_seq}, saved to this conversation’s files.
                <br />
                Digest <code>{entry.evidence.pack_digest}</code>
              </p>
            )}
          </div>
          {entry.problem !== undefined && (
            <p class="td-problem" role="alert">
              {entry.problem}
            </p>
          )}
        </div>
      )}
    </li>
  );
}
