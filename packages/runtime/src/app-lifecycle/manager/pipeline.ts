/**
 * The checks a bundle passes before any of its code can run (spec 003): verify → projection →
 * readiness → authorization. Pure; the bundle verifier (hashes, signature, size) runs before and
 * hands its outcome in, so this module never touches bytes or keys.
 */
import {
  CORE_APP_SCOPES,
  projectManifest,
  type AppManifest,
  type BackendProtocol,
  type ErrorCode,
  type ExecutionMode,
  type ManifestProjection,
  type ProtocolError,
} from "@lineup/protocol";
import type { AppOperationStepName } from "./operation.js";

/** A bundle the bundle verifier has looked at. */
export interface BundleCandidate {
  /**
   * The manifest as the bundle verifier checked it (`validateManifest`, installed-app rules); absent when
   * verification failed. The pipeline does not check it again: it runs in the Runtime's loop, and the whole
   * manifest's validator is loaded only where bundles are read.
   */
  readonly manifest: AppManifest | undefined;
  /** Digest of the bundle's signed file list; names the bundle in storage. */
  readonly bundle_digest: string;
  /** The `key_id` of the trusted publisher key that signed it (absent when verification failed). */
  readonly publisher_key_id?: string;
  /** The verifier's outcome (source, size, hashes, signature); a refusal keeps its distinct code. */
  readonly verification: { readonly ok: true } | { readonly ok: false; readonly error: ProtocolError };
}

/** What this host offers apps: the Runtime SDK features it implements. */
export interface HostEnvironment {
  readonly features: readonly string[];
  /** The back-end protocols this host can run (`wasm`, `stdio-jsonrpc`, `remote-http`). Default: none. */
  readonly backend_protocols?: readonly BackendProtocol[];
}

/** A user or organisation policy over apps. */
export interface AppPolicy {
  readonly blocked_apps?: readonly string[];
  /** When set, only these apps can be installed or updated (a tenant's app allowlist). */
  readonly allowed_apps?: readonly string[];
  /** An app declaring any of these cannot be installed or updated. */
  readonly blocked_capabilities?: readonly string[];
  /** An app whose `execution.mode` is one of these cannot be installed or updated (a tenant that keeps data on its devices blocks `server-assisted`). */
  readonly blocked_execution_modes?: readonly ExecutionMode[];
  /**
   * Apps whose MCP servers may ask the host's model (`sampling/createMessage`, through `RuntimeOptions.mcpSampler`).
   * Default none: every app's server is refused `policy_denied`.
   */
  readonly mcp_sampling_apps?: readonly string[];
}

/** The signing key of a verified candidate, as a retained version records it. */
export function publisherOf(candidate: BundleCandidate): { readonly publisher_key_id?: string } {
  return candidate.publisher_key_id === undefined ? {} : { publisher_key_id: candidate.publisher_key_id };
}

export const PIPELINE_STEPS: readonly AppOperationStepName[] = ["verify", "projection", "readiness", "authorization", "enable"];

export type PipelineOutcome =
  | { readonly ok: true; readonly manifest: AppManifest; readonly projection: ManifestProjection }
  | { readonly ok: false; readonly step: AppOperationStepName; readonly code: ErrorCode; readonly message: string; readonly path?: string; readonly projection?: ManifestProjection };

/**
 * What this host lacks to run the app — a required Runtime SDK feature, or a back-end protocol it
 * cannot run (optional back-ends excepted) — with the manifest path; undefined when nothing is missing.
 */
export function hostShortfall(manifest: AppManifest, host: HostEnvironment): { readonly message: string; readonly path: string } | undefined {
  const offered = new Set(host.features);
  const missing = manifest.runtime_sdk.required_features.filter((f) => !offered.has(f));
  if (missing.length > 0) return { message: `this host does not offer ${missing.join(", ")}`, path: "/runtime_sdk/required_features" };
  const protocols = new Set(host.backend_protocols ?? []);
  const unrunnable = (manifest.backends ?? []).findIndex((b) => b.optional !== true && !protocols.has(b.protocol));
  if (unrunnable < 0) return undefined;
  const backend = manifest.backends![unrunnable]!;
  return { message: `this host cannot run the ${backend.protocol} back-end "${backend.id}"`, path: `/backends/${unrunnable}/protocol` };
}

function scopeOf(manifest: unknown): string | undefined {
  if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest)) return undefined;
  const scope = (manifest as Record<string, unknown>)["app_scope"];
  return typeof scope === "string" ? scope : undefined;
}

/**
 * Runs verify, projection, readiness and the policy half of authorization. `coreScopes` are the
 * scopes of core apps in the registry (plus the built-in core scopes): a bundle may never take one.
 */
export function checkCandidate(candidate: BundleCandidate, host: HostEnvironment, policy: AppPolicy, coreScopes: ReadonlySet<string>): PipelineOutcome {
  const claimed = scopeOf(candidate.manifest);
  if (claimed !== undefined && (coreScopes.has(claimed) || (CORE_APP_SCOPES as readonly string[]).includes(claimed))) {
    return { ok: false, step: "verify", code: "app_protected", message: `"${claimed}" is a core app; a bundle cannot override it`, path: "/app_scope" };
  }
  if (!candidate.verification.ok) {
    const e = candidate.verification.error;
    return { ok: false, step: "verify", code: e.code, message: e.message, ...(e.path === undefined ? {} : { path: e.path }) };
  }
  const manifest = candidate.manifest;
  if (manifest === undefined) return { ok: false, step: "verify", code: "bundle_manifest_invalid", message: "the bundle's manifest was not verified" };
  const projection = projectManifest(manifest);
  const shortfall = hostShortfall(manifest, host);
  if (shortfall !== undefined) return { ok: false, step: "readiness", code: "app_host_incompatible", ...shortfall, projection };
  if (policy.allowed_apps !== undefined && !policy.allowed_apps.includes(manifest.app_scope)) {
    return { ok: false, step: "authorization", code: "policy_denied", message: `the app "${manifest.app_scope}" is not in the allowlist of this device's tenant`, projection };
  }
  if ((policy.blocked_apps ?? []).includes(manifest.app_scope)) {
    return { ok: false, step: "authorization", code: "policy_denied", message: `policy does not allow the app "${manifest.app_scope}"`, projection };
  }
  const blocked = new Set(policy.blocked_capabilities ?? []);
  const denied = projection.capabilities.find((c) => blocked.has(c.name));
  if (denied !== undefined) {
    return { ok: false, step: "authorization", code: "policy_denied", message: `policy does not allow the capability ${denied.name}`, projection };
  }
  if ((policy.blocked_execution_modes ?? []).includes(projection.execution.mode)) {
    const hosts = projection.execution.endpoints.map((e) => e.host).join(", ");
    return { ok: false, step: "authorization", code: "policy_denied", message: `policy does not allow ${projection.execution.mode} apps${hosts === "" ? "" : ` (it sends data to ${hosts})`}`, path: "/execution/mode", projection };
  }
  return { ok: true, manifest, projection };
}

/** Core scopes known to the registry. */
export function coreScopesOf(apps: Readonly<Record<string, { readonly record: { readonly kind: string; readonly app_scope: string } }>>): ReadonlySet<string> {
  return new Set(Object.values(apps).filter((a) => a.record.kind === "core").map((a) => a.record.app_scope));
}
