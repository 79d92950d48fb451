/**
 * Artifacts: an upload collects chunks until `size` bytes arrived; completing it joins the chunks
 * into one content blob. Reads are byte ranges of complete artifacts.
 */
import type { ArtifactRef, Provenance } from "@lineup/protocol";
import type { Db } from "./database.js";
import { stmt } from "./statements.js";

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

export function findArtifact(db: Db, sessionId: string, artifactId: string): ArtifactRow | undefined {
  return stmt(db, "SELECT session_id, artifact_id, name, mime_type, size, sha256, received, state, provenance FROM artifacts WHERE session_id = ? AND artifact_id = ?").get(
    sessionId,
    artifactId,
  ) as ArtifactRow | undefined;
}

export function startUpload(db: Db, row: Omit<ArtifactRow, "received" | "state">, createdAt: string): void {
  stmt(db, "INSERT INTO artifacts (session_id, artifact_id, name, mime_type, size, sha256, received, state, created_at, provenance) VALUES (?, ?, ?, ?, ?, ?, 0, 'uploading', ?, ?)").run(
    row.session_id,
    row.artifact_id,
    row.name,
    row.mime_type,
    row.size,
    row.sha256,
    createdAt,
    row.provenance,
  );
}

/** The upload's provenance, as stored. */
export function provenanceOf(row: Pick<ArtifactRow, "provenance">): Provenance | undefined {
  return row.provenance === null ? undefined : (JSON.parse(row.provenance) as Provenance);
}

export function appendChunk(db: Db, sessionId: string, artifactId: string, offset: number, data: Buffer): void {
  stmt(db, "INSERT INTO artifact_chunks (session_id, artifact_id, offset, data) VALUES (?, ?, ?, ?)").run(sessionId, artifactId, offset, data);
  stmt(db, "UPDATE artifacts SET received = received + ? WHERE session_id = ? AND artifact_id = ?").run(data.byteLength, sessionId, artifactId);
}

export function joinedChunks(db: Db, sessionId: string, artifactId: string): Buffer {
  const rows = stmt(db, "SELECT data FROM artifact_chunks WHERE session_id = ? AND artifact_id = ? ORDER BY offset").all(sessionId, artifactId) as Array<{ data: Buffer }>;
  return Buffer.concat(rows.map((r) => r.data));
}

export function completeArtifact(db: Db, sessionId: string, artifactId: string, content: Buffer): void {
  stmt(db, "UPDATE artifacts SET state = 'complete', content = ?, received = size WHERE session_id = ? AND artifact_id = ?").run(content, sessionId, artifactId);
  stmt(db, "DELETE FROM artifact_chunks WHERE session_id = ? AND artifact_id = ?").run(sessionId, artifactId);
}

/** Stores a whole artifact at once (the server's own, e.g. an evidence pack). */
export function insertCompleteArtifact(db: Db, sessionId: string, ref: ArtifactRef, content: Buffer, createdAt: string): void {
  stmt(db, "INSERT INTO artifacts (session_id, artifact_id, name, mime_type, size, sha256, received, state, content, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'complete', ?, ?)").run(
    sessionId,
    ref.artifact_id,
    ref.name,
    ref.mime_type,
    ref.size,
    ref.sha256,
    ref.size,
    content,
    createdAt,
  );
}

/** Bytes [offset, offset + length) of a complete artifact. */
export function readArtifactRange(db: Db, sessionId: string, artifactId: string, offset: number, length: number): Buffer {
  const row = stmt(db, "SELECT substr(content, ?, ?) AS part FROM artifacts WHERE session_id = ? AND artifact_id = ? AND state = 'complete'").get(
    offset + 1,
    length,
    sessionId,
    artifactId,
  ) as { part: Buffer | null } | undefined;
  return row?.part ?? Buffer.alloc(0);
}

export function readArtifactContent(db: Db, sessionId: string, artifactId: string): Buffer {
  const row = stmt(db, "SELECT content FROM artifacts WHERE session_id = ? AND artifact_id = ? AND state = 'complete'").get(sessionId, artifactId) as
    | { content: Buffer | null }
    | undefined;
  return row?.content ?? Buffer.alloc(0);
}
