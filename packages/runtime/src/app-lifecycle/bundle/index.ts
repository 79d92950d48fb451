/** App bundle format v1: pack, sign and verify (docs/bundle.md). Platform-neutral. */
export {
  MANIFEST_PATH,
  FILE_LIST_PATH,
  SIGNATURE_PATH,
  FILE_LIST_FORMAT,
  SIGNATURE_ALG,
  DEFAULT_MAX_BUNDLE_BYTES,
  DEFAULT_MAX_FILES,
  DEFAULT_MAX_UNPACKED_BYTES,
} from "./format.js";
export { unsafePathReason } from "./paths.js";
export type { BundleFileEntry } from "./file-list.js";
export { generatePublisherKey, keyIdOf, type PublisherKey, type TrustedKey, type SignatureFile } from "./signature.js";
export { packBundle, type PackBundleInput } from "./pack.js";
export { signBundle } from "./sign.js";
export { verifyBundle, type VerifyBundleOptions, type VerifiedBundle, type VerifiedBundleContents } from "./verify.js";
export { checkBundleManifest, type HostCompatibility } from "./manifest-check.js";
