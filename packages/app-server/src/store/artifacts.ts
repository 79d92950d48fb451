/**
 * Artifacts: an upload collects chunks until `size` bytes arrived; completing it joins the chunks
 * into one content blob. Reads are byte ranges of complete artifacts.
 */
import type { ArtifactRef, Provenance } from "@lineup/protocol";
import type { Db } from "./sql.js";

export interface ArtifactRow {
  readonly session_id: string;
  readonly artifact_id: string;
  readonly name: string;
  readonly mime_type: string;
  readonly size: number;
  readonly sha256: string;
  readonly received: number;
  readonly state: "uploading" | "complete";
  /** Canonical JSON of the upload's provenance; null without one. */
  readonly provenance: string | null;
}

export function toArtifactRef(row: Pick<ArtifactRow, "artifact_id" | "name" | "mime_type" | "size" | "sha256">): ArtifactRef {
  return { artifact_id: row.artifact_id, name: row.name, mime_type: row.mime_type, size: row.size, sha256: row.sha256 };
}

export async function findArtifact(db: Db, sessionId: string, artifactId: string): Promise<ArtifactRow | undefined> {
  return db.get<ArtifactRow>("SELECT session_id, artifact_id, name, mime_type, size, sha256, received, state, provenance FROM artifacts WHERE session_id = ? AND artifact_id = ?", [sessionId, artifactId]);
}

export async function startUpload(db: Db, row: Omit<ArtifactRow, "received" | "state">, createdAt: string): Promise<void> {
  await db.run("INSERT INTO artifacts (session_id, artifact_id, name, mime_type, size, sha256, received, state, created_at, provenance) VALUES (?, ?, ?, ?, ?, ?, 0, 'uploading', ?, ?)", [
    row.session_id,
    row.artifact_id,
    row.name,
    row.mime_type,
    row.size,
    row.sha256,
    createdAt,
    row.provenance,
  ]);
}

/** The upload's provenance, as stored. */
export function provenanceOf(row: Pick<ArtifactRow, "provenance">): Provenance | undefined {
  return row.provenance === null ? undefined : (JSON.parse(row.provenance) as Provenance);
}

export async function appendChunk(db: Db, sessionId: string, artifactId: string, offset: number, data: Buffer): Promise<void> {
  await db.run('INSERT INTO artifact_chunks (session_id, artifact_id, "offset", data) VALUES (?, ?, ?, ?)', [sessionId, artifactId, offset, data]);
  await db.run("UPDATE artifacts SET received = received + ? WHERE session_id = ? AND artifact_id = ?", [data.byteLength, sessionId, artifactId]);
}

export async function joinedChunks(db: Db, sessionId: string, artifactId: string): Promise<Buffer> {
  const rows = await db.all<{ data: Buffer }>('SELECT data FROM artifact_chunks WHERE session_id = ? AND artifact_id = ? ORDER BY "offset"', [sessionId, artifactId]);
  return Buffer.concat(rows.map((r) => r.data));
}

export async function completeArtifact(db: Db, sessionId: string, artifactId: string, content: Buffer): Promise<void> {
  await db.run("UPDATE artifacts SET state = 'complete', content = ?, received = size WHERE session_id = ? AND artifact_id = ?", [content, sessionId, artifactId]);
  await db.run("DELETE FROM artifact_chunks WHERE session_id = ? AND artifact_id = ?", [sessionId, artifactId]);
}

/** Stores a whole artifact at once (the server's own, e.g. an evidence pack). */
export async function insertCompleteArtifact(db: Db, sessionId: string, ref: ArtifactRef, content: Buffer, createdAt: string): Promise<void> {
  await db.run("INSERT INTO artifacts (session_id, artifact_id, name, mime_type, size, sha256, received, state, content, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'complete', ?, ?)", [
    sessionId,
    ref.artifact_id,
    ref.name,
    ref.mime_type,
    ref.size,
    ref.sha256,
    ref.size,
    content,
    createdAt,
  ]);
}

/** Bytes [offset, offset + length) of a complete artifact. */
export async function readArtifactRange(db: Db, sessionId: string, artifactId: string, offset: number, length: number): Promise<Buffer> {
  const row = await db.get<{ part: Buffer | null }>("SELECT substr(content, ?, ?) AS part FROM artifacts WHERE session_id = ? AND artifact_id = ? AND state = 'complete'", [
    offset + 1,
    length,
    sessionId,
    artifactId,
  ]);
  return row?.part ?? Buffer.alloc(0);
}

export async function readArtifactContent(db: Db, sessionId: string, artifactId: string): Promise<Buffer> {
  const row = await db.get<{ content: Buffer | null }>("SELECT content FROM artifacts WHERE session_id = ? AND artifact_id = ? AND state = 'complete'", [sessionId, artifactId]);
  return row?.content ?? Buffer.alloc(0);
}
