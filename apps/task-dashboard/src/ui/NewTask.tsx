/**
 * "Ask the agent": one form per task entry. Each sends its request once (its own idempotency key per
 * submission, so a second click while the first is on its way is the same task) and says why it could not.
 * The sandbox forbids form submission (no `allow-forms`), so a form is a labelled group whose button (or
 * Enter in a line, Ctrl+Enter in a text area) sends it.
 */
import { useState } from "preact/hooks";
import { inputProblemOf, taskRequest, type EntryInput, type PickedFile } from "../entries.js";
import type { PickableFile } from "../model/files.js";
import type { AgentTaskRequest } from "@lineup/protocol";
import { useText } from "./text.js";

export interface NewTaskProps {
  readonly files: readonly PickableFile[] | undefined;
  readonly filesProblem?: string | undefined;
  readonly onRefreshFiles: () => void;
  /** Starts the task; resolves once the Runtime took it. */
  readonly onStart: (request: AgentTaskRequest) => Promise<void>;
  readonly newKey: () => string;
}

/** The state of one form's submission. */
function useSubmission(props: NewTaskProps) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [key, setKey] = useState(props.newKey);
  const text = useText();
  const submit = async (input: EntryInput): Promise<boolean> => {
    const invalid = inputProblemOf(input);
    setProblem(invalid === undefined ? undefined : text.problem(invalid));
    if (invalid !== undefined) return false;
    setBusy(true);
    try {
      await props.onStart(taskRequest(input, key, text.titles));
      setKey(props.newKey());
      return true;
    } catch (error) {
      setProblem(text.couldNotAsk(text.reason(error)));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, problem, submit };
}

function Problem({ id, text }: { id: string; text: string | undefined }) {
  return text === undefined ? null : (
    <p id={id} class="td-problem" role="alert">
      {text}
    </p>
  );
}

/** Check boxes for the conversation's text files. */
export function FilePicker({ files, picked, onChange, legend }: { files: readonly PickableFile[]; picked: readonly PickedFile[]; onChange: (picked: PickedFile[]) => void; legend: string }) {
  const chosen = new Set(picked.map((f) => f.artifact_id));
  const text = useText();
  return (
    <fieldset class="td-files">
      <legend class="td-sr-only">{legend}</legend>
      <ul>
        {files.map((f) => (
          <li key={f.artifact_id}>
            <label>
              <input
                type="checkbox"
                checked={chosen.has(f.artifact_id)}
                onChange={(e) => {
                  const on = (e.currentTarget as HTMLInputElement).checked;
                  onChange(on ? [...picked, { artifact_id: f.artifact_id, name: f.name }] : picked.filter((p) => p.artifact_id !== f.artifact_id));
                }}
              />
              <span class="td-file-name">{f.name}</span>
              <span class="td-file-size">{text.size(f.size)}</span>
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

function SummarizeForm(props: NewTaskProps) {
  const { busy, problem, submit } = useSubmission(props);
  const [picked, setPicked] = useState<PickedFile[]>([]);
  const files = props.files;
  const text = useText();
  return (
    <div class="td-form" role="group" aria-labelledby="form-summarize">
      <h3 id="form-summarize">{text.entries.summarize_files.title}</h3>
      <p class="td-hint">{text.entries.summarize_files.hint}</p>
      {files === undefined ? (
        <p class="td-hint">{text.readingFiles}</p>
      ) : files.length === 0 ? (
        <p class="td-hint">{text.noFiles}</p>
      ) : (
        <FilePicker files={files} picked={picked} onChange={setPicked} legend={text.filesToSummarize} />
      )}
      <Problem id="summarize-problem" text={props.filesProblem ?? problem} />
      <div class="td-form-actions">
        <button type="button" class="td-button td-quiet" onClick={props.onRefreshFiles}>
          {text.refreshFiles}
        </button>
        <button type="button" class="td-button td-primary" disabled={busy || picked.length === 0} onClick={() => void submit({ entry: "summarize_files", files: picked }).then((ok) => ok && setPicked([]))}>
          {busy ? text.asking : text.summarize}
        </button>
      </div>
    </div>
  );
}

function TextForm(props: NewTaskProps & { readonly entry: "plan_week" | "write_note" }) {
  const { busy, problem, submit } = useSubmission(props);
  const [typed, setTyped] = useState("");
  const text = useText();
  const id = props.entry === "plan_week" ? "plan" : "note";
  const info = text.entries[props.entry];
  const send = () => {
    if (!busy) void submit({ entry: props.entry, text: typed }).then((ok) => ok && setTyped(""));
  };
  return (
    <div class="td-form" role="group" aria-labelledby={`form-${id}`}>
      <h3 id={`form-${id}`}>{info.title}</h3>
      <label class="td-label" for={`${id}-input`}>
        {props.entry === "plan_week" ? text.notes : text.topic}
      </label>
      {props.entry === "plan_week" ? (
        <textarea id={`${id}-input`} class="td-input" rows={5} value={typed} aria-describedby={`${id}-hint`} placeholder={text.notesPlaceholder} onInput={(e) => setTyped((e.currentTarget as HTMLTextAreaElement).value)} onKeyDown={(e) => e.key === "Enter" && (e.ctrlKey || e.metaKey) && send()} />
      ) : (
        <input id={`${id}-input`} class="td-input" type="text" value={typed} aria-describedby={`${id}-hint`} placeholder={text.topicPlaceholder} onInput={(e) => setTyped((e.currentTarget as HTMLInputElement).value)} onKeyDown={(e) => e.key === "Enter" && send()} />
      )}
      <p id={`${id}-hint`} class="td-hint">
        {info.hint}
      </p>
      <Problem id={`${id}-problem`} text={problem} />
      <div class="td-form-actions">
        <button type="button" class="td-button td-primary" disabled={busy} onClick={send}>
          {busy ? text.asking : props.entry === "plan_week" ? text.planTheWeek : text.writeTheNote}
        </button>
      </div>
    </div>
  );
}

export function NewTask(props: NewTaskProps) {
  const text = useText();
  return (
    <section class="td-new" aria-labelledby="new-heading">
      <h2 id="new-heading">{text.askTheAgent}</h2>
      <SummarizeForm {...props} />
      <TextForm {...props} entry="plan_week" />
      <TextForm {...props} entry="write_note" />
    </section>
  );
}
