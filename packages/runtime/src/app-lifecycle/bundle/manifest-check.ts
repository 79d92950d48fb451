/** The manifest inside a bundle, and whether this host can run the app it describes (docs/bundle.md §5). */
import { fail, ok, RUNTIME_SDK_API_VERSIONS, RUNTIME_SDK_FEATURES, type AppManifest, type Result } from "@lineup/protocol";
import { MANIFEST_PATH } from "./format.js";

/** What the host offers; both default to everything this Runtime implements. */
export interface HostCompatibility {
  readonly hostFeatures?: readonly string[];
  readonly apiVersions?: readonly string[];
}

/** Manifest codes that mean "valid, but not for this Runtime" become `bundle_incompatible`. */
const INCOMPATIBLE_MANIFEST_CODES: ReadonlySet<string> = new Set(["manifest_unsupported_api_version", "manifest_unknown_feature"]);

/**
 * Steps 14–15 of verification: the manifest is valid and its pages are in the bundle, and this
 * host can run it. Refusals: `bundle_manifest_invalid`, `bundle_incompatible`.
 */
export async function checkBundleManifest(files: ReadonlyMap<string, Uint8Array>, options: HostCompatibility): Promise<Result<AppManifest>> {
  const bytes = files.get(MANIFEST_PATH);
  if (bytes === undefined) return fail("bundle_manifest_invalid", `the bundle has no ${MANIFEST_PATH}`);
  const { decodeManifest } = await import("./manifest-validator.js");
  const decoded = decodeManifest(bytes);
  if (!decoded.ok) {
    const { code, message, path } = decoded.error;
    return fail(INCOMPATIBLE_MANIFEST_CODES.has(code) ? "bundle_incompatible" : "bundle_manifest_invalid", `${code}: ${message}`, path);
  }
  const manifest = decoded.value;
  for (const [i, entrypoint] of manifest.entrypoints.entries()) {
    const page = entrypoint.path ?? "index.html";
    if (!files.has(page)) return fail("bundle_manifest_invalid", `entrypoint "${entrypoint.id}" opens ${page}, which is not in the bundle`, `/entrypoints/${i}/path`);
  }
  const apiVersions = options.apiVersions ?? RUNTIME_SDK_API_VERSIONS;
  const sdk = manifest.runtime_sdk;
  if (!apiVersions.includes(sdk.api_version)) {
    return fail("bundle_incompatible", `the app needs Runtime SDK API ${sdk.api_version}; this host implements ${apiVersions.join(", ") || "none"}`, "/runtime_sdk/api_version");
  }
  const offered = new Set(options.hostFeatures ?? Object.keys(RUNTIME_SDK_FEATURES));
  for (const [i, feature] of sdk.required_features.entries()) {
    if (!offered.has(feature)) return fail("bundle_incompatible", `the app requires feature ${feature}, which this host does not offer`, `/runtime_sdk/required_features/${i}`);
  }
  return ok(manifest);
}
