/**
 * Matches an archive's entries against its signed file list and hashes every listed file —
 * the part of verification that touches every byte. All digests are started at once (WebCrypto
 * runs them off the calling thread), stored entries are hashed in place, and deflated ones are
 * inflated while the stored ones hash. Failures are reported in list order, so the same bundle
 * always gives the same refusal.
 */
import { fail, ok, type ProtocolError, type Result } from "@lineup/protocol";
import { sha256Hex } from "./digest.js";
import { loadFflate, readEntry } from "./entries.js";
import type { BundleFileEntry } from "./file-list.js";
import { FILE_LIST_PATH, METHOD_STORED, SIGNATURE_PATH } from "./format.js";
import type { ZipEntry } from "./zip-read.js";

/**
 * Every listed file must be an entry of the declared size, and every entry other than the list
 * and the signature must be listed. Refusal: `bundle_file_list_mismatch`.
 */
export function matchFileList(list: readonly BundleFileEntry[], entries: ReadonlyMap<string, ZipEntry>): Result<ZipEntry[]> {
  const matched: ZipEntry[] = [];
  const listed = new Set<string>();
  for (const [i, file] of list.entries()) {
    const entry = entries.get(file.path);
    if (entry === undefined) return fail("bundle_file_list_mismatch", `"${file.path}" is listed but not in the archive`, `/files/${i}`);
    if (entry.size !== file.size) return fail("bundle_file_list_mismatch", `"${file.path}" is ${entry.size} bytes; the list says ${file.size}`, `/files/${i}`);
    listed.add(file.path);
    matched.push(entry);
  }
  const unlisted = [...entries.values()]
    .filter((entry) => entry.path !== FILE_LIST_PATH && entry.path !== SIGNATURE_PATH && !listed.has(entry.path))
    .sort((a, b) => a.index - b.index)[0];
  if (unlisted !== undefined) return fail("bundle_file_list_mismatch", `"${unlisted.path}" is in the archive but not in the list`, `/entries/${unlisted.index}`);
  return ok(matched);
}

type Outcome = { readonly bytes: Uint8Array; readonly sha256: string } | { readonly error: ProtocolError };

const failure = (error: ProtocolError): Outcome => ({ error });

/**
 * Reads and hashes every listed file (`matched[i]` is the entry of `list[i]`). Refusals:
 * `bundle_entry_corrupt`, `bundle_hash_mismatch`, the first in list order.
 *
 * Stored entries are hashed at once (a view of the archive, work bounded by its size). Deflated
 * entries are inflated only after `inflateWhen` resolves true — the verifier passes the signature
 * check, so unsigned data is never inflated — and reading stops at the first corrupt entry.
 */
export async function hashListedFiles(
  archive: Uint8Array,
  list: readonly BundleFileEntry[],
  matched: readonly ZipEntry[],
  inflateWhen: Promise<boolean> = Promise.resolve(true),
): Promise<Result<Map<string, Uint8Array>>> {
  const outcomes: Array<Promise<Outcome> | Outcome | undefined> = new Array<Outcome | undefined>(list.length);
  const hash = (bytes: Uint8Array): Promise<Outcome> =>
    sha256Hex(bytes).then(
      (sha256): Outcome => ({ bytes, sha256 }),
      (error: unknown): Outcome => failure({ code: "internal_error", message: `SHA-256 failed: ${String(error)}` }),
    );
  for (const [i, entry] of matched.entries()) {
    if (entry.method === METHOD_STORED) outcomes[i] = hash(archive.subarray(entry.dataOffset, entry.dataOffset + entry.size));
  }
  if (matched.some((entry) => entry.method !== METHOD_STORED)) {
    if (!(await inflateWhen)) return fail("internal_error", "inflation was not allowed");
    await loadFflate();
    for (const [i, entry] of matched.entries()) {
      if (entry.method === METHOD_STORED) continue;
      const read = readEntry(archive, entry);
      if (!read.ok) {
        // Nothing after a corrupt entry can be the first failure in list order: stop reading.
        outcomes[i] = failure(read.error);
        break;
      }
      outcomes[i] = hash(read.value);
    }
  }
  const settled = await Promise.all(outcomes);
  const files = new Map<string, Uint8Array>();
  for (const [i, outcome] of settled.entries()) {
    const file = list[i]!;
    if (outcome === undefined) break;
    if ("error" in outcome) return { ok: false, error: outcome.error };
    if (outcome.sha256 !== file.sha256) return fail("bundle_hash_mismatch", `"${file.path}" has SHA-256 ${outcome.sha256}; the list says ${file.sha256}`, `/files/${i}`);
    files.set(file.path, outcome.bytes);
  }
  return ok(files);
}
