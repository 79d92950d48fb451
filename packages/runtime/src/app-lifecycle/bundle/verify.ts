/**
 * `verifyBundle`: every check of docs/bundle.md §5, in its order, each refusal with its own code.
 * Nothing from the archive is executed or interpreted beyond the JSON of its three metadata
 * files; the result is data — the manifest, the files as bytes, the signed list, who signed it
 * and the archive's SHA-256 — for the package pipeline's next steps (projection, readiness,
 * authorization). Never throws.
 *
 * The bytes are the caller's and are not copied: they must not change during verification or
 * while the returned files (views into them, for stored entries) are in use.
 */
import { fail, ok, type AppManifest, type ProtocolError, type Result } from "@lineup/protocol";
import { hashListedFiles, matchFileList } from "./contents.js";
import { ownedBytes, sha256Hex } from "./digest.js";
import { anyDeflated, checkEntries, loadFflate, readEntry } from "./entries.js";
import { checkBundleManifest } from "./manifest-check.js";
import { decodeFileList, type BundleFileEntry } from "./file-list.js";
import {
  DEFAULT_MAX_BUNDLE_BYTES,
  DEFAULT_MAX_FILES,
  DEFAULT_MAX_UNPACKED_BYTES,
  FILE_LIST_PATH,
  MAX_FILE_LIST_BYTES,
  MAX_SIGNATURE_BYTES,
  SIGNATURE_PATH,
} from "./format.js";
import { checkKeyBindings, checkTrustedKeys, decodeSignatureFile, verifySignature, type TrustedKey } from "./signature.js";
import { readZip, type ZipEntry } from "./zip-read.js";

export interface VerifyBundleOptions {
  /** The publisher keys this Runtime trusts (its settings). A bundle signed by any other key is refused. */
  readonly trustedKeys: readonly TrustedKey[];
  /** Largest accepted archive in bytes, checked before anything is read. Default 64 MiB. */
  readonly maxBytes?: number;
  /** Most entries an archive may have (metadata files included). Default 4,096. */
  readonly maxFiles?: number;
  /** Largest total of declared uncompressed sizes. Default 256 MiB. */
  readonly maxUnpackedBytes?: number;
  /** Runtime SDK features this host offers. Default: every feature of `RUNTIME_SDK_FEATURES`. */
  readonly hostFeatures?: readonly string[];
  /** Runtime SDK API versions this host implements. Default `RUNTIME_SDK_API_VERSIONS`. */
  readonly apiVersions?: readonly string[];
  /**
   * Whether to compute the archive's own SHA-256 (`sha256`), a second full pass over the bytes.
   * Default true. Re-verifying a bundle already stored under its name (before each launch) has
   * no use for it: pass false, and the result has no `sha256`.
   */
  readonly archiveDigest?: boolean;
}

/** What a verified bundle holds: everything of `VerifiedBundle` but the archive's own digest. */
export interface VerifiedBundleContents {
  readonly manifest: AppManifest;
  /** Every listed file (the manifest included) by path, uncompressed. */
  readonly files: ReadonlyMap<string, Uint8Array>;
  /** The signed list, in its order. */
  readonly fileList: readonly BundleFileEntry[];
  /** The `key_id` of the trusted publisher key that signed the list. */
  readonly keyId: string;
  /**
   * Lowercase hex SHA-256 of the exact bytes of `lineup.files.json`: the identity of the signed
   * content, the same however the archive was compressed or by which trusted key it was signed.
   */
  readonly fileListSha256: string;
  /** Size of the archive in bytes. */
  readonly size: number;
}

/** A bundle that passed every check. */
export interface VerifiedBundle extends VerifiedBundleContents {
  /** Lowercase hex SHA-256 of the whole archive: the artifact's identity (a download, a cache file). */
  readonly sha256: string;
}

type Refusal = { ok: false; error: ProtocolError };

/** Reads a metadata entry whose declared size is bounded before it is inflated. */
function readSmallEntry(archive: Uint8Array, entry: ZipEntry, limit: number, tooBig: Refusal): Result<Uint8Array> {
  if (entry.size > limit) return tooBig;
  return readEntry(archive, entry);
}

export function verifyBundle(input: Uint8Array, options: VerifyBundleOptions & { readonly archiveDigest: false }): Promise<Result<VerifiedBundleContents>>;
export function verifyBundle(input: Uint8Array, options: VerifyBundleOptions & { readonly archiveDigest?: true }): Promise<Result<VerifiedBundle>>;
export function verifyBundle(input: Uint8Array, options: VerifyBundleOptions): Promise<Result<VerifiedBundleContents & { readonly sha256?: string }>>;
export function verifyBundle(input: Uint8Array, options: VerifyBundleOptions): Promise<Result<VerifiedBundleContents & { readonly sha256?: string }>> {
  return verify(input, options);
}

