/**
 * The files of a conversation in one place: everything shared in it — the agent's, the apps' on this
 * device, the person's other devices' — newest first, with who shared it and a Save button, however far
 * back in the history it was (`sdk.artifacts.list` reads the Runtime's index, not the timeline). Folded
 * away until opened; while open it follows new files as they arrive.
 */
import { useEffect, useState } from "preact/hooks";
import type { LineUpAppRuntimeSDK } from "@lineup/app-sdk";
import type { ArtifactInfo } from "@lineup/runtime";
import { formatBytes } from "../registry/format.js";
import { downloadArtifact, reasonOf, type ReadArtifact } from "./ArtifactPreview.js";
import { FileIcon } from "./RowView.js";
import { format, t } from "../../i18n/index.js";

interface Props {
  readonly sdk: LineUpAppRuntimeSDK;
  readonly conversation_id: string;
  /** Changes when the timeline shows another file: the list is read again (while open). */
  readonly seen: number;
  readonly read: ReadArtifact;
  /** An installed app's name for people; undefined when it is not installed. */
  readonly appName?: (appScope: string) => string | undefined;
}

type Listed = { readonly state: "closed" | "loading" } | { readonly state: "ready"; readonly files: readonly ArtifactInfo[]; readonly more: boolean } | { readonly state: "failed"; readonly reason: string };

/** How many files the list shows: the newest. One more is asked for, to know whether there are more. */
export const SHOWN_FILES = 200;

/** From the Runtime's list (oldest first, the newest `SHOWN_FILES + 1`): the files to show, newest first, and whether there are more. */
export function newestFiles(listed: readonly ArtifactInfo[]): { readonly files: readonly ArtifactInfo[]; readonly more: boolean } {
  return { files: listed.slice(-SHOWN_FILES).reverse(), more: listed.length > SHOWN_FILES };
}


/** Who shared a file, for its row: an app that is no longer installed (removed since) is named by its scope, and said so. */
export function sharedBy(file: ArtifactInfo, appName: (appScope: string) => string | undefined): string {
  if (file.origin === "agent") return t("files.fromAgent");
  if (file.origin === "device") return t("files.fromDevice");
  if (file.app_scope === undefined) return t("files.fromAnApp");
  return t("files.fromApp", { name: appName(file.app_scope) ?? t("files.notInstalled", { scope: file.app_scope }) });
}

const noNames = (): undefined => undefined;

export function ConversationFiles({ sdk, conversation_id, seen, read, appName = noNames }: Props) {
  const [open, setOpen] = useState(false);
  const [listed, setListed] = useState<Listed>({ state: "closed" });
  const [problem, setProblem] = useState<string | undefined>(undefined);

  useEffect(() => {
    setOpen(false);
    setListed({ state: "closed" });
  }, [conversation_id]);

  useEffect(() => {
    if (!open) return;
    let gone = false;
    setListed((l) => (l.state === "ready" ? l : { state: "loading" }));
    sdk.artifacts.list({ conversation_id, limit: SHOWN_FILES + 1 }).then(
      (files) => gone || setListed({ state: "ready", ...newestFiles(files) }),
      (error: unknown) => gone || setListed({ state: "failed", reason: reasonOf(error) }),
    );
    return () => {
      gone = true;
    };
  }, [sdk, conversation_id, open, seen]);

  const count = listed.state === "ready" ? ` (${listed.files.length}${listed.more ? "+" : ""})` : "";
  return (
    <details class="conversation-files" open={open} onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}>
      <summary>{t("files.title", { count })}</summary>
      {listed.state === "loading" ? (
        <p class="muted">{t("files.looking")}</p>
      ) : listed.state === "failed" ? (
        <p class="error-text" role="alert">
          {t("files.failed", { reason: listed.reason })}
        </p>
      ) : listed.state === "ready" && listed.files.length === 0 ? (
        <p class="muted">{t("files.none")}</p>
      ) : listed.state === "ready" ? (
        <ul class="files-list" aria-label={t("files.list")}>
          {listed.files.map((file) => (
            <li key={file.artifact.artifact_id} class="files-item" data-origin={file.origin}>
              <FileIcon mimeType={file.artifact.mime_type} />
              <span class="files-name">
                <strong translate={false}>{file.artifact.name}</strong>
                <span class="muted">
                  {" "}
                  · {formatBytes(file.artifact.size)} · {sharedBy(file, appName)} · {format().date(new Date(file.created_at))}
                </span>
              </span>
              <button
                type="button"
                class="link-button"
                aria-label={t("files.saveNamed", { name: file.artifact.name })}
                onClick={() => {
                  setProblem(undefined);
                  downloadArtifact(file.artifact, read).catch((error: unknown) => setProblem(t("files.couldNotSave", { name: file.artifact.name, reason: reasonOf(error) })));
                }}
              >
                {t("files.save")}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {listed.state === "ready" && listed.more ? <p class="muted">{t("files.newest", { count: SHOWN_FILES })}</p> : null}
      {problem === undefined ? null : (
        <p class="error-text" role="alert">
          {problem}
        </p>
      )}
    </details>
  );
}
