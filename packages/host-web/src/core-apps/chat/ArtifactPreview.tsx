/**
 * An artifact of the conversation in the chat (spec 8.1: a trusted built-in renderer for the basic
 * preview): a picture is shown, a recording or a video plays, anything can be saved. The bytes come from
 * the Runtime (`sdk.artifacts.read`: what an app on this device made, or the conversation holds) and are
 * shown through a `blob:` URL of the host page — never a remote fetch, never inside an app's frame — and
 * released when the row goes.
 */
import { useEffect, useState } from "preact/hooks";
import { t } from "../../i18n/index.js";
import { reasonText } from "../../i18n/reasons.js";

/** What the chat previews inline; larger artifacts are offered to save only. */
export const PREVIEW_MAX_BYTES = 16 * 1024 * 1024;

export type PreviewKind = "image" | "audio" | "video";

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml"]);

/** How a media type is previewed, if at all (a picture the browser draws as an image, a sound, a video). */
export function previewKindOf(mimeType: string): PreviewKind | undefined {
  const type = mimeType.split(";")[0]!.trim().toLowerCase();
  if (IMAGE_TYPES.has(type)) return "image";
  if (type.startsWith("audio/")) return "audio";
  if (type.startsWith("video/")) return "video";
  return undefined;
}

/** Reads an artifact of the conversation: its bytes, or a refusal (`not_found` when this device has none). */
export type ReadArtifact = (artifactId: string, maxBytes: number) => Promise<{ readonly bytes: Uint8Array; readonly truncated: boolean }>;

export interface ArtifactPreviewProps {
  readonly artifact_id: string;
  readonly name: string;
  readonly mime_type: string;
  readonly size: number;
  readonly read: ReadArtifact;
}

type Loaded = { readonly state: "loading" } | { readonly state: "ready"; readonly url: string } | { readonly state: "unavailable"; readonly reason: string };

/**
 * Object URLs of the previews shown lately, by artifact. The chat's log is windowed: a row that scrolls
 * out and back in is mounted again, and must show at once, at the same height, without reading the bytes
 * again (a row whose height changed on every mount would keep the log re-measuring). The oldest URL is
 * released when the cache is full.
 */
const previewUrls = new Map<string, string>();
const PREVIEW_URLS = 64;

function rememberUrl(artifactId: string, url: string): void {
  previewUrls.set(artifactId, url);
  if (previewUrls.size <= PREVIEW_URLS) return;
  const [oldest, oldUrl] = previewUrls.entries().next().value!;
  previewUrls.delete(oldest);
  URL.revokeObjectURL(oldUrl);
}

/** The preview and the Save button of one artifact row. Its box has the same height loading or loaded. */
export function ArtifactPreview({ artifact_id, name, mime_type, size, read }: ArtifactPreviewProps) {
  const kind = size <= PREVIEW_MAX_BYTES ? previewKindOf(mime_type) : undefined;
  const cached = previewUrls.get(artifact_id);
  const [loaded, setLoaded] = useState<Loaded>(cached === undefined ? { state: "loading" } : { state: "ready", url: cached });

  useEffect(() => {
    if (kind === undefined || loaded.state !== "loading") return;
    let gone = false;
    read(artifact_id, PREVIEW_MAX_BYTES).then(
      ({ bytes, truncated }) => {
        if (truncated) return void (gone || setLoaded({ state: "unavailable", reason: t("preview.tooLarge") }));
        const url = previewUrls.get(artifact_id) ?? URL.createObjectURL(new Blob([bytes as BlobPart], { type: mime_type }));
        rememberUrl(artifact_id, url);
        if (!gone) setLoaded({ state: "ready", url });
      },
      (error: unknown) => {
        if (!gone) setLoaded({ state: "unavailable", reason: reasonOf(error) });
      },
    );
    return () => {
      gone = true;
    };
  }, [artifact_id, kind]);

  const [saving, setSaving] = useState<string | undefined>(undefined);
  const save = () => {
    setSaving(undefined);
    downloadArtifact({ artifact_id, name, mime_type, size }, read).catch((error: unknown) => setSaving(t("preview.couldNotSave", { reason: reasonOf(error) })));
  };

  return (
    <div class="artifact-body">
      {kind === undefined ? null : (
        <div class={`artifact-frame artifact-frame-${kind}`}>
          {loaded.state === "ready" ? (
            kind === "image" ? (
              <img class="artifact-image" src={loaded.url} alt={name} />
            ) : kind === "audio" ? (
              <audio class="artifact-audio" controls preload="metadata" src={loaded.url} aria-label={t("preview.play", { name })} />
            ) : (
              <video class="artifact-video" controls preload="metadata" src={loaded.url} aria-label={t("preview.play", { name })} />
            )
          ) : loaded.state === "unavailable" ? (
            <div class="muted artifact-unavailable">{t("preview.none", { reason: loaded.reason })}</div>
          ) : (
            <div class="muted artifact-unavailable">{t("preview.loading")}</div>
          )}
        </div>
      )}
      <button type="button" class="link-button artifact-save" onClick={save} aria-label={t("files.saveNamed", { name })}>
        Save
      </button>
      {saving === undefined ? null : (
        <span class="error-text" role="alert">
          {saving}
        </span>
      )}
    </div>
  );
}

/**
 * Hands an artifact to the browser as a download named after it: the preview's bytes when it has them,
 * else read now (the URL is released a minute later). Rejects with the read's refusal.
 */
export async function downloadArtifact(artifact: { readonly artifact_id: string; readonly name: string; readonly mime_type: string; readonly size: number }, read: ReadArtifact): Promise<void> {
  const download = (url: string) => {
    const link = document.createElement("a");
    link.href = url;
    link.download = artifact.name;
    link.rel = "noopener";
    link.click();
  };
  const shown = previewUrls.get(artifact.artifact_id);
  if (shown !== undefined) return download(shown);
  const { bytes } = await read(artifact.artifact_id, artifact.size);
  const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: artifact.mime_type }));
  download(url);
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Why an artifact cannot be shown or saved, in words. */
export function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "not_found") return t("preview.gone");
  if (code === "request_cancelled") return t("preview.offline");
  return reasonText(error);
}
