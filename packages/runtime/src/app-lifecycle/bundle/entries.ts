/**
 * What a bundle's entries must be beyond zip structure (paths, kinds, uniqueness, total size), and
 * reading an entry's bytes: a stored entry is a view into the archive (no copy); a deflated entry
 * is inflated into a buffer of exactly its declared size, and inflation stops as soon as the data
 * would produce more, so a lying entry costs at most one input chunk's worth of output.
 */
import type * as Fflate from "fflate";
import { fail, lazyImport, LineUpError, ok, type Result } from "@lineup/protocol";
import { METHOD_STORED } from "./format.js";
import { pathCollisionKey, unsafePathReason } from "./paths.js";
import type { ZipEntry } from "./zip-read.js";

/**
 * fflate, loaded by `import()`: its module builds its Huffman tables when it is evaluated (a few milliseconds, and
 * arrays for the collector), which a start of the Runtime that reads no bundle need not pay, and a page keeps it
 * in a chunk of its own. Whoever reads or writes deflated entries loads it first (`loadFflate`).
 */
const fflate = lazyImport(() => import("fflate"));

/** Loads fflate once (a failed load is tried again); `readEntry` of a deflated entry and `packBundle` need it. */
export async function loadFflate(): Promise<typeof Fflate> {
  return fflate.load();
}

/** True when an entry is deflated, so reading the entries needs fflate (`loadFflate`). */
export function anyDeflated(entries: Iterable<ZipEntry>): boolean {
  for (const entry of entries) if (entry.method !== METHOD_STORED) return true;
  return false;
}

/** Checks every entry's kind and path, then uniqueness, then the declared total (zip bomb guard). */
export function checkEntries(entries: readonly ZipEntry[], maxUnpackedBytes: number): Result<ReadonlyMap<string, ZipEntry>> {
  for (const entry of entries) {
    const at = `/entries/${entry.index}`;
    const name = JSON.stringify(entry.path).slice(0, 120);
    if (entry.kind === "symlink") return fail("bundle_unsafe_path", `entry ${name} is a symbolic link`, at);
    if (entry.kind === "directory") return fail("bundle_unsafe_path", `entry ${name} is a directory`, at);
    if (entry.kind === "special") return fail("bundle_unsafe_path", `entry ${name} is not a regular file`, at);
    if (entry.kind === "bad-name") return fail("bundle_unsafe_path", `entry ${entry.index}: the name is not UTF-8`, at);
    const reason = unsafePathReason(entry.path);
    if (reason !== undefined) return fail("bundle_unsafe_path", `entry ${name}: ${reason}`, at);
  }
  const seen = new Map<string, string>();
  const byPath = new Map<string, ZipEntry>();
  for (const entry of entries) {
    const key = pathCollisionKey(entry.path);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      const how = earlier === entry.path ? "appears twice" : `collides with "${earlier}" (paths compare without case)`;
      return fail("bundle_duplicate_path", `entry "${entry.path}" ${how}`, `/entries/${entry.index}`);
    }
    seen.set(key, entry.path);
    byPath.set(entry.path, entry);
  }
  let unpacked = 0;
  for (const entry of entries) unpacked += entry.size;
  if (unpacked > maxUnpackedBytes) {
    return fail("bundle_unpacked_too_large", `the entries declare ${unpacked} bytes uncompressed; the limit is ${maxUnpackedBytes}`);
  }
  return ok(byPath);
}

/**
 * Input is fed to the inflater in chunks that start small and double: deflate expands at most
 * ~1,032×, so an entry that lies about its size is caught after at most ~1 MB of output when it
 * declares little, and honest large entries still go through in few pushes.
 */
const FIRST_INFLATE_CHUNK = 1024;
const MAX_INFLATE_CHUNK = 64 * 1024;

/** The entry's bytes: a view for a stored entry, an exact-size inflated copy for a deflated one. Refusal: `bundle_entry_corrupt`. */
export function readEntry(archive: Uint8Array, entry: ZipEntry): Result<Uint8Array> {
  const data = archive.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize);
  if (entry.method === METHOD_STORED) return ok(data);
  const loaded = fflate.current();
  if (loaded === undefined) throw new LineUpError("invalid_state", `entry "${entry.path}" is deflated: load fflate first (loadFflate)`);
  const out = new Uint8Array(entry.size);
  let written = 0;
  let overflow = false;
  const inflater = new loaded.Inflate((chunk) => {
    if (overflow) return;
    if (written + chunk.length > out.length) {
      overflow = true;
      return;
    }
    out.set(chunk, written);
    written += chunk.length;
  });
  const corrupt = (why: string) => fail("bundle_entry_corrupt", `entry "${entry.path}" ${why}`, `/entries/${entry.index}`);
  try {
    if (data.length === 0) inflater.push(data, true);
    let chunk = FIRST_INFLATE_CHUNK;
    for (let offset = 0; offset < data.length && !overflow; offset += chunk, chunk = Math.min(chunk * 2, MAX_INFLATE_CHUNK)) {
      inflater.push(data.subarray(offset, offset + chunk), offset + chunk >= data.length);
    }
  } catch {
    return corrupt("has corrupt deflate data");
  }
  if (overflow) return corrupt(`inflates to more than its declared ${entry.size} bytes`);
  if (written !== entry.size) return corrupt(`inflates to ${written} bytes, not its declared ${entry.size}`);
  return ok(out);
}
