/** Which of the conversation's files the summarize form offers: text the agent can read, newest first. */

/** A file of the conversation, as the artifacts API lists it (`artifact.list`). */
export interface ListedFile {
  readonly artifact: { readonly artifact_id: string; readonly name: string; readonly mime_type: string; readonly size: number };
  readonly created_at: string;
}

export interface PickableFile {
  readonly artifact_id: string;
  readonly name: string;
  readonly size: number;
  readonly created_at: string;
}

const TEXT_TYPES = new Set(["application/json", "application/xml", "application/x-yaml", "application/yaml", "application/markdown", "application/csv"]);

/** Text the agent can read: `text/*` and the common structured-text types. */
export const isTextFile = (mimeType: string): boolean => mimeType.startsWith("text/") || TEXT_TYPES.has(mimeType.split(";")[0]!.trim());

export function pickableFiles(listed: readonly ListedFile[]): PickableFile[] {
  return listed
    .filter((f) => isTextFile(f.artifact.mime_type))
    .map((f) => ({ artifact_id: f.artifact.artifact_id, name: f.artifact.name, size: f.artifact.size, created_at: f.created_at }))
    .sort((a, b) => (a.created_at === b.created_at ? 0 : a.created_at < b.created_at ? 1 : -1));
}

/** "12 KB", "840 bytes". */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? "byte" : "bytes"}`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
