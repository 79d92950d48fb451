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

const time = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** Who shared a file, for its row: an app that is no longer installed (removed since) is named by its scope, and said so. */
export function sharedBy(file: ArtifactInfo, appName: (appScope: string) => string | undefined): string {
  if (file.origin === "agent") return "from the agent";
  if (file.origin === "device") return "from another of your devices";
  if (file.app_scope === undefined) return "from an app";
  return `from ${appName(file.app_scope) ?? `${file.app_scope} (not installed)`}`;
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
      <summary>Files{count}</summary>
      {listed.state === "loading" ? (
        <p class="muted">Looking for files…</p>
      ) : listed.state === "failed" ? (
        <p class="error-text" role="alert">
          Could not list the files: {listed.reason}
        </p>
      ) : listed.state === "ready" && listed.files.length === 0 ? (
        <p class="muted">No files in this conversation yet.</p>
      ) : listed.state === "ready" ? (
        <ul class="files-list" aria-label="Files in this conversation">
          {listed.files.map((file) => (
            <li key={file.artifact.artifact_id} class="files-item" data-origin={file.origin}>
              <FileIcon mimeType={file.artifact.mime_type} />
              <span class="files-name">
                <strong>{file.artifact.name}</strong>
                <span class="muted">
                  {" "}
                  · {formatBytes(file.artifact.size)} · {sharedBy(file, appName)} · {time.format(new Date(file.created_at))}
                </span>
              </span>
              <button
                type="button"
                class="link-button"
                aria-label={`Save ${file.artifact.name}`}
                onClick={() => {
                  setProblem(undefined);
                  downloadArtifact(file.artifact, read).catch((error: unknown) => setProblem(`Could not save ${file.artifact.name}: ${reasonOf(error)}`));
                }}
              >
                Save
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {listed.state === "ready" && listed.more ? <p class="muted">The newest {SHOWN_FILES} are shown.</p> : null}
      {problem === undefined ? null : (
        <p class="error-text" role="alert">
          {problem}
        </p>
      )}
    </details>
  );
}
