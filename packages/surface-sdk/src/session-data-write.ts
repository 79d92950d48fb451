/**
 * The write every app with shared session data needs: `replace` with the revision it last knew, and
 * when someone wrote first (`revision_conflict`), read what is stored now and write again what the
 * app makes of it. The SDK merges nothing itself (spec 6.3): `data(newer)` is the app's rule — keep
 * both sides (a list of notes), or write over (the picture of a timer).
 */
import type { JsonObject } from "@lineup/protocol";
import type { MiniAppSessionDataAPI, SessionDataSnapshot } from "./session-data.js";

/**
 * Writes `data(undefined)` with `expected_revision = revision`; on `revision_conflict` reads the stored
 * snapshot and writes `data(newer)` with its revision, at most `attempts` writes in all. Resolves with
 * the revision written; rejects with the error that ended it (a conflict on the last attempt, a failed
 * read, or any other refusal, which is not retried).
 */
export async function replaceWithRetry<Data extends JsonObject>(
  api: MiniAppSessionDataAPI<Data>,
  revision: number,
  data: (newer: SessionDataSnapshot<Data> | undefined) => Data,
  attempts = 3,
): Promise<{ readonly revision: number }> {
  let expected = revision;
  let newer: SessionDataSnapshot<Data> | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      return await api.replace({ data: data(newer), expected_revision: expected });
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== "revision_conflict" || attempt >= attempts) throw error;
      newer = await api.get();
      expected = newer.revision;
    }
  }
}
