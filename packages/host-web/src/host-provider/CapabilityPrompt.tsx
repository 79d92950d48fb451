/**
 * The shell's capability dialog: a modal `<dialog>` (focus stays inside through `showModal`) showing
 * the head of the prompt queue — which app asks, what the capability does, the app's stated purpose
 * and the risk — with Allow / Don't allow. Escape closes it without a choice (refused, not remembered). "Go ahead" prompts (a picker needs a
 * user gesture) use the same dialog with their own button.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { PromptQueue, QueuedPrompt } from "./prompt-queue.js";
import "./capability-prompt.css";
import { t } from "../i18n/index.js";
import { capabilityDescription } from "../i18n/capabilities.js";
import { reasonText } from "../i18n/reasons.js";
import type { ElicitationForm } from "./ElicitationForm.js";
import { lazyModule, useLazyModule } from "../shell/lazy-module.js";

// An MCP server's question is rare: its form is a chunk of its own, fetched when the first one is asked.
const elicitationForm = lazyModule("question form", () => import("./ElicitationForm.js"));

/** The question's form once its chunk is here; if it cannot be fetched, the person is told and can only decline. */
function LazyElicitationForm(props: Parameters<typeof ElicitationForm>[0]) {
  const state = useLazyModule(elicitationForm);
  if (state.status === "loaded") return <state.module.ElicitationForm {...props} />;
  if (state.status === "loading") return null;
  return (
    <div class="capability-prompt-form">
      <h2 id="capability-prompt-title">{t("elicit.asks", { app: props.prompt.app_name })}</h2>
      <p id="capability-prompt-body" class="capability-prompt-body" role="alert">
        {t("elicit.unavailable", { reason: reasonText(state.error) })}
      </p>
      <div class="capability-prompt-actions">
        <button type="button" class="secondary" autofocus onClick={props.onDecline}>
          {t("elicit.decline")}
        </button>
      </div>
    </div>
  );
}


export function CapabilityPromptDialog({ queue }: { queue: PromptQueue }) {
  const [entry, setEntry] = useState<QueuedPrompt | undefined>(() => queue.current());
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    setEntry(queue.current());
    return queue.subscribe(setEntry);
  }, [queue]);
  useLayoutEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (entry !== undefined && !element.open) element.showModal();
    else if (entry === undefined && element.open) element.close();
  }, [entry]);

  const answer = (allowed: boolean) => {
    if (entry !== undefined) queue.answer(entry.id, allowed);
  };
  // Escape fires `cancel`: the dialog stays for the next prompt (if any); this one closes without a
  // choice — refused now, but not a decision to remember (only "Don't allow" is).
  const dismiss = () => {
    if (entry !== undefined && queue.current()?.id === entry.id) queue.dismiss(entry.id);
  };
  const onCancel = (event: Event) => {
    event.preventDefault();
    dismiss();
  };
  // Closed some other way (the browser may close it on a repeated Escape): the same. A `close` event comes a
  // task after the dialog closed: when the next prompt has opened it again by then, the event is the previous
  // prompt's, and dismisses nothing.
  const onClose = () => {
    if (dialog.current?.open !== true) dismiss();
  };

  return (
    <dialog ref={dialog} class="capability-prompt" aria-labelledby="capability-prompt-title" aria-describedby="capability-prompt-body" onCancel={onCancel} onClose={onClose} data-kind={entry?.kind}>
      {entry === undefined ? null : entry.kind === "confirm" ? (
        <div class="capability-prompt-form">
          <h2 id="capability-prompt-title">
            <span class="capability-prompt-app">{entry.prompt.app_name}</span>
            {t("prompt.wantsToUse")}
            <code>{entry.prompt.capability}</code>
          </h2>
          <div id="capability-prompt-body" class="capability-prompt-body">
            <p>{capabilityDescription(entry.prompt.capability, entry.prompt.description)}</p>
            <p class="capability-prompt-purpose">
              <span class="capability-prompt-label">{t("prompt.purpose")}</span>
              <span data-testid="capability-purpose" translate={false}>{entry.prompt.purpose}</span>
            </p>
            <p class={`capability-prompt-risk risk-${entry.prompt.risk}`}>{t(`risk.${entry.prompt.risk}`)}</p>
          </div>
          <div class="capability-prompt-actions">
            <button type="button" class="secondary" autofocus onClick={() => answer(false)}>
              {t("prompt.deny")}
            </button>
            <button type="button" class="primary" onClick={() => answer(true)}>
              {t("prompt.allow")}
            </button>
          </div>
        </div>
      ) : entry.kind === "elicit" ? (
        <LazyElicitationForm prompt={entry.prompt} onSubmit={(content) => queue.submit(entry.id, content)} onDecline={() => answer(false)} />
      ) : (
        <div class="capability-prompt-form">
          <h2 id="capability-prompt-title">{entry.prompt.title}</h2>
          <div id="capability-prompt-body" class="capability-prompt-body">
            <p>{entry.prompt.detail}</p>
          </div>
          <div class="capability-prompt-actions">
            <button type="button" class="secondary" onClick={() => answer(false)}>
              {t("common.cancel")}
            </button>
            <button type="button" class="primary" autofocus onClick={() => answer(true)}>
              {entry.prompt.action}
            </button>
          </div>
        </div>
      )}
    </dialog>
  );
}
