import type { InteractionAnswer } from "@lineup/runtime";
import { AppTaskCard, InteractionCard } from "./Cards.js";
import type { EchoEntry } from "./local-echo.js";
import type * as Markdown from "./markdown.js";
import type { TimelineRow } from "@lineup/app-sdk/chat";
import { ToolResultCard } from "../../apps-host/ResultCard.js";
import { McpViewRow } from "../../apps-host/McpViewRow.js";
import { formatBytes } from "../registry/format.js";
import { ArtifactPreview, type ReadArtifact } from "./ArtifactPreview.js";
import { t, type MessageKey } from "../../i18n/index.js";
import { lazyModule, useLazyModule } from "../../shell/lazy-module.js";

/** A timeline row or a local echo of a message being sent. */
export type ChatItem = TimelineRow | ({ readonly kind: "echo"; readonly key: string } & EchoEntry);

type MarkdownRenderer = typeof Markdown;
// markdown-it and DOMPurify are a chunk of their own, fetched when the first Markdown message is shown.
const markdownRenderer = lazyModule<MarkdownRenderer>("Markdown renderer", () => import("./markdown.js"));

// Rendered Markdown per row key: a windowed list re-renders rows as they scroll into view. A draft the
// agent is still writing keeps its key while its text grows, so the text is part of the entry.
const markdownCache = new Map<string, { readonly text: string; readonly html: string }>();
function markdownFor(renderer: MarkdownRenderer, key: string, text: string): string {
  const cached = markdownCache.get(key);
  if (cached !== undefined && cached.text === text) return cached.html;
  const html = renderer.renderMarkdown(text);
  if (markdownCache.size > 5_000) markdownCache.clear();
  markdownCache.set(key, { text, html });
  return html;
}

export interface RowHandlers {
  readonly onAnswer: (messageId: string, response: InteractionAnswer) => Promise<void>;
  readonly onRetry: (localId: string) => void;
  /** The bytes of an artifact of this conversation, for its preview and Save. */
  readonly readArtifact: ReadArtifact;
  /** An installed app's name for people; undefined when it is not installed (the card then names its scope). */
  readonly appName?: (appScope: string) => string | undefined;
}

function ProgressBar({ value, label }: { value: number | undefined; label: string }) {
  return value === undefined ? (
    <div class="progress progress-indeterminate" role="progressbar" aria-label={label} />
  ) : (
    <div class="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(value * 100)}>
      <div class="progress-fill" style={{ width: `${Math.round(value * 100)}%` }} />
    </div>
  );
}

const TOOL_PHASE: Record<string, MessageKey> = { received: "row.requested", running: "row.running", succeeded: "row.done", failed: "row.failed" };

const phaseText = (phase: string): string => {
  const key = TOOL_PHASE[phase];
  return key === undefined ? phase : t(key);
};

/**
 * An agent's Markdown as sanitised HTML. Until the renderer's chunk has arrived (the first such message
 * of the page) the same text shows as plain text, escaped like any text node, and is rendered when it
 * arrives; if the chunk cannot be fetched the text stays plain and the next row shown tries again.
 */
function MarkdownText({ rowKey, text }: { rowKey: string; text: string }) {
  const renderer = useLazyModule(markdownRenderer);
  if (renderer.status !== "loaded") return <div class="plain" data-markdown={renderer.status}>{text}</div>;
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: markdownFor(renderer.module, rowKey, text) }} />;
}

