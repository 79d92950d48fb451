/**
 * MiniApp session data, the pure core (spec 6.3). One JSON object per `app_scope + app_session_id`
 * with a revision:
 *
 * - empty is exactly `{ data: null, revision: 0 }`;
 * - `replace({ data, expected_revision })` follows the revision rule of `@lineup/protocol`
 *   (`nextSessionDataRevision`: only at the current revision, else `revision_conflict`; never merged);
 * - `data` must be a JSON object (checked with `checkJsonValue`: JSON-only values, no forbidden
 *   keys) within the size and depth quota, else `quota_exceeded` naming usage and limit.
 *
 * The Runtime does not know or check the MiniApp's business schema.
 */
import { checkJsonValue, nextSessionDataRevision, utf8ByteLength, MAX_SUPPORTED_DEPTH, type ErrorCode, type JsonObject, type ProtocolError, type Result } from "@lineup/protocol";

export interface SessionDataSnapshot {
  readonly data: JsonObject | null;
  readonly revision: number;
}

export const EMPTY_SESSION_DATA: SessionDataSnapshot = Object.freeze({ data: null, revision: 0 });

export interface SessionDataQuota {
  /** Largest serialized `data`, in UTF-8 bytes of its JSON text. */
  readonly maxBytes: number;
  /** Deepest nesting of objects and arrays (`{}` is 1). */
  readonly maxDepth: number;
}

/** The default per-session quota; a manifest's `storage.session_data_quota_bytes` may ask for another size. */
export const DEFAULT_SESSION_DATA_QUOTA: SessionDataQuota = { maxBytes: 256 * 1024, maxDepth: 32 };

/** A refusal with machine-readable detail: `quota_exceeded` carries usage and limit. */
export interface SessionDataError extends ProtocolError {
  readonly data?: { readonly usage: number; readonly limit: number; readonly unit: "bytes" | "depth" } | { readonly current_revision: number };
}

export interface ReplaceRequest {
  readonly data: unknown;
  readonly expected_revision: unknown;
}

function refuse(code: ErrorCode, message: string, data?: SessionDataError["data"], path?: string): { ok: false; error: SessionDataError } {
  return { ok: false, error: { code, message, ...(path === undefined ? {} : { path }), ...(data === undefined ? {} : { data }) } };
}

/** Depth of a value already known to be JSON, bounded: stops counting past `limit`. */
function depthOf(value: unknown, limit: number): number {
  let max = 0;
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    const d = depth + 1;
    if (d > max) max = d;
    if (max > limit) return max;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push({ node: child, depth: d });
  }
  return max;
}

/** The next snapshot, or the refusal. Pure; never throws. */
export function decideReplace(current: SessionDataSnapshot, request: ReplaceRequest, quota: SessionDataQuota = DEFAULT_SESSION_DATA_QUOTA): Result<SessionDataSnapshot, SessionDataError> {
  const expected = request.expected_revision;
  if (typeof expected !== "number" || !Number.isSafeInteger(expected) || expected < 0) {
    return refuse("invalid_params", "expected_revision must be a non-negative integer", undefined, "/expected_revision");
  }
  const data = request.data;
  if (typeof data !== "object" || data === null || Array.isArray(data)) return refuse("invalid_params", "data must be a JSON object", undefined, "/data");
  const depth = depthOf(data, quota.maxDepth);
  if (depth > quota.maxDepth) return refuse("quota_exceeded", `data nests deeper than ${quota.maxDepth}`, { usage: depth, limit: quota.maxDepth, unit: "depth" }, "/data");
  const json = checkJsonValue(data, { maxDepth: Math.min(MAX_SUPPORTED_DEPTH, quota.maxDepth + 1), maxBytes: Number.MAX_SAFE_INTEGER });
  if (!json.ok) return refuse(json.error.code, json.error.message, undefined, `/data${json.error.path ?? ""}`);
  const bytes = utf8ByteLength(JSON.stringify(json.value));
  if (bytes > quota.maxBytes) return refuse("quota_exceeded", `data is ${bytes} bytes; the quota is ${quota.maxBytes}`, { usage: bytes, limit: quota.maxBytes, unit: "bytes" }, "/data");
  const revision = nextSessionDataRevision(current.revision, expected);
  if (!revision.ok) return revision;
  return { ok: true, value: { data: json.value as JsonObject, revision: revision.value } };
}

/** Reads a stored snapshot back; anything unexpected counts as empty rather than crashing a reader. */
export function parseStoredSnapshot(value: unknown): SessionDataSnapshot {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return EMPTY_SESSION_DATA;
  const { data, revision } = value as { data?: unknown; revision?: unknown };
  if (typeof revision !== "number" || !Number.isSafeInteger(revision) || revision < 0) return EMPTY_SESSION_DATA;
  if (data === null) return { data: null, revision };
  if (typeof data !== "object" || data === undefined || Array.isArray(data)) return EMPTY_SESSION_DATA;
  return { data: data as JsonObject, revision };
}
