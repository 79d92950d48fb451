/**
 * Writes the bundle's zip archive, byte for byte as docs/bundle.md §2 specifies: entries in path
 * order, each local header immediately followed by its data, then the central directory and the
 * end record. Every variable field is fixed (date 1980-01-01 00:00, version 2.0 MS-DOS, no flags,
 * no extra fields, no comments, no attributes), so the same entries always give the same bytes.
 *
 * Why not fflate's `zipSync`: it stamps the DOS time from the host's local time zone and orders
 * entries by JavaScript object key order (integer-like names first); both would break
 * determinism. fflate still does the deflating (see pack.ts).
 */
import { comparePaths } from "./paths.js";
import { DOS_DATE, DOS_TIME, ZIP_VERSION } from "./format.js";

/** One entry as stored: `data` is the stored bytes or the raw deflate stream. */
export interface ZipEntryToWrite {
  readonly path: string;
  readonly method: number;
  readonly crc32: number;
  /** Uncompressed size. */
  readonly size: number;
  readonly data: Uint8Array;
}

const LOCAL_HEADER = 30;
const CENTRAL_HEADER = 46;
const END_RECORD = 22;

function header(view: DataView, at: number, signature: number): number {
  view.setUint32(at, signature, true);
  return at + 4;
}

/** Serializes `entries` (any order; sorted here by path). Paths must be ASCII per the path grammar. */
export function writeZip(entries: readonly ZipEntryToWrite[]): Uint8Array<ArrayBuffer> {
  const sorted = [...entries].sort((a, b) => comparePaths(a.path, b.path));
  const names = sorted.map((entry) => new TextEncoder().encode(entry.path));
  let total = END_RECORD;
  for (const [i, entry] of sorted.entries()) total += LOCAL_HEADER + CENTRAL_HEADER + 2 * names[i]!.length + entry.data.length;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  const offsets: number[] = [];
  let at = 0;
  for (const [i, entry] of sorted.entries()) {
    const name = names[i]!;
    offsets.push(at);
    at = header(view, at, 0x04034b50);
    view.setUint16(at, ZIP_VERSION, true); // version needed
    view.setUint16(at + 2, 0, true); // flags
    view.setUint16(at + 4, entry.method, true);
    view.setUint16(at + 6, DOS_TIME, true);
    view.setUint16(at + 8, DOS_DATE, true);
    view.setUint32(at + 10, entry.crc32, true);
    view.setUint32(at + 14, entry.data.length, true);
    view.setUint32(at + 18, entry.size, true);
    view.setUint16(at + 22, name.length, true);
    view.setUint16(at + 24, 0, true); // extra length
    at += 26;
    out.set(name, at);
    at += name.length;
    out.set(entry.data, at);
    at += entry.data.length;
  }
  const centralStart = at;
  for (const [i, entry] of sorted.entries()) {
    const name = names[i]!;
    at = header(view, at, 0x02014b50);
    view.setUint16(at, ZIP_VERSION, true); // version made by: 2.0, MS-DOS
    view.setUint16(at + 2, ZIP_VERSION, true); // version needed
    view.setUint16(at + 4, 0, true); // flags
    view.setUint16(at + 6, entry.method, true);
    view.setUint16(at + 8, DOS_TIME, true);
    view.setUint16(at + 10, DOS_DATE, true);
    view.setUint32(at + 12, entry.crc32, true);
    view.setUint32(at + 16, entry.data.length, true);
    view.setUint32(at + 20, entry.size, true);
    view.setUint16(at + 24, name.length, true);
    // extra length, comment length, disk start, internal attributes, external attributes: all 0
    view.setUint32(at + 38, offsets[i]!, true);
    at += 42;
    out.set(name, at);
    at += name.length;
  }
  const centralSize = at - centralStart;
  at = header(view, at, 0x06054b50);
  // disk numbers: 0
  view.setUint16(at + 4, sorted.length, true);
  view.setUint16(at + 6, sorted.length, true);
  view.setUint32(at + 8, centralSize, true);
  view.setUint32(at + 12, centralStart, true);
  // comment length: 0
  return out;
}
