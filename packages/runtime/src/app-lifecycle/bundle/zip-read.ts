/**
 * Reads the structure of a bundle archive strictly (docs/bundle.md §2, "what a verifier
 * accepts"), without inflating anything: the end record must be the last 22 bytes, the central
 * directory must be exactly what precedes it, entries must tile the bytes before it from offset 0
 * with no gap or overlap, and each local header must agree with its central record. So every byte
 * of an accepted archive belongs to exactly one parsed structure: no hidden prefix, no second
 * reading of the same bytes, no name that one zip reader sees and another does not.
 *
 * Pure; never throws; reads only inside `bytes`.
 */
import { fail, ok, type Result } from "@lineup/protocol";
import { METHOD_DEFLATE, METHOD_STORED, ZIP_VERSION } from "./format.js";

/** An entry of the central directory, checked against its local header. */
export interface ZipEntry {
  /** Position in the central directory (the `<index>` of `/entries/<index>` in errors). */
  readonly index: number;
  /** The name, decoded as UTF-8 (not yet checked against the path grammar). */
  readonly path: string;
  readonly method: number;
  readonly crc32: number;
  readonly compressedSize: number;
  /** Declared uncompressed size. */
  readonly size: number;
  /** Offset of the entry's data (after its local header). */
  readonly dataOffset: number;
  /** A plain file, or a directory, symbolic link or other special file (from its attributes), or a name that is not UTF-8. */
  readonly kind: "file" | "directory" | "symlink" | "special" | "bad-name";
}

const END_RECORD = 22;
const CENTRAL_HEADER = 46;
const LOCAL_HEADER = 30;
/** Flag bits a bundle may carry: 1–2 (deflate level hints) and 11 (UTF-8 names). */
const ALLOWED_FLAGS = 0x0806;
const ZIP64_MARK = 0xffffffff;
/** "Version made by" hosts whose upper external-attribute half is a Unix mode. */
const UNIX_HOSTS = new Set([3, 19]);
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const DOS_DIRECTORY = 0x10;

const nameDecoder = new TextDecoder("utf-8", { fatal: true });

const notArchive = (message: string) => fail("bundle_not_archive", message);

function entryKind(versionMadeBy: number, externalAttributes: number, name: string): ZipEntry["kind"] {
  if (UNIX_HOSTS.has(versionMadeBy >> 8)) {
    const type = (externalAttributes >>> 16) & S_IFMT;
    if (type === S_IFLNK) return "symlink";
    if (type === S_IFDIR) return "directory";
    if (type !== 0 && type !== S_IFREG) return "special";
  }
  if ((externalAttributes & DOS_DIRECTORY) !== 0 || name.endsWith("/")) return "directory";
  return "file";
}

export interface ReadZipOptions {
  /** Refuse with `bundle_too_many_files` before walking the directory when it has more entries. */
  readonly maxEntries: number;
}

