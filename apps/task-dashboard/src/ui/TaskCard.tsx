/**
 * One task: its header (title, what it is, when, its status) toggles the details — progress, the text
 * the agent streams, the tools it calls, blocks and errors, earlier attempts, the result — and the
 * controls the task's status allows: Cancel, Retry, Edit & resubmit, Accept, Reject (with a reason), and
 * Export evidence once it has ended.
 */
import { useState } from "preact/hooks";
import type { AgentTaskControl } from "@lineup/protocol";
import { inputOf, inputProblemOf, isEntryId, taskInput, type EntryInput } from "../entries.js";
import { allowedControls, canExportEvidence, type TaskControlName } from "../model/controls.js";
import type { PickableFile } from "../model/files.js";
import { resultView } from "../model/results.js";
import { attemptLine, currentAttempt, tellsMore } from "../model/task-view.js";
import type { TaskEntry } from "../task-store.js";
import { FilePicker } from "./NewTask.js";
import { ResultBody } from "./ResultBody.js";
import { statusIn, useText, type DashboardText } from "./text.js";

export interface TaskCardProps {
  readonly entry: TaskEntry;
  readonly expanded: boolean;
  readonly onToggle: () => void;
  readonly files: readonly PickableFile[];
  readonly onControl: (control: AgentTaskControl) => void;
  readonly onExport: () => void;
}

const timeOf = (iso: string, locale: string): string => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleTimeString(locale, { hour: "numeric", minute: "2-digit" });
};

/** Why the attempt was stopped, when the Runtime said more than that it was cancelled. */
function stoppedText(text: DashboardText, reason: string | undefined, wroteSomething: boolean): string {
  return text.stopped(tellsMore("cancelled", reason) ? reason : undefined, wroteSomething);
}

function Editor({ entry, files, onResubmit, onClose }: { entry: EntryInput; files: readonly PickableFile[]; onResubmit: (input: EntryInput) => void; onClose: () => void }) {
  const [input, setInput] = useState<EntryInput>(entry);
  const text = useText();
  const invalid = inputProblemOf(input);
  const problem = invalid === undefined ? undefined : text.problem(invalid);
  const known = new Set(files.map((f) => f.artifact_id));
  // Files the task had that the conversation no longer lists stay pickable.
  const offered = input.entry === "summarize_files" ? [...files, ...input.files.filter((f) => !known.has(f.artifact_id)).map((f) => ({ ...f, size: 0, created_at: "" }))] : [];
  return (
    // A group, not a form: the sandbox forbids form submission.
    <div class="td-editor" role="group" aria-label={text.editAndResubmit}>
      {input.entry === "summarize_files" ? (
        <FilePicker files={offered} picked={input.files} onChange={(picked) => setInput({ entry: "summarize_files", files: picked })} legend={text.filesToSummarize} />
      ) : (
        <label class="td-label">
          {input.entry === "plan_week" ? text.notes : text.topic}
          <textarea class="td-input" rows={input.entry === "plan_week" ? 5 : 2} value={input.text} onInput={(e) => setInput({ entry: input.entry, text: (e.currentTarget as HTMLTextAreaElement).value })} />
        </label>
      )}
      {problem !== undefined && <p class="td-hint">{problem}</p>}
      <div class="td-form-actions">
        <button type="button" class="td-button td-quiet" onClick={onClose}>
          {text.keepAsItWas}
        </button>
        <button type="button" class="td-button td-primary" disabled={problem !== undefined} onClick={() => onResubmit(input)}>
          {text.resubmit}
        </button>
      </div>
    </div>
  );
}

