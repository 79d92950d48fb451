/**
 * `packBundle`: a manifest and a map of files → the unsigned bundle archive (docs/bundle.md §6).
 * Deterministic: the same manifest and files always give the same bytes.
 *
 * Compression. By default every entry is stored (method 0): a bundle is verified at install and
 * again before it runs, and a stored file is hashed in place and served as a view of the archive,
 * while inflating costs several times what hashing does (about 5 ms/MB for minified JavaScript
 * with fflate against 0.7 ms/MB for SHA-256). Downloads should be compressed by the transport
 * (HTTP `Content-Encoding`), which also compresses across files. `compression: "deflate"` deflates
 * the files that shrink by at least an eighth and are not already compressed formats.
 */
import type * as Fflate from "fflate";
import { fail, ok, type Result } from "@lineup/protocol";
import { crc32 } from "./crc32.js";
import { sha256Hex } from "./digest.js";
import { encodeFileList, type BundleFileEntry } from "./file-list.js";
import {
  DEFAULT_MAX_FILES,
  DEFAULT_MAX_UNPACKED_BYTES,
  FILE_LIST_PATH,
  MANIFEST_PATH,
  METHOD_DEFLATE,
  METHOD_STORED,
  SIGNATURE_PATH,
} from "./format.js";
import { loadFflate } from "./entries.js";
import { comparePaths, pathCollisionKey, unsafePathReason } from "./paths.js";
import { writeZip, type ZipEntryToWrite } from "./zip-write.js";

export interface PackBundleInput {
  /** The manifest `lineup.app.v1` as a JSON value; written as `lineup.app.json` (2-space JSON and a newline). */
  readonly manifest: unknown;
  /** Every other file of the app by bundle path. */
  readonly files: ReadonlyMap<string, Uint8Array>;
  /** `store` (default) or `deflate`. */
  readonly compression?: "store" | "deflate";
}

/** Formats that are already compressed: deflating them again costs time and saves nothing. */
const COMPRESSED_EXTENSIONS = new Set(["png", "jpg", "jpeg", "gif", "webp", "avif", "woff", "woff2", "mp3", "mp4", "m4a", "aac", "ogg", "opus", "webm", "zip", "gz", "br", "zst", "wasm.gz"]);
const MIN_DEFLATE_SIZE = 256;
const MAX_ZIP32_SIZE = 0xfffffffe;

function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  const dot = name.indexOf(".");
  return dot < 0 ? "" : name.slice(dot + 1);
}

/** `deflateSync` is fflate's, loaded when the files are to be deflated; without it every entry is stored. */
function prepareEntry(path: string, bytes: Uint8Array, deflateSync: typeof Fflate.deflateSync | undefined): ZipEntryToWrite {
  const base = { path, crc32: crc32(bytes), size: bytes.length };
  const extension = extensionOf(path);
  const last = extension.slice(extension.lastIndexOf(".") + 1);
  if (deflateSync !== undefined && bytes.length >= MIN_DEFLATE_SIZE && !COMPRESSED_EXTENSIONS.has(extension) && !COMPRESSED_EXTENSIONS.has(last)) {
    const deflated = deflateSync(bytes, { level: 6 });
    if (deflated.length <= bytes.length - bytes.length / 8) return { ...base, method: METHOD_DEFLATE, data: deflated };
  }
  return { ...base, method: METHOD_STORED, data: bytes };
}

/** Packs an unsigned bundle. Refusals: `bundle_manifest_invalid`, `bundle_unsafe_path`, `bundle_duplicate_path`, `bundle_too_many_files`, `bundle_unpacked_too_large`. */
export async function packBundle(input: PackBundleInput): Promise<Result<Uint8Array>> {
  const { validateManifest } = await import("./manifest-validator.js");
  const checked = validateManifest(input.manifest);
  if (!checked.ok) return fail("bundle_manifest_invalid", `${checked.error.code}: ${checked.error.message}`, checked.error.path);
  const manifest = checked.value;

  const seen = new Map<string, string>([[pathCollisionKey(MANIFEST_PATH), MANIFEST_PATH]]);
  let total = 0;
  for (const [path, bytes] of input.files) {
    if (path === FILE_LIST_PATH || path === SIGNATURE_PATH) return fail("bundle_unsafe_path", `${path} is reserved for the bundle's own metadata`);
    const reason = unsafePathReason(path);
    if (reason !== undefined) return fail("bundle_unsafe_path", `file ${JSON.stringify(path).slice(0, 120)}: ${reason}`);
    const earlier = seen.get(pathCollisionKey(path));
    if (earlier !== undefined) {
      return fail("bundle_duplicate_path", earlier === MANIFEST_PATH && path === MANIFEST_PATH ? `${MANIFEST_PATH} is written from the manifest; leave it out of the files` : `file "${path}" collides with "${earlier}" (paths compare without case)`);
    }
    seen.set(pathCollisionKey(path), path);
    if (bytes.length > MAX_ZIP32_SIZE) return fail("bundle_unpacked_too_large", `file "${path}" is larger than 4 GiB`);
    total += bytes.length;
  }
  if (input.files.size + 3 > DEFAULT_MAX_FILES) return fail("bundle_too_many_files", `a bundle holds at most ${DEFAULT_MAX_FILES - 3} files besides its manifest`);
  if (total > DEFAULT_MAX_UNPACKED_BYTES) return fail("bundle_unpacked_too_large", `the files add up to ${total} bytes; the limit is ${DEFAULT_MAX_UNPACKED_BYTES}`);
  for (const [i, entrypoint] of manifest.entrypoints.entries()) {
    const page = entrypoint.path ?? "index.html";
    if (!input.files.has(page)) return fail("bundle_manifest_invalid", `entrypoint "${entrypoint.id}" opens ${page}, which is not among the files`, `/entrypoints/${i}/path`);
  }

  const all = new Map(input.files);
  all.set(MANIFEST_PATH, new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`));
  const paths = [...all.keys()].sort(comparePaths);
  const hashes = await Promise.all(paths.map((path) => sha256Hex(all.get(path)!)));
  const list: BundleFileEntry[] = paths.map((path, i) => ({ path, size: all.get(path)!.length, sha256: hashes[i]! }));
  const listBytes = encodeFileList(list);
  const compression = input.compression ?? "store";
  const deflateSync = compression === "deflate" ? (await loadFflate()).deflateSync : undefined;
  const entries = paths.map((path) => prepareEntry(path, all.get(path)!, deflateSync));
  entries.push({ path: FILE_LIST_PATH, method: METHOD_STORED, crc32: crc32(listBytes), size: listBytes.length, data: listBytes });
  return ok(writeZip(entries));
}
