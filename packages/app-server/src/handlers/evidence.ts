/** `evidence/export`: events 1…through_seq and their artifacts as a `lineup.evidence.v1` pack, stored as an artifact. */
import { buildEvidencePack, canonicalJson, EVIDENCE_MIME_TYPE, type ArtifactRef, type JsonObject, type JsonValue, type MethodParams, type MethodResult } from "@lineup/protocol";
import { findArtifact, insertCompleteArtifact, readArtifactContent, toArtifactRef } from "../store/artifacts.js";
import { headSeq, readEventsThrough } from "../store/log.js";
import { sha256Hex } from "../store/principals.js";
import { findSession } from "../store/sessions.js";
import { stmt } from "../store/statements.js";
import { actorOf, refuse, type CallContext, sessionPrecheck } from "./context.js";

export function exportEvidence(ctx: CallContext, params: MethodParams<"evidence/export">) {
  const { services, principal } = ctx;
  return services.idempotent.run(principal, "evidence/export", params, (w): MethodResult<"evidence/export"> => {
    const sessionId = params.session_id;
    const head = headSeq(w.db, sessionId) ?? 0;
    const throughSeq = params.through_seq ?? head;
    if (throughSeq > head) throw refuse("cursor_invalid", `through_seq ${throughSeq} is beyond the head ${head}`, "/through_seq");
    const events = readEventsThrough(w.db, sessionId, throughSeq);
    const withData = params.include_artifact_data !== false;
    const artifacts: Array<{ artifact: ArtifactRef; data?: string }> = [];
    for (const event of events) {
      if (event.kind !== "artifact.added") continue;
      const ref = (event.data as { artifact: ArtifactRef }).artifact;
      const row = findArtifact(w.db, sessionId, ref.artifact_id);
      if (row === undefined) continue;
      artifacts.push(withData ? { artifact: toArtifactRef(row), data: readArtifactContent(w.db, sessionId, ref.artifact_id).toString("base64") } : { artifact: toArtifactRef(row) });
    }
    const exportId = services.ids.next("x");
    const pack = buildEvidencePack(
      { export_id: exportId, exported_at: w.now, exported_by: actorOf(principal), session: findSession(w.db, sessionId)!, events, artifacts },
      sha256Hex,
    );
    const bytes = Buffer.from(canonicalJson(pack as unknown as JsonValue), "utf8");
    if (bytes.byteLength > services.limits.max_artifact_bytes) {
      throw refuse("invalid_params", `the pack would be ${bytes.byteLength} bytes, over ${services.limits.max_artifact_bytes}: export without artifact data`, "/include_artifact_data");
    }
    const artifact: ArtifactRef = { artifact_id: exportId, name: `evidence-${sessionId}-${throughSeq}.json`.slice(0, 255), mime_type: EVIDENCE_MIME_TYPE, size: bytes.byteLength, sha256: sha256Hex(bytes) };
    insertCompleteArtifact(w.db, sessionId, artifact, bytes, w.now);
    stmt(w.db, "INSERT INTO evidence_exports (export_id, session_id, through_seq, pack_digest, created_at) VALUES (?, ?, ?, ?, ?)").run(exportId, sessionId, throughSeq, pack.digest, w.now);
    const event = w.append(sessionId, "evidence.exported", actorOf(principal), { export_id: exportId, through_seq: throughSeq, artifact: artifact as unknown as JsonObject, pack_digest: pack.digest });
    return { export_id: exportId, session_id: sessionId, through_seq: throughSeq, artifact, pack_digest: pack.digest, seq: event.seq };
  }, sessionPrecheck(principal, params.session_id));
}
