import { useRef, useState } from "preact/hooks";
import type { InteractionAnswer } from "@lineup/runtime";
import { confirmAnswer, describeOutput, type AppTaskCardState, type AppTaskRow, type Card, type CardAnswer } from "@lineup/app-sdk/chat";
import { t, type MessageKey } from "../../i18n/index.js";

export interface CardProps {
  readonly card: Card;
  readonly answer: CardAnswer | undefined;
  /** Dispatches the answer; resolves once the Runtime stored it. */
  readonly onAnswer: (response: InteractionAnswer) => Promise<void>;
}

/** The spec 8.1 primitives: choice, confirm and input cards, answered once, then shown as answered. */
export function InteractionCard(props: CardProps) {
  const { card, answer } = props;
  return (
    <section class={`card card-${card.kind}${answer === undefined ? "" : " card-answered"}`} aria-label={t(card.kind === "confirm" ? "card.confirmation" : card.kind === "choice" ? "card.choice" : "card.question", { prompt: card.prompt })}>
      <p class="card-prompt">{card.prompt}</p>
      {card.detail === undefined ? null : <p class="card-detail">{card.detail}</p>}
      {answer !== undefined ? (
        <p class="card-answer" data-outcome={answer.outcome}>
          <span class="muted">{t(answer.outcome === "stopped" ? "card.notAnswered" : "card.answered")}</span> {answer.summary}
        </p>
      ) : card.kind === "choice" ? (
        <ChoiceControls {...props} />
      ) : card.kind === "confirm" ? (
        <ConfirmControls {...props} />
      ) : (
        <InputControls {...props} />
      )}
    </section>
  );
}

function useBusy(onAnswer: CardProps["onAnswer"]) {
  const [busy, setBusy] = useState(false);
  const submit = async (response: InteractionAnswer) => {
    if (busy) return;
    setBusy(true);
    try {
      await onAnswer(response);
    } finally {
      setBusy(false);
    }
  };
  return { busy, submit };
}

/** A radio group with a roving tab stop: arrow keys move, Enter or Space picks (single) or toggles (multiple). */
function ChoiceControls({ card, onAnswer }: CardProps) {
  const { busy, submit } = useBusy(onAnswer);
  const [focus, setFocus] = useState(0);
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  const move = (to: number) => {
    const count = card.options.length;
    const next = (to + count) % count;
    setFocus(next);
    buttons.current[next]?.focus();
  };
  const choose = (id: string) => {
    if (card.multiple) {
      const next = new Set(picked);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      setPicked(next);
    } else {
      void submit({ outcome: "answered", choice_ids: [id] });
    }
  };
  const onKeyDown = (event: KeyboardEvent, index: number) => {
    if (event.key === "ArrowDown" || event.key === "ArrowRight") move(index + 1);
    else if (event.key === "ArrowUp" || event.key === "ArrowLeft") move(index - 1);
    else if (event.key === "Home") move(0);
    else if (event.key === "End") move(card.options.length - 1);
    else return;
    event.preventDefault();
  };
  return (
    <div class="card-controls">
      <div role={card.multiple ? "group" : "radiogroup"} aria-label={card.prompt} class="choice-list">
        {card.options.map((option, index) => (
          <button
            key={option.id}
            ref={(el) => {
              buttons.current[index] = el;
            }}
            type="button"
            role={card.multiple ? "checkbox" : "radio"}
            aria-checked={picked.has(option.id)}
            tabIndex={index === focus ? 0 : -1}
            class={picked.has(option.id) ? "choice picked" : "choice"}
            disabled={busy}
            onKeyDown={(e) => onKeyDown(e, index)}
            onFocus={() => setFocus(index)}
            onClick={() => choose(option.id)}
          >
            <span class="choice-label">{option.label}</span>
            {option.description === undefined ? null : <span class="choice-description">{option.description}</span>}
          </button>
        ))}
      </div>
      {card.multiple ? (
        <button type="button" class="primary" disabled={busy || picked.size === 0} onClick={() => void submit({ outcome: "answered", choice_ids: [...picked] })}>
          {t("card.sendChoice")}
        </button>
      ) : null}
    </div>
  );
}

function ConfirmControls({ card, onAnswer }: CardProps) {
  const { busy, submit } = useBusy(onAnswer);
  const approve = confirmAnswer(card, true);
  const reject = confirmAnswer(card, false);
  return (
    <div class="card-controls row">
      <button type="button" class="primary" disabled={busy} onClick={() => void submit(approve)}>
        {card.confirm_label}
      </button>
      <button type="button" class="secondary" disabled={busy} onClick={() => void submit(reject)}>
        {card.cancel_label}
      </button>
    </div>
  );
}

