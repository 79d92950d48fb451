/**
 * Node helpers behind `lineup keygen | pack | sign | verify`: the file-system side of the bundle
 * format (docs/bundle.md §7). The format itself is in app-lifecycle/bundle/ and platform-neutral.
 *
 * Key files: `publisher.key` holds the PKCS #8 private key as PEM ("PRIVATE KEY", readable by
 * OpenSSL), written with mode 0600; `publisher.pub.json` holds the trusted-key entry
 * `{ key_id, public_key }` to copy into a Runtime's settings.
 */
import { lstat, mkdir, readdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { bytesToBase64, base64ToBytes, decodeJson, fail, ok, type Result } from "@lineup/protocol";
import {
  DEFAULT_MAX_BUNDLE_BYTES,
  generatePublisherKey,
  MANIFEST_PATH,
  packBundle,
  signBundle,
  verifyBundle,
  type PackBundleInput,
  type TrustedKey,
  type VerifiedBundle,
  type VerifyBundleOptions,
} from "../app-lifecycle/bundle/index.js";

export const PRIVATE_KEY_FILE = "publisher.key";
export const PUBLIC_KEY_FILE = "publisher.pub.json";

/**
 * Reads every regular file under `dir` into a map keyed by its `/`-separated relative path.
 * Symbolic links and other special files are refused (`bundle_unsafe_path`), never followed.
 */
export async function readDirectoryFiles(dir: string): Promise<Result<Map<string, Uint8Array>>> {
  const files = new Map<string, Uint8Array>();
  const walk = async (absolute: string, relative: string): Promise<Result<true>> => {
    for (const entry of (await readdir(absolute, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      const full = join(absolute, entry.name);
      if (entry.isDirectory()) {
        const inner = await walk(full, path);
        if (!inner.ok) return inner;
      } else if (entry.isFile()) {
        files.set(path, new Uint8Array(await readFile(full)));
      } else {
        return fail("bundle_unsafe_path", `${path} is ${entry.isSymbolicLink() ? "a symbolic link" : "not a regular file"}; bundles hold plain files only`);
      }
    }
    return ok(true);
  };
  const walked = await walk(dir, "");
  return walked.ok ? ok(files) : walked;
}

/** Writes a file atomically: to a temporary name beside it, then renamed over it. */
export async function writeBundleFile(path: string, bytes: Uint8Array, mode = 0o644): Promise<void> {
  const temporary = `${path}.tmp-${process.pid}`;
  await writeFile(temporary, bytes, { mode, flush: true });
  await rename(temporary, path);
}

function toPem(der: Uint8Array): string {
  const lines = bytesToBase64(der).match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join("\n")}\n-----END PRIVATE KEY-----\n`;
}

/** PEM "PRIVATE KEY" text or raw DER bytes → PKCS #8 DER. */
export function parsePrivateKey(contents: Uint8Array): Uint8Array | undefined {
  const text = new TextDecoder().decode(contents);
  const match = /-----BEGIN PRIVATE KEY-----([\s\S]*?)-----END PRIVATE KEY-----/.exec(text);
  if (match === null) return contents;
  return base64ToBytes(match[1]!.replace(/\s+/g, ""));
}

export interface KeygenFiles {
  readonly keyId: string;
  readonly trustedKey: TrustedKey;
  readonly privateKeyFile: string;
  readonly publicKeyFile: string;
}

/** Generates a publisher key into `dir` (created if needed). Refuses to overwrite an existing key (`invalid_params`). */
export async function keygenToFiles(dir: string): Promise<Result<KeygenFiles>> {
  await mkdir(dir, { recursive: true });
  const privateKeyFile = join(dir, PRIVATE_KEY_FILE);
  const publicKeyFile = join(dir, PUBLIC_KEY_FILE);
  if (await exists(privateKeyFile)) return fail("invalid_params", `${privateKeyFile} already exists; refusing to overwrite a publisher key`);
  const key = await generatePublisherKey();
  await writeBundleFile(privateKeyFile, new TextEncoder().encode(toPem(key.privateKey)), 0o600);
  await writeBundleFile(publicKeyFile, new TextEncoder().encode(`${JSON.stringify(key.trustedKey, null, 2)}\n`));
  return ok({ keyId: key.keyId, trustedKey: key.trustedKey, privateKeyFile, publicKeyFile });
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

export interface PackedFile {
  readonly file: string;
  readonly bytes: number;
  /** Files in the bundle, the manifest included. */
  readonly files: number;
}

/** Apps at least this large report each step of packing to `progress`. */
export const PACK_PROGRESS_MIN_BYTES = 1_048_576;

/**
 * Packs the app in `dir` (its `lineup.app.json` and every other file) into an unsigned bundle at
 * `outFile`. Refusals: `json_*` for the manifest's JSON, and those of `packBundle`. An app of
 * PACK_PROGRESS_MIN_BYTES or more tells `progress` what it is doing (compressing takes a while).
 */
export async function packDirectory(dir: string, outFile: string, options: Pick<PackBundleInput, "compression"> & { readonly progress?: (message: string) => void } = {}): Promise<Result<PackedFile>> {
  const { progress, ...packOptions } = options;
  const read = await readDirectoryFiles(dir);
  if (!read.ok) return read;
  const files = read.value;
  const inputBytes = [...files.values()].reduce((n, bytes) => n + bytes.length, 0);
  const report = progress !== undefined && inputBytes >= PACK_PROGRESS_MIN_BYTES ? progress : undefined;
  report?.(`read ${files.size} files (${inputBytes} bytes) from ${dir}; compressing…`);
  const manifestBytes = files.get(MANIFEST_PATH);
  if (manifestBytes === undefined) return fail("bundle_manifest_invalid", `${dir} has no ${MANIFEST_PATH}`);
  files.delete(MANIFEST_PATH);
  const manifest = decodeJson(manifestBytes);
  if (!manifest.ok) return fail("bundle_manifest_invalid", `${manifest.error.code}: ${manifest.error.message}`, manifest.error.path);
  const packed = await packBundle({ manifest: manifest.value, files, ...packOptions });
  if (!packed.ok) return packed;
  report?.(`compressed into ${packed.value.length} bytes; writing ${outFile}…`);
  await writeBundleFile(outFile, packed.value);
  return ok({ file: outFile, bytes: packed.value.length, files: files.size + 1 });
}

async function readBundle(bundleFile: string, maxBytes: number): Promise<Result<Uint8Array>> {
  const size = (await stat(bundleFile)).size;
  if (size > maxBytes) return fail("bundle_too_large", `${bundleFile} is ${size} bytes; the limit is ${maxBytes}`);
  return ok(new Uint8Array(await readFile(bundleFile)));
}

/** Signs `bundleFile` in place with the PKCS #8 key (PEM or DER) in `privateKeyFile`. */
export async function signFile(bundleFile: string, privateKeyFile: string): Promise<Result<{ readonly file: string; readonly bytes: number }>> {
  const key = parsePrivateKey(new Uint8Array(await readFile(privateKeyFile)));
  if (key === undefined) return fail("invalid_params", `${privateKeyFile} is not a PEM or DER private key`);
  const bundle = await readBundle(bundleFile, DEFAULT_MAX_BUNDLE_BYTES);
  if (!bundle.ok) return bundle;
  const signed = await signBundle(bundle.value, key);
  if (!signed.ok) return signed;
  await writeBundleFile(bundleFile, signed.value);
  return ok({ file: bundleFile, bytes: signed.value.length });
}

/**
 * Reads trusted keys from a JSON file: one `{ key_id, public_key }` entry (as keygen writes it),
 * an array of them, or `{ "trusted_keys": [...] }`. Refusals: `json_*`, `invalid_params`.
 */
export async function readTrustedKeys(file: string): Promise<Result<TrustedKey[]>> {
  const json = decodeJson(new Uint8Array(await readFile(file)));
  if (!json.ok) return json;
  const value = json.value;
  const list = Array.isArray(value) ? value : typeof value === "object" && value !== null && "trusted_keys" in value ? value["trusted_keys"] : [value];
  if (!Array.isArray(list)) return fail("invalid_params", `${file}: trusted_keys must be an array`);
  const keys: TrustedKey[] = [];
  for (const [i, entry] of list.entries()) {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry) || typeof entry["key_id"] !== "string" || typeof entry["public_key"] !== "string") {
      return fail("invalid_params", `${file}: entry ${i} is not { key_id, public_key }`);
    }
    keys.push({ key_id: entry["key_id"], public_key: entry["public_key"] });
  }
  return ok(keys);
}

/** Verifies `bundleFile` against the keys in `trustedKeysFile` (see `readTrustedKeys`). */
export async function verifyFile(bundleFile: string, trustedKeysFile: string, options: Omit<VerifyBundleOptions, "trustedKeys" | "archiveDigest"> = {}): Promise<Result<VerifiedBundle>> {
  const trustedKeys = await readTrustedKeys(trustedKeysFile);
  if (!trustedKeys.ok) return trustedKeys;
  const bundle = await readBundle(bundleFile, options.maxBytes ?? DEFAULT_MAX_BUNDLE_BYTES);
  if (!bundle.ok) return bundle;
  return verifyBundle(bundle.value, { ...options, trustedKeys: trustedKeys.value });
}