/** Parses the archive's structure. Refusals: `bundle_not_archive`, `bundle_too_many_files`. */
export function readZip(bytes: Uint8Array, options: ReadZipOptions): Result<ZipEntry[]> {
  if (bytes.length < END_RECORD) return notArchive(`${bytes.length} bytes is too short for a zip archive`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.length - END_RECORD;
  if (view.getUint32(end, true) !== 0x06054b50) return notArchive("no end-of-central-directory record in the last 22 bytes (truncated, or a comment or trailing bytes)");
  const diskNumber = view.getUint16(end + 4, true);
  const centralDisk = view.getUint16(end + 6, true);
  const entriesOnDisk = view.getUint16(end + 8, true);
  const entryCount = view.getUint16(end + 10, true);
  const centralSize = view.getUint32(end + 12, true);
  const centralOffset = view.getUint32(end + 16, true);
  const commentLength = view.getUint16(end + 20, true);
  if (commentLength !== 0) return notArchive("the archive has a comment");
  if (diskNumber !== 0 || centralDisk !== 0 || entriesOnDisk !== entryCount) return notArchive("multi-disk archives are not supported");
  if (entryCount === 0xffff || centralSize === ZIP64_MARK || centralOffset === ZIP64_MARK) return notArchive("zip64 archives are not supported");
  if (centralOffset + centralSize !== end) return notArchive("the central directory does not end where the end record begins");
  if (entryCount > options.maxEntries) return fail("bundle_too_many_files", `the archive has ${entryCount} entries; the limit is ${options.maxEntries}`);

  const entries: Array<ZipEntry & { readonly localOffset: number; readonly flags: number; readonly nameBytes: Uint8Array }> = [];
  let at = centralOffset;
  for (let index = 0; index < entryCount; index++) {
    const where = `central directory entry ${index}`;
    if (at + CENTRAL_HEADER > end || view.getUint32(at, true) !== 0x02014b50) return notArchive(`${where} is missing or truncated`);
    const versionMadeBy = view.getUint16(at + 4, true);
    const versionNeeded = view.getUint16(at + 6, true);
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const crc32 = view.getUint32(at + 16, true);
    const compressedSize = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const entryCommentLength = view.getUint16(at + 32, true);
    const diskStart = view.getUint16(at + 34, true);
    const externalAttributes = view.getUint32(at + 38, true);
    const localOffset = view.getUint32(at + 42, true);
    const next = at + CENTRAL_HEADER + nameLength + extraLength + entryCommentLength;
    if (next > end) return notArchive(`${where} runs past the central directory`);
    if ((flags & 1) !== 0) return notArchive(`${where} is encrypted`);
    if ((flags & 8) !== 0) return notArchive(`${where} uses a data descriptor`);
    if ((flags & ~ALLOWED_FLAGS) !== 0) return notArchive(`${where} has unsupported flags 0x${flags.toString(16)}`);
    if (versionNeeded > ZIP_VERSION) return notArchive(`${where} needs zip version ${versionNeeded / 10}; bundles use 2.0`);
    if (compressedSize === ZIP64_MARK || size === ZIP64_MARK || localOffset === ZIP64_MARK) return notArchive(`${where} uses zip64`);
    if (diskStart !== 0) return notArchive(`${where} is on another disk`);
    if (method !== METHOD_STORED && method !== METHOD_DEFLATE) return notArchive(`${where} uses compression method ${method}; only 0 (stored) and 8 (deflate) are allowed`);
    if (method === METHOD_STORED && compressedSize !== size) return notArchive(`${where} is stored but its two sizes differ`);
    const nameBytes = bytes.subarray(at + CENTRAL_HEADER, at + CENTRAL_HEADER + nameLength);
    let path: string;
    let kind: ZipEntry["kind"];
    try {
      path = nameDecoder.decode(nameBytes);
      kind = entryKind(versionMadeBy, externalAttributes, path);
    } catch {
      // Refused with the path checks (checkEntries), after the structure is known to be sound.
      path = new TextDecoder("utf-8").decode(nameBytes);
      kind = "bad-name";
    }
    entries.push({ index, path, method, crc32, compressedSize, size, dataOffset: 0, kind, localOffset, flags, nameBytes });
    at = next;
  }
  if (at !== end) return notArchive("the central directory has bytes after its last entry");

  // The entries, in file order, must tile [0, centralOffset) exactly.
  const byOffset = [...entries].sort((a, b) => a.localOffset - b.localOffset);
  const located = new Map<number, number>();
  let expected = 0;
  for (const entry of byOffset) {
    const where = `entry ${entry.index} (${JSON.stringify(entry.path).slice(0, 80)})`;
    const local = entry.localOffset;
    if (local !== expected) return notArchive(`${where}: ${local < expected ? "overlaps the previous entry" : "leaves a gap before its local header"}`);
    if (local + LOCAL_HEADER > centralOffset || view.getUint32(local, true) !== 0x04034b50) return notArchive(`${where}: local header missing or truncated`);
    const nameLength = view.getUint16(local + 26, true);
    const extraLength = view.getUint16(local + 28, true);
    const dataOffset = local + LOCAL_HEADER + nameLength + extraLength;
    if (
      view.getUint16(local + 4, true) > ZIP_VERSION ||
      view.getUint16(local + 6, true) !== entry.flags ||
      view.getUint16(local + 8, true) !== entry.method ||
      view.getUint32(local + 14, true) !== entry.crc32 ||
      view.getUint32(local + 18, true) !== entry.compressedSize ||
      view.getUint32(local + 22, true) !== entry.size ||
      nameLength !== entry.nameBytes.length
    ) {
      return notArchive(`${where}: local header disagrees with the central directory`);
    }
    if (dataOffset + entry.compressedSize > centralOffset) return notArchive(`${where}: data runs into the central directory`);
    const localName = bytes.subarray(local + LOCAL_HEADER, local + LOCAL_HEADER + nameLength);
    for (let i = 0; i < nameLength; i++) {
      if (localName[i] !== entry.nameBytes[i]) return notArchive(`${where}: local header names another file`);
    }
    located.set(entry.index, dataOffset);
    expected = dataOffset + entry.compressedSize;
  }
  if (expected !== centralOffset) return notArchive("bytes between the last entry and the central directory");
  return ok(
    entries.map(({ index, path, method, crc32, compressedSize, size, kind }) => ({ index, path, method, crc32, compressedSize, size, kind, dataOffset: located.get(index)! })),
  );
}