export function RowView({ item, handlers }: { item: ChatItem; handlers: RowHandlers }) {
  switch (item.kind) {
    case "message":
      // A draft (text the agent streams) is rendered as Markdown while it grows, through the same
      // sanitizer, so the final message that replaces it does not reflow the bubble; an unclosed `**`
      // shows as typed until its pair arrives.
      return (
        <div
          class={`bubble-row from-${item.from}`}
          data-kind="message"
          data-from={item.from}
          {...(item.streaming === true ? { "data-streaming": "true" } : {})}
          {...(item.cut_short === true ? { "data-cut-short": "true" } : {})}
        >
          <div class={`bubble${item.streaming === true ? " bubble-streaming" : ""}`} aria-busy={item.streaming === true ? "true" : undefined}>
            {item.format === "markdown" && item.from !== "user" ? (
              <MarkdownText rowKey={item.key} text={item.text} />
            ) : (
              <div class="plain">{item.text}</div>
            )}
            {item.streaming === true ? (
              <div class="streaming-indicator" title={t("row.stillWriting")}>
                <span aria-hidden="true" />
                <span aria-hidden="true" />
                <span aria-hidden="true" />
                <span class="sr-only">{t("row.stillWriting")}</span>
              </div>
            ) : null}
            {item.cut_short === true ? <div class="cut-short muted">{t("row.cutShort")}</div> : null}
          </div>
        </div>
      );
    case "echo":
      return (
        <div class="bubble-row from-user" data-kind="echo" data-status={item.status}>
          <div class={`bubble echo echo-${item.status}`}>
            <div class="plain">{item.text}</div>
            <div class="echo-status">
              {item.status === "failed" ? (
                <>
                  <span role="alert">{t("row.notSent", { error: item.error ?? "" })}</span>{" "}
                  <button type="button" class="link-button" onClick={() => handlers.onRetry(item.local_id)}>
                    {t("row.retry")}
                  </button>
                </>
              ) : item.status === "sending" ? (
                t("row.sending")
              ) : (
                t("row.queued")
              )}
            </div>
          </div>
        </div>
      );
    case "card":
      return (
        <div class="bubble-row from-agent" data-kind="card" data-card={item.card.kind} data-answered={item.answer !== undefined}>
          <InteractionCard card={item.card} answer={item.answer} onAnswer={(response) => handlers.onAnswer(item.message_id, response)} />
        </div>
      );
    case "task":
      return (
        <div class="bubble-row from-agent" data-kind="task" data-state={item.state}>
          <div class="task">
            <div class="task-head">
              <span>{item.title}</span>
              <span class="muted">{item.state === "running" ? (item.progress === undefined ? t("row.working") : `${Math.round(item.progress * 100)}%`) : item.state}</span>
            </div>
            {item.state === "running" ? <ProgressBar value={item.progress} label={item.title} /> : null}
            {item.detail === undefined ? null : <div class="muted">{item.detail}</div>}
          </div>
        </div>
      );
    case "app_task":
      return (
        <div class="bubble-row from-agent" data-kind="app-task" data-state={item.state} data-task-id={item.task_id} data-attempt={item.attempt}>
          <AppTaskCard row={item} appName={handlers.appName?.(item.app_scope) ?? item.app_scope} />
        </div>
      );
    case "tool": {
      // The person ended it (closed the app, declined): not a failure to them.
      const cancelled = item.phase === "failed" && item.code === "cancelled_by_user";
      return (
        <div class="bubble-row from-agent" data-kind="tool" data-phase={item.phase}>
          {/* An interrupted operation succeeded as a call but did not run its course: no success colour. */}
          <div class={`tool tool-${item.interrupted === undefined && !cancelled ? item.phase : "stopped"}`}>
            <div class="task-head">
              {(item.title ?? item.tool_title) !== undefined ? (
                <span title={t("row.toolCallIn", { app: handlers.appName?.(item.app_scope) ?? item.app_scope })}>{item.title ?? item.tool_title}</span>
              ) : (
                <span>
                  {t("row.toolCall")}
                  <code>{item.app_scope}</code>
                </span>
              )}
              <span class="muted">{item.interrupted !== undefined ? t("row.stopped") : cancelled ? t("row.cancelled") : phaseText(item.phase)}</span>
            </div>
            {item.phase === "running" || item.phase === "received" ? <ProgressBar value={item.progress} label={item.title ?? item.tool_title ?? t("row.toolCallIn", { app: handlers.appName?.(item.app_scope) ?? item.app_scope })} /> : null}
            {item.message !== undefined ? <div class="muted">{item.message}</div> : item.detail !== undefined && (item.phase === "running" || item.phase === "received") ? <div class="muted">{item.detail}</div> : null}
            {item.code === undefined || item.phase !== "failed" || cancelled ? null : <div class="error-text">{item.code}</div>}
            {item.interrupted?.reason === undefined ? null : <div class="muted">{item.interrupted.reason}</div>}
            {item.phase === "succeeded" ? <ToolResultCard callId={item.call_id} /> : null}
            <McpViewRow callId={item.call_id} phase={item.phase} appName={handlers.appName?.(item.app_scope) ?? item.app_scope} />
          </div>
        </div>
      );
    }
    case "artifact":
      return (
        <div class="bubble-row from-agent" data-kind="artifact">
          <div class="artifact-chip" role="group" aria-label={t("files.fileNamed", { name: item.name })}>
            <FileIcon mimeType={item.mime_type} />
            <span>
              <strong>{item.name}</strong>
              <span class="muted">
                {" "}
                · {item.mime_type} · {formatBytes(item.size)}
              </span>
              {item.caption === undefined ? null : <div class="muted">{item.caption}</div>}
              <ArtifactPreview artifact_id={item.artifact_id} name={item.name} mime_type={item.mime_type} size={item.size} read={handlers.readArtifact} />
            </span>
          </div>
        </div>
      );
    case "notice":
      return (
        <div class={`notice notice-${item.level}`} data-kind="notice" role={item.level === "error" ? "alert" : undefined}>
          {item.text}
        </div>
      );
  }
}

/** A file's kind at a glance (picture, sound, other), drawn inline: no emoji font is needed. */
export function FileIcon({ mimeType }: { mimeType: string }) {
  const kind = mimeType.startsWith("image/") ? "image" : mimeType.startsWith("audio/") ? "audio" : "file";
  return (
    <svg class="artifact-icon" data-kind={kind} viewBox="0 0 20 20" width="20" height="20" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round" stroke-linecap="round">
      {kind === "image" ? (
        <>
          <rect x="2.5" y="3.5" width="15" height="13" rx="2" />
          <path d="M4.5 14.5l4-4.5 3 3 2-2 2.5 3.5" />
          <circle cx="13" cy="7.5" r="1.3" />
        </>
      ) : kind === "audio" ? (
        <path d="M3 10h1.5M6 7v6M9 4.5v11M12 7.5v5M15 6v8M17.5 10H17" />
      ) : (
        <>
          <path d="M5 2.5h6.5l3.5 3.5v11.5H5z" />
          <path d="M11.5 2.5V6H15" />
        </>
      )}
    </svg>
  );
}
