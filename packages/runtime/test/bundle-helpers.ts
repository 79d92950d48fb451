/**
 * Shared by the bundle tests: a sample app, keys, and tools to take a bundle apart and put it back
 * together the way an attacker would (re-zipping with the real writer, patching raw bytes).
 */
import { deflateSync } from "fflate";
import { generatePublisherKey, packBundle, signBundle, type PublisherKey, type TrustedKey } from "../src/index.js";
import { crc32 } from "../src/app-lifecycle/bundle/crc32.js";
import { sha256Hex } from "../src/app-lifecycle/bundle/digest.js";
import { encodeFileList } from "../src/app-lifecycle/bundle/file-list.js";
import { readZip, type ZipEntry } from "../src/app-lifecycle/bundle/zip-read.js";
import { writeZip, type ZipEntryToWrite } from "../src/app-lifecycle/bundle/zip-write.js";

export const text = (s: string): Uint8Array => new TextEncoder().encode(s);

export function sampleManifest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    format: "lineup.app.v1",
    app_scope: "sample-board",
    version: "1.2.0",
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", "surface.state.v1"] },
    entrypoints: [{ id: "board", kind: "primary", path: "index.html" }],
    tools: [
      {
        method: "board.clear",
        contract_version: "1",
        input_schema: { type: "object", additionalProperties: false },
        output_schema: { type: "object" },
      },
    ],
    ...overrides,
  };
}

/** A few files, two of them the same size (for the swap case), one large enough to deflate. */
export function sampleFiles(): Map<string, Uint8Array> {
  return new Map([
    ["index.html", text('<!doctype html><html><body><script type="module" src="app.js"></script></body></html>\n')],
    ["app.js", text(`export const lines = [\n${Array.from({ length: 40 }, (_, i) => `  "line ${i} of the sample board script",`).join("\n")}\n];\n`)],
    ["assets/a.txt", text("alpha alpha alpha alpha alpha alpha alpha alpha alpha alpha al\n")],
    ["assets/b.txt", text("bravo bravo bravo bravo bravo bravo bravo bravo bravo bravo br\n")],
    ["assets/icon.png", Uint8Array.from({ length: 300 }, (_, i) => (i * 73 + 11) & 0xff)],
  ]);
}

export interface Signed {
  readonly bytes: Uint8Array;
  readonly key: PublisherKey;
  readonly trusted: TrustedKey[];
}

let cachedKey: Promise<PublisherKey> | undefined;
/** One key for the whole test file: generating is cheap, but a fixed key keeps cases comparable. */
export function testKey(): Promise<PublisherKey> {
  cachedKey ??= generatePublisherKey();
  return cachedKey;
}

export async function signedSample(options: { compression?: "store" | "deflate"; manifest?: Record<string, unknown>; files?: Map<string, Uint8Array> } = {}): Promise<Signed> {
  const key = await testKey();
  const packed = await packBundle({ manifest: options.manifest ?? sampleManifest(), files: options.files ?? sampleFiles(), compression: options.compression ?? "store" });
  if (!packed.ok) throw new Error(`pack failed: ${packed.error.code} ${packed.error.message}`);
  const signed = await signBundle(packed.value, key.privateKey);
  if (!signed.ok) throw new Error(`sign failed: ${signed.error.code} ${signed.error.message}`);
  return { bytes: signed.value, key, trusted: [key.trustedKey] };
}

export function entriesOf(bytes: Uint8Array): ZipEntry[] {
  const zip = readZip(bytes, { maxEntries: 10_000 });
  if (!zip.ok) throw new Error(`not an archive: ${zip.error.message}`);
  return zip.value;
}

/** The entries as the writer takes them (raw data, compressed or not), for re-zipping. */
export function rawEntries(bytes: Uint8Array): ZipEntryToWrite[] {
  return entriesOf(bytes).map((entry) => ({
    path: entry.path,
    method: entry.method,
    crc32: entry.crc32,
    size: entry.size,
    data: bytes.slice(entry.dataOffset, entry.dataOffset + entry.compressedSize),
  }));
}

export function stored(path: string, data: Uint8Array): ZipEntryToWrite {
  return { path, method: 0, crc32: crc32(data), size: data.length, data };
}

export function deflated(path: string, data: Uint8Array, declaredSize = data.length): ZipEntryToWrite {
  return { path, method: 8, crc32: crc32(data), size: declaredSize, data: deflateSync(data) };
}

/** Re-zips with one entry's uncompressed content replaced (stored), everything else untouched. */
export function withContent(bytes: Uint8Array, path: string, content: Uint8Array): Uint8Array {
  return writeZip(rawEntries(bytes).map((entry) => (entry.path === path ? stored(path, content) : entry)));
}

export function contentOf(bytes: Uint8Array, path: string): Uint8Array {
  const entry = entriesOf(bytes).find((e) => e.path === path);
  if (entry === undefined || entry.method !== 0) throw new Error(`${path} is not a stored entry`);
  return bytes.slice(entry.dataOffset, entry.dataOffset + entry.size);
}

/** A copy with one byte XORed. */
export function flipByte(bytes: Uint8Array, at: number, mask = 0x01): Uint8Array {
  const copy = bytes.slice();
  copy[at] = copy[at]! ^ mask;
  return copy;
}

/**
 * Builds a signed archive from arbitrary files, bypassing `packBundle`'s checks (so a bad
 * manifest can be signed): the list is computed honestly and signed with `key`.
 */
export async function signedFromFiles(files: Map<string, Uint8Array>, key: PublisherKey, extra: ZipEntryToWrite[] = []): Promise<Uint8Array> {
  const paths = [...files.keys()].sort();
  const list = await Promise.all(paths.map(async (path) => ({ path, size: files.get(path)!.length, sha256: await sha256Hex(files.get(path)!) })));
  const listBytes = encodeFileList(list);
  const unsigned = writeZip([...paths.map((path) => stored(path, files.get(path)!)), stored("lineup.files.json", listBytes), ...extra]);
  const signed = await signBundle(unsigned, key.privateKey);
  if (!signed.ok) throw new Error(`sign failed: ${signed.error.code} ${signed.error.message}`);
  return signed.value;
}

/** Patches the central record (and the local header when `local`) of the entry named `path`. */
export function patchEntry(bytes: Uint8Array, path: string, patch: (view: DataView, central: number, local: number) => void): Uint8Array {
  const copy = bytes.slice();
  const view = new DataView(copy.buffer);
  const end = copy.length - 22;
  let at = view.getUint32(end + 16, true);
  const count = view.getUint16(end + 10, true);
  for (let i = 0; i < count; i++) {
    const nameLength = view.getUint16(at + 28, true);
    const name = new TextDecoder().decode(copy.subarray(at + 46, at + 46 + nameLength));
    if (name === path) {
      patch(view, at, view.getUint32(at + 42, true));
      return copy;
    }
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  throw new Error(`no entry ${path}`);
}