function InputControls({ card, onAnswer }: CardProps) {
  const { busy, submit } = useBusy(onAnswer);
  const [text, setText] = useState("");
  const send = () => {
    if (text.trim() !== "") void submit({ outcome: "answered", text });
  };
  const common = {
    value: text,
    "aria-label": card.prompt,
    placeholder: card.placeholder ?? t("card.yourAnswer"),
    disabled: busy,
    ...(card.max_length === undefined ? {} : { maxLength: card.max_length }),
    onInput: (e: Event) => setText((e.currentTarget as HTMLInputElement).value),
    onKeyDown: (e: KeyboardEvent) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        send();
      }
    },
  };
  return (
    <div class="card-controls row">
      {card.multiline ? <textarea rows={3} {...common} /> : <input type="text" {...common} />}
      <button type="button" class="primary" disabled={busy || text.trim() === ""} onClick={send}>
        {t("card.send")}
      </button>
      <button type="button" class="secondary" disabled={busy} onClick={() => void submit({ outcome: "cancelled" })}>
        {t("card.skip")}
      </button>
    </div>
  );
}

const TASK_STATE_TEXT: Record<AppTaskCardState, MessageKey> = {
  queued: "task.queued",
  working: "task.working",
  waiting_for_user: "task.waiting_for_user",
  done: "task.done",
  failed: "task.failed",
  stopped: "task.stopped",
};

/** The texts a done task's result shows: the result itself when it is text, else its top-level text fields. */
function resultTexts(row: AppTaskRow): string[] {
  const output = row.state === "done" ? row.output : undefined;
  if (typeof output === "string") return [output.trim()];
  if (typeof output !== "object" || output === null || Array.isArray(output)) return [];
  return Object.values(output).flatMap((value) => (typeof value === "string" && value.trim() !== "" ? [value.trim()] : []));
}

/** What an app's task decision reads as: who accepted it, or why it was rejected. */
export function decisionText(decision: NonNullable<AppTaskRow["decision"]>, appName: string): string {
  if (decision.decision === "accepted") return t("task.accepted", { app: appName });
  return decision.reason === undefined || decision.reason.trim() === "" ? t("task.rejectedBy", { app: appName }) : t("task.rejected", { reason: decision.reason });
}

/**
 * An app's agent task, one attempt of it: which app asked for what, the input, where it stands, what the agent
 * streamed, the result in a person's words once it is done, and what the app decided on it. Read-only: the app
 * that asked is where the person acts on it.
 */
export function AppTaskCard({ row, appName }: { row: AppTaskRow; appName: string }) {
  const asked = t("task.asked", { app: appName, title: row.title ?? row.entry });
  const running = row.state === "working" || row.state === "waiting_for_user";
  const status = row.state === "working" && row.progress !== undefined ? t("task.workingPercent", { percent: Math.round(row.progress * 100) }) : t(TASK_STATE_TEXT[row.state]);
  // Text the result already says (a note the agent streamed, then returned; a summary repeated as the turn's
  // text) is shown once, in the result.
  const said = resultTexts(row);
  const streamed = row.streamed !== undefined && !(row.state === "done" && said.some((text) => text.includes(row.streamed!.trim()))) ? row.streamed : undefined;
  const closing = row.result_text !== undefined && !said.includes(row.result_text.trim()) && row.result_text.trim() !== (row.streamed ?? "").trim() ? row.result_text : undefined;
  return (
    <section class={`task-card task-card-${row.state}`} aria-label={asked} aria-busy={running ? "true" : undefined}>
      <div class="task-head">
        <span class="task-card-title">{asked}</span>
        <span class="task-card-status" data-state={row.state}>
          {status}
        </span>
      </div>
      {row.attempt > 1 ? <p class="task-card-attempt muted">{t("task.attempt", { attempt: row.attempt })}</p> : null}
      {row.text === undefined || row.text.trim() === "" ? null : <p class="task-card-input">{row.text}</p>}
      {running && row.label !== undefined ? <p class="task-card-label muted">{row.label}</p> : null}
      {streamed === undefined ? null : <div class={`task-card-stream${running ? " task-card-streaming" : ""}`}>{streamed}</div>}
      {row.state === "done" && row.output !== undefined ? (
        <dl class="task-card-result" aria-label={t("task.result")}>
          {describeOutput(row.output).map((line, index) => (
            <div key={index} class="task-card-result-line">
              {line.label === undefined ? null : <dt>{line.label}</dt>}
              <dd>
                {line.value}
                {line.items === undefined ? null : (
                  <ul>
                    {line.items.map((item, i) => (
                      <li key={i}>{item}</li>
                    ))}
                  </ul>
                )}
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
      {row.state === "done" && closing !== undefined ? <p class="task-card-text">{closing}</p> : null}
      {row.state === "failed" ? <p class="task-card-error error-text">{row.error?.message ?? row.error?.code ?? t("task.couldNotDo")}</p> : null}
      {row.decision === undefined ? null : (
        <p class="task-card-decision" data-decision={row.decision.decision}>
          {decisionText(row.decision, appName)}
        </p>
      )}
    </section>
  );
}
