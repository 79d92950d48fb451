/**
 * `lineup.files.json`, the signed list of a bundle's files (docs/bundle.md §3):
 *
 *     {"format":"lineup.files.v1","files":[{"path":"index.html","size":812,"sha256":"<64 hex>"},…]}
 *
 * Exactly this serialization — keys in this order, no whitespace, no trailing newline, files in
 * ascending path order — is the only accepted one: the verifier re-serializes what it parsed and
 * compares bytes. So a signed list has one meaning in every language (no duplicate keys, no
 * number spellings, no escapes: paths are ASCII without quotes or backslashes by the grammar).
 */
import { decodeJson, fail, ok, type Result, isRecord } from "@lineup/protocol";
import { SHA256_HEX } from "./digest.js";
import { FILE_LIST_FORMAT, FILE_LIST_PATH, SIGNATURE_PATH } from "./format.js";
import { comparePaths, pathCollisionKey, unsafePathReason } from "./paths.js";

export interface BundleFileEntry {
  readonly path: string;
  readonly size: number;
  /** Lowercase hex SHA-256 of the file's uncompressed bytes. */
  readonly sha256: string;
}

/** The canonical bytes of a file list. `files` must already be sorted and valid. */
export function encodeFileList(files: readonly BundleFileEntry[]): Uint8Array {
  const body = files.map((file) => `{"path":${JSON.stringify(file.path)},"size":${file.size},"sha256":"${file.sha256}"}`).join(",");
  return new TextEncoder().encode(`{"format":"${FILE_LIST_FORMAT}","files":[${body}]}`);
}

function hasExactKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => Object.prototype.hasOwnProperty.call(value, key));
}

/** Parses and checks a signed file list. Refusal: `bundle_file_list_malformed` with a pointer into the list. */
export function decodeFileList(bytes: Uint8Array, maxBytes: number): Result<BundleFileEntry[]> {
  const malformed = (message: string, path?: string) => fail("bundle_file_list_malformed", message, path);
  const json = decodeJson(bytes, { maxBytes, maxDepth: 4 });
  if (!json.ok) return malformed(`${FILE_LIST_PATH} is not safe JSON: ${json.error.message}`, json.error.path);
  const value = json.value;
  if (!isRecord(value) || !hasExactKeys(value, ["format", "files"])) return malformed('the list must be an object with exactly "format" and "files"', "");
  if (value["format"] !== FILE_LIST_FORMAT) return malformed(`format must be "${FILE_LIST_FORMAT}"`, "/format");
  const files = value["files"];
  if (!Array.isArray(files)) return malformed('"files" must be an array', "/files");
  const out: BundleFileEntry[] = [];
  const seen = new Set<string>();
  for (const [i, file] of files.entries()) {
    const at = `/files/${i}`;
    if (!isRecord(file) || !hasExactKeys(file, ["path", "size", "sha256"])) return malformed('a file must be an object with exactly "path", "size" and "sha256"', at);
    const { path, size, sha256 } = file;
    if (typeof path !== "string") return malformed("path must be a string", `${at}/path`);
    const reason = unsafePathReason(path);
    if (reason !== undefined) return malformed(`path ${JSON.stringify(path).slice(0, 120)}: ${reason}`, `${at}/path`);
    if (path === FILE_LIST_PATH || path === SIGNATURE_PATH) return malformed(`${path} is never listed`, `${at}/path`);
    if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) return malformed("size must be a non-negative integer", `${at}/size`);
    if (typeof sha256 !== "string" || !SHA256_HEX.test(sha256)) return malformed("sha256 must be 64 lowercase hex digits", `${at}/sha256`);
    const previous = out[out.length - 1];
    if (previous !== undefined && comparePaths(previous.path, path) >= 0) return malformed("files must be in strictly ascending path order", `${at}/path`);
    const key = pathCollisionKey(path);
    if (seen.has(key)) return malformed(`path "${path}" differs from another only in case`, `${at}/path`);
    seen.add(key);
    out.push({ path, size, sha256 });
  }
  const canonical = encodeFileList(out);
  if (canonical.length !== bytes.length || canonical.some((byte, i) => byte !== bytes[i])) {
    return malformed(`${FILE_LIST_PATH} is not in its canonical serialization (key order, no whitespace, no escapes)`, "");
  }
  return ok(out);
}
