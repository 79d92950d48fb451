/**
 * Chunked artifact upload and ranged reads. Chunks must arrive in order (offset = bytes received);
 * the chunk that reaches `size` is checked against the declared SHA-256 before the artifact exists.
 * A device's upload may carry the provenance of the app that made it: fixed by the first chunk,
 * repeated by every chunk, recorded in `artifact.added` (and so in evidence packs).
 */
import { canonicalJson, type JsonObject, type JsonValue, type MethodParams, type MethodResult } from "@lineup/protocol";
import { appendChunk, completeArtifact, findArtifact, joinedChunks, provenanceOf, readArtifactRange, startUpload, toArtifactRef } from "../store/artifacts.js";
import { sha256Hex } from "../store/principals.js";
import { actorOf, refuse, visibleSession, type CallContext, sessionPrecheck } from "./context.js";

export function putArtifact(ctx: CallContext, params: MethodParams<"artifact/put">) {
  const { services, principal } = ctx;
  return services.idempotent.run(principal, "artifact/put", params, async (w): Promise<MethodResult<"artifact/put">> => {
    const { session_id: sessionId, artifact_id: artifactId } = params;
    const bytes = Buffer.from(params.data, "base64");
    const provenance = params.provenance === undefined ? null : canonicalJson(params.provenance as unknown as JsonValue);
    let row = await findArtifact(w.db, sessionId, artifactId);
    if (row === undefined) {
      if (params.offset !== 0) throw refuse("invalid_state", `no upload of ${artifactId} yet: start at offset 0`, "/offset");
      await startUpload(w.db, { session_id: sessionId, artifact_id: artifactId, name: params.name, mime_type: params.mime_type, size: params.size, sha256: params.sha256, provenance }, w.now);
      row = (await findArtifact(w.db, sessionId, artifactId))!;
    } else {
      if (row.state === "complete") throw refuse("invalid_state", `artifact ${artifactId} is already complete`, "/artifact_id");
      if (row.name !== params.name || row.mime_type !== params.mime_type || row.size !== params.size || row.sha256 !== params.sha256) {
        throw refuse("invalid_state", `artifact ${artifactId} is being uploaded with other name, type, size or sha256`, "/artifact_id");
      }
      if (row.provenance !== provenance) throw refuse("invalid_state", `artifact ${artifactId} is being uploaded with other provenance`, "/provenance");
    }
    if (params.offset !== row.received) throw refuse("invalid_state", `expected offset ${row.received}`, "/offset");
    if (bytes.byteLength > 0) await appendChunk(w.db, sessionId, artifactId, params.offset, bytes);
    const received = row.received + bytes.byteLength;
    if (received < params.size) return { artifact_id: artifactId, received, complete: false };
    const content = await joinedChunks(w.db, sessionId, artifactId);
    if (sha256Hex(content) !== params.sha256) throw refuse("invalid_params", "the content does not match sha256; start over with a new artifact_id", "/sha256");
    await completeArtifact(w.db, sessionId, artifactId, content);
    const artifact = toArtifactRef(row);
    const stored = provenanceOf(row);
    const data: JsonObject = { artifact: artifact as unknown as JsonObject };
    if (stored !== undefined) data["provenance"] = stored as unknown as JsonObject;
    const event = await w.append(sessionId, "artifact.added", actorOf(principal), data);
    return { artifact_id: artifactId, received, complete: true, artifact, seq: event.seq };
  }, sessionPrecheck(principal, params.session_id));
}

export async function readArtifact(ctx: CallContext, params: MethodParams<"artifact/read">): Promise<MethodResult<"artifact/read">> {
  await visibleSession(ctx, params.session_id);
  const db = ctx.services.db;
  const row = await findArtifact(db, params.session_id, params.artifact_id);
  if (row === undefined || row.state !== "complete") throw refuse("not_found", `no complete artifact ${params.artifact_id}`, "/artifact_id");
  const offset = params.offset ?? 0;
  if (offset > row.size) throw refuse("invalid_params", `offset ${offset} is past the size ${row.size}`, "/offset");
  const length = Math.min(params.length ?? ctx.services.limits.max_chunk_bytes, ctx.services.limits.max_chunk_bytes);
  const part = await readArtifactRange(db, params.session_id, params.artifact_id, offset, length);
  return { artifact: toArtifactRef(row), offset, data: part.toString("base64"), eof: offset + part.byteLength >= row.size };
}