export function TaskCard({ entry, expanded, onToggle, files, onControl, onExport }: TaskCardProps) {
  const { task, view } = entry;
  const [reason, setReason] = useState("");
  const [editing, setEditing] = useState(false);
  const text = useText();
  const allowed = allowedControls(task);
  const attempt = currentAttempt(view, task.attempt);
  const result = task.result === undefined ? undefined : resultView(task.entry, task.result.output);
  const entryTitle = isEntryId(task.entry) ? text.entries[task.entry].title : task.entry;
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
          <span class={`td-badge td-badge-${task.status}`}>{statusIn(text, task)}</span>
          <span class="td-task-meta">
            {entryTitle} · {timeOf(task.created_at, text.locale)}
            {task.attempt > 1 ? text.attempt(task.attempt) : ""}
            {!expanded && result !== undefined ? ` · ${text.headline(result)}` : ""}
          </span>
        </button>
      </h3>
      {expanded && (
        <div id={bodyId} class="td-task-body">
          {attempt.progress !== undefined && task.status === "running" && (
            <div class="td-progress">
              {attempt.progress.value !== undefined && <progress max={1} value={attempt.progress.value} aria-label={text.progress} />}
              {attempt.progress.label !== undefined && <span>{attempt.progress.label}</span>}
            </div>
          )}
          {task.status === "queued" && <p class="td-hint">{text.queued}</p>}
          {streamed && (
            <section class="td-stream" aria-label={text.whatTheAgentWrote}>
              <p>
                {attempt.text}
                {task.status === "running" && <span class="td-caret" aria-hidden="true" />}
              </p>
            </section>
          )}
          {attempt.toolCalls.length > 0 && (
            <ul class="td-tools" aria-label={text.toolsUsed}>
              {attempt.toolCalls.map((c) => (
                <li key={c.call_id} data-outcome={c.outcome ?? "running"}>
                  <code>{c.method}</code> {text.toolOutcome(c.outcome, c.code)}
                </li>
              ))}
            </ul>
          )}
          {attempt.knowledge > 0 && <p class="td-hint">{text.references(attempt.knowledge)}</p>}
          {attempt.artifacts.length > 0 && <p class="td-hint">{text.filesSoFar(attempt.artifacts.map((a) => a.name).join(", "))}</p>}
          {attempt.actions.map((a) => (
            <p key={a.action_id} class="td-notice">
              {text.agentAsks(a.prompt)}
            </p>
          ))}
          {attempt.blocked.map((b, i) => (
            <p key={`b${i}`} class="td-notice">
              {text.blocked(b.message, b.code)}
            </p>
          ))}
          {task.status === "failed" && (
            <p class="td-error">
              {task.error === undefined ? text.couldNotFinish : `${task.error.message} (${task.error.code})`}
            </p>
          )}
          {task.status === "cancelled" && <p class="td-hint">{stoppedText(text, attempt.reason, attempt.text.length > 0)}</p>}
          {result !== undefined && (
            <section class="td-result" aria-label={text.result}>
              <ResultBody view={result} />
            </section>
          )}
          {task.decision !== undefined && (
            <p class={`td-decision td-decision-${task.decision.decision}`}>
              {task.decision.decision === "accepted" ? text.accepted : text.rejected(task.decision.reason)}
            </p>
          )}
          {earlier.length > 0 && (
            <ul class="td-attempts" aria-label={text.earlierAttempts}>
              {earlier.map((a) => (
                <li key={a.attempt}>{attemptLine(a, (status) => text.status[status], text.attemptLine)}</li>
              ))}
            </ul>
          )}
          {allowed.has("reject") && (
            <label class="td-label td-reason">
              {text.rejectReason}
              <input class="td-input" type="text" value={reason} maxLength={2000} onInput={(e) => setReason((e.currentTarget as HTMLInputElement).value)} />
            </label>
          )}
          {/* An accepted result is done: no control is left to offer. */}
          {allowed.size > 0 && (
            <div class="td-controls" role="group" aria-label={text.taskControls}>
              {(["cancel", "retry", "resubmit", "accept", "reject"] as const).map((op) => (
                <button type="button" key={op} class={`td-button${op === "accept" ? " td-primary" : op === "reject" || op === "cancel" ? " td-danger" : ""}`} disabled={busy || !allowed.has(op) || (op === "resubmit" && editing)} onClick={() => control(op)}>
                  {entry.pending === op ? text.pending[op] : text.controls[op]}
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
              {entry.pending === "export" ? text.pending.export : text.exportEvidence}
            </button>
            {entry.evidence !== undefined && (
              <p class="td-digest" title={entry.evidence.artifact.name}>
                {text.evidenceSaved(entry.evidence.through_seq)}
                <br />
                {text.digest} <code>{entry.evidence.pack_digest}</code>
              </p>
            )}
          </div>
          {entry.problem !== undefined && (
            <p class="td-problem" role="alert">
              {text.storeProblem(entry.problem)}
            </p>
          )}
        </div>
      )}
    </li>
  );
}