async function verify(input: Uint8Array, options: VerifyBundleOptions): Promise<Result<VerifiedBundleContents & { readonly sha256?: string }>> {
  const trusted = checkTrustedKeys(options.trustedKeys);
  if (!trusted.ok) return trusted;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BUNDLE_BYTES;
  if (input.length > maxBytes) return fail("bundle_too_large", `the bundle is ${input.length} bytes; the limit is ${maxBytes}`);
  const archive = ownedBytes(input);
  // Asynchronous checks start as soon as their inputs exist and are awaited in the documented
  // order, so the refusal is always the first failing step while the slow digests overlap.
  const bindings = checkKeyBindings(trusted.value);

  const zip = readZip(archive, { maxEntries: options.maxFiles ?? DEFAULT_MAX_FILES });
  if (!zip.ok) return zip;
  const checked = checkEntries(zip.value, options.maxUnpackedBytes ?? DEFAULT_MAX_UNPACKED_BYTES);
  if (!checked.ok) return checked;
  const entries = checked.value;
  if (anyDeflated(entries.values())) await loadFflate();

  const listEntry = entries.get(FILE_LIST_PATH);
  if (listEntry === undefined) return fail("bundle_missing_file_list", `the archive has no ${FILE_LIST_PATH}`);
  const signatureEntry = entries.get(SIGNATURE_PATH);
  if (signatureEntry === undefined) return fail("bundle_missing_signature", `the archive has no ${SIGNATURE_PATH}: it is not signed`);

  const signatureBytes = readSmallEntry(archive, signatureEntry, MAX_SIGNATURE_BYTES, fail("bundle_signature_malformed", `${SIGNATURE_PATH} is larger than ${MAX_SIGNATURE_BYTES} bytes`));
  if (!signatureBytes.ok) return signatureBytes;
  const signature = decodeSignatureFile(signatureBytes.value);
  if (!signature.ok) return signature;
  const keyId = signature.value.file.key_id;
  const publicKey = trusted.value.get(keyId);
  const listBytes = readSmallEntry(archive, listEntry, MAX_FILE_LIST_BYTES, fail("bundle_file_list_malformed", `${FILE_LIST_PATH} is larger than ${MAX_FILE_LIST_BYTES} bytes`));

  // Once the bundle names a trusted signer, the digests start at once, before the signature is
  // known to be good: the archive's own hash (if asked for), the signature, and every stored
  // file's hash — work bounded by the archive's size. Deflated files are inflated only once the
  // signature holds. Results are looked at in the documented order.
  let archiveHash: Promise<Result<string>> | undefined;
  let signatureValid: Promise<boolean> | undefined;
  let list: Result<BundleFileEntry[]> | undefined;
  let matched: Result<ZipEntry[]> | undefined;
  let contents: Promise<Result<Map<string, Uint8Array>>> | undefined;
  let listHash: Promise<Result<string>> | undefined;
  if (publicKey !== undefined && listBytes.ok) {
    if (options.archiveDigest !== false) {
      archiveHash = sha256Hex(archive).then(
        (hex): Result<string> => ok(hex),
        (error: unknown): Result<string> => fail("internal_error", `SHA-256 failed: ${String(error)}`),
      );
    }
    signatureValid = verifySignature(publicKey.raw, signature.value.signature, listBytes.value);
    listHash = sha256Hex(listBytes.value).then(
      (hex): Result<string> => ok(hex),
      (error: unknown): Result<string> => fail("internal_error", `SHA-256 failed: ${String(error)}`),
    );
    list = decodeFileList(listBytes.value, MAX_FILE_LIST_BYTES);
    if (list.ok) matched = matchFileList(list.value, entries);
    if (list.ok && matched?.ok === true) contents = hashListedFiles(archive, list.value, matched.value, signatureValid);
  }

  const bound = await bindings;
  if (!bound.ok) return bound;
  if (publicKey === undefined) return fail("bundle_untrusted_key", `the bundle is signed by key ${keyId}, which is not trusted here`, "/key_id");
  if (!listBytes.ok) return listBytes;
  if (signatureValid === undefined || !(await signatureValid)) {
    return fail("bundle_bad_signature", `the signature does not verify over ${FILE_LIST_PATH} with key ${keyId}`);
  }
  if (list === undefined || !list.ok) return list ?? fail("internal_error", "file list not decoded");
  if (matched === undefined || !matched.ok) return matched ?? fail("internal_error", "file list not matched");
  const files = await (contents ?? Promise.resolve(fail("internal_error", "files not hashed")));
  if (!files.ok) return files;

  const manifest = await checkBundleManifest(files.value, options);
  if (!manifest.ok) return manifest;
  const fileListSha256 = await (listHash ?? Promise.resolve(fail("internal_error", "file list not hashed")));
  if (!fileListSha256.ok) return fileListSha256;
  const contentsOnly: VerifiedBundleContents = {
    manifest: manifest.value,
    files: files.value,
    fileList: list.value,
    keyId,
    fileListSha256: fileListSha256.value,
    size: archive.length,
  };
  if (archiveHash === undefined) return ok(contentsOnly);
  const sha256 = await archiveHash;
  return sha256.ok ? ok({ ...contentsOnly, sha256: sha256.value }) : sha256;
}
