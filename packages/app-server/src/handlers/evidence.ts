/**
 * `evidence/export`: events 1…through_seq (or, for one agent task, 1…the task's last event) and their
 * artifacts as a `lineup.evidence.v1` pack, stored as an artifact.
 */
import {
  buildEvidencePack,
  canonicalJson,
  EVIDENCE_MIME_TYPE,
  taskEventsOf,
  type ArtifactRef,
  type EvidenceScope,
  type JsonObject,
  type JsonValue,
  type MethodParams,
  type MethodResult,
  type SessionEvent,
} from "@lineup/protocol";
import type { WriteContext } from "../write-queue.js";
import { findArtifact, insertCompleteArtifact, readArtifactContent, toArtifactRef } from "../store/artifacts.js";
import { headSeq, readEventsThrough } from "../store/log.js";
import { sha256Hex } from "../store/principals.js";
import { findSession } from "../store/sessions.js";
import { actorOf, refuse, type CallContext, sessionPrecheck } from "./context.js";

export function exportEvidence(ctx: CallContext, params: MethodParams<"evidence/export">) {
  const { services, principal } = ctx;
  return services.idempotent.run(principal, "evidence/export", params, async (w): Promise<MethodResult<"evidence/export">> => {
    const sessionId = params.session_id;
    const { events, scope } = params.task_id === undefined ? await sessionEvents(w, sessionId, params.through_seq) : await taskEvents(w, sessionId, params.task_id);
    const throughSeq = events.length === 0 ? 0 : events[events.length - 1]!.seq;
    const withData = params.include_artifact_data !== false;
    const artifacts: Array<{ artifact: ArtifactRef; data?: string }> = [];
    for (const event of events) {
      if (event.kind !== "artifact.added") continue;
      const ref = (event.data as { artifact: ArtifactRef }).artifact;
      const row = await findArtifact(w.db, sessionId, ref.artifact_id);
      if (row === undefined) continue;
      artifacts.push(withData ? { artifact: toArtifactRef(row), data: (await readArtifactContent(w.db, sessionId, ref.artifact_id)).toString("base64") } : { artifact: toArtifactRef(row) });
    }
    const exportId = services.ids.next("x");
    const pack = buildEvidencePack(
      { export_id: exportId, exported_at: w.now, exported_by: actorOf(principal), session: (await findSession(w.db, sessionId))!, events, artifacts, ...(scope === undefined ? {} : { scope }) },
      sha256Hex,
    );
    const bytes = Buffer.from(canonicalJson(pack as unknown as JsonValue), "utf8");
    if (bytes.byteLength > services.limits.max_artifact_bytes) {
      throw refuse("invalid_params", `the pack would be ${bytes.byteLength} bytes, over ${services.limits.max_artifact_bytes}: export without artifact data`, "/include_artifact_data");
    }
    const name = scope === undefined ? `evidence-${sessionId}-${throughSeq}.json` : `evidence-${sessionId}-task-${scope.task_id}-${throughSeq}.json`;
    const artifact: ArtifactRef = { artifact_id: exportId, name: name.slice(0, 255), mime_type: EVIDENCE_MIME_TYPE, size: bytes.byteLength, sha256: sha256Hex(bytes) };
    await insertCompleteArtifact(w.db, sessionId, artifact, bytes, w.now);
    await w.db.run("INSERT INTO evidence_exports (export_id, session_id, through_seq, pack_digest, created_at) VALUES (?, ?, ?, ?, ?)", [exportId, sessionId, throughSeq, pack.digest, w.now]);
    const data: JsonObject = { export_id: exportId, through_seq: throughSeq, artifact: artifact as unknown as JsonObject, pack_digest: pack.digest };
    if (scope !== undefined) data["task_id"] = scope.task_id;
    const event = await w.append(sessionId, "evidence.exported", actorOf(principal), data);
    return { export_id: exportId, session_id: sessionId, through_seq: throughSeq, artifact, pack_digest: pack.digest, seq: event.seq };
  }, sessionPrecheck(principal, params.session_id));
}

/** Events 1…through_seq (default: the head). */
async function sessionEvents(w: WriteContext, sessionId: string, through: number | undefined): Promise<{ events: SessionEvent[]; scope?: undefined }> {
  const head = (await headSeq(w.db, sessionId)) ?? 0;
  const throughSeq = through ?? head;
  if (throughSeq > head) throw refuse("cursor_invalid", `through_seq ${throughSeq} is beyond the head ${head}`, "/through_seq");
  return { events: await readEventsThrough(w.db, sessionId, throughSeq) };
}

/** Events 1…the task's last event, and the task's turns; `not_found` when no turn of the session is the task's. */
async function taskEvents(w: WriteContext, sessionId: string, taskId: string): Promise<{ events: SessionEvent[]; scope: EvidenceScope }> {
  const all = await readEventsThrough(w.db, sessionId, (await headSeq(w.db, sessionId)) ?? 0);
  const task = taskEventsOf(all, taskId);
  if (task.turn_ids.length === 0) throw refuse("not_found", `no turn of task ${taskId} in session ${sessionId}`, "/task_id");
  return { events: all.slice(0, task.last_seq), scope: { task_id: taskId, turn_ids: [...task.turn_ids] } };
}
