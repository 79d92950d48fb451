/**
 * `signBundle`: adds (or replaces) `lineup.sig.json` in a packed bundle. It signs only what it has
 * checked: the archive must be well formed and its files must match the file list, hashes
 * included. The other entries are copied as they are (compressed data untouched), so a bundle
 * signed twice with the same key is byte-identical (Ed25519 signatures are deterministic).
 */
import { fail, ok, type Result } from "@lineup/protocol";
import { hashListedFiles, matchFileList } from "./contents.js";
import { crc32 } from "./crc32.js";
import { ownedBytes } from "./digest.js";
import { anyDeflated, checkEntries, loadFflate, readEntry } from "./entries.js";
import { decodeFileList } from "./file-list.js";
import { DEFAULT_MAX_FILES, DEFAULT_MAX_UNPACKED_BYTES, FILE_LIST_PATH, MAX_FILE_LIST_BYTES, METHOD_STORED, SIGNATURE_PATH } from "./format.js";
import { encodeSignatureFile, importSigningKey, signBytes } from "./signature.js";
import { readZip } from "./zip-read.js";
import { writeZip, type ZipEntryToWrite } from "./zip-write.js";

/**
 * Signs a bundle with a PKCS #8 Ed25519 private key. Refusals: `invalid_params` (not such a key),
 * the archive and file-list codes of `verifyBundle`.
 */
export async function signBundle(bundle: Uint8Array, privateKey: Uint8Array): Promise<Result<Uint8Array>> {
  const signer = await importSigningKey(privateKey);
  if (!signer.ok) return signer;
  const archive = ownedBytes(bundle);
  const zip = readZip(archive, { maxEntries: DEFAULT_MAX_FILES });
  if (!zip.ok) return zip;
  const checked = checkEntries(zip.value, DEFAULT_MAX_UNPACKED_BYTES);
  if (!checked.ok) return checked;
  const listEntry = checked.value.get(FILE_LIST_PATH);
  if (listEntry === undefined) return fail("bundle_missing_file_list", `the archive has no ${FILE_LIST_PATH}`);
  if (listEntry.size > MAX_FILE_LIST_BYTES) return fail("bundle_file_list_malformed", `${FILE_LIST_PATH} is larger than ${MAX_FILE_LIST_BYTES} bytes`);
  if (anyDeflated(checked.value.values())) await loadFflate();
  const listBytes = readEntry(archive, listEntry);
  if (!listBytes.ok) return listBytes;
  const list = decodeFileList(listBytes.value, MAX_FILE_LIST_BYTES);
  if (!list.ok) return list;
  const matched = matchFileList(list.value, checked.value);
  if (!matched.ok) return matched;
  const contents = await hashListedFiles(archive, list.value, matched.value);
  if (!contents.ok) return contents;

  const signatureBytes = encodeSignatureFile(signer.value.keyId, await signBytes(signer.value.key, listBytes.value));
  const entries: ZipEntryToWrite[] = zip.value
    .filter((entry) => entry.path !== SIGNATURE_PATH)
    .map((entry) => ({
      path: entry.path,
      method: entry.method,
      crc32: entry.crc32,
      size: entry.size,
      data: archive.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize),
    }));
  entries.push({ path: SIGNATURE_PATH, method: METHOD_STORED, crc32: crc32(signatureBytes), size: signatureBytes.length, data: signatureBytes });
  return ok(writeZip(entries));
}
