/**
 * The revision rule of an app session's data (spec 6.3), the one both the Runtime and an app's local
 * stand-in apply: empty is `{ data: null, revision: 0 }`; a replace applies only when its
 * `expected_revision` is the current revision, and makes the next one. Otherwise it is
 * `revision_conflict` with the current revision — nothing merges, so an old surface, a double click or a
 * concurrent writer cannot overwrite newer data.
 */
import type { ProtocolError, Result } from "./errors.js";

/** A `revision_conflict` names the current revision, so the writer can read it and try again. */
export interface RevisionConflict extends ProtocolError {
  readonly data: { readonly current_revision: number };
}

/** The revision a replace expecting `expectedRevision` makes over `currentRevision`, or the conflict. */
export function nextSessionDataRevision(currentRevision: number, expectedRevision: number): Result<number, RevisionConflict> {
  if (expectedRevision !== currentRevision) {
    return {
      ok: false,
      error: { code: "revision_conflict", message: `expected revision ${expectedRevision}, but the current revision is ${currentRevision}`, data: { current_revision: currentRevision } },
    };
  }
  return { ok: true, value: currentRevision + 1 };
}
