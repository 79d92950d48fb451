/**
 * App bundle format v1: the names, limits and fixed values every packer and verifier shares.
 * docs/bundle.md is the specification; this file is its constants.
 */

/** The manifest `lineup.app.v1`, a listed (hashed and signed) file like any other. */
export const MANIFEST_PATH = "lineup.app.json";
/** The signed list of every other file: path, size, SHA-256. Not listed in itself. */
export const FILE_LIST_PATH = "lineup.files.json";
/** The Ed25519 signature over the exact bytes of the file list. Not listed. */
export const SIGNATURE_PATH = "lineup.sig.json";

/** `format` of the file list. */
export const FILE_LIST_FORMAT = "lineup.files.v1";
/** `alg` of the signature file. */
export const SIGNATURE_ALG = "Ed25519";

/** Defaults of `verifyBundle`'s limits. */
export const DEFAULT_MAX_BUNDLE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_FILES = 4_096;
export const DEFAULT_MAX_UNPACKED_BYTES = 256 * 1024 * 1024;

/** Declared sizes above these are refused before the metadata entries are read. */
export const MAX_FILE_LIST_BYTES = 4 * 1024 * 1024;
export const MAX_SIGNATURE_BYTES = 4 * 1024;

/** Zip method numbers (APPNOTE 4.4.5): the only two a bundle may use. */
export const METHOD_STORED = 0;
export const METHOD_DEFLATE = 8;

/** DOS date of every entry: 1980-01-01 (the zip epoch), time 00:00:00. Fixed so packing is deterministic. */
export const DOS_DATE = 0x0021;
export const DOS_TIME = 0x0000;

/** "Version needed to extract" and "version made by" written (2.0, MS-DOS): deflate, no zip64. */
export const ZIP_VERSION = 20;
