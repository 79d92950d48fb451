/**
 * The one closed table of LineUp error codes.
 *
 * Every refusal anywhere in LineUp — envelope ingress, the Runtime filter chain, tool calls,
 * capabilities, session data, the App Server — carries one of these string codes. On a JSON-RPC
 * wire the code travels in `error.data.code` beside the numeric JSON-RPC `error.code` given here.
 * Codes are stable: they may be added, never renamed or reused. `docs/protocol.md` lists them all
 * (a test keeps the two in step).
 */
import { ERROR_CODE_NAMES } from "./generated/error-codes.js";

/** Standard JSON-RPC 2.0 codes plus LineUp's server-defined range (-32000 … -32099). */
export const JsonRpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** The peer is overloaded: its bounded queue is full. Retry later. */
  Overloaded: -32001,
  Unauthorized: -32002,
  Forbidden: -32003,
  NotFound: -32004,
  Conflict: -32005,
  /** A request before `initialize`, or a second `initialize`. */
  NotInitialized: -32006,
  /** The request was understood and refused by a LineUp rule (the data.code says which). */
  Refused: -32010,
  Timeout: -32011,
  Cancelled: -32012,
} as const;
export type JsonRpcCode = (typeof JsonRpcCode)[keyof typeof JsonRpcCode];

export type ErrorArea =
  | "json"
  | "envelope"
  | "filter"
  | "tool"
  | "capability"
  | "session_data"
  | "app"
  | "store"
  | "rpc"
  | "server"
  | "legacy"
  | "bridge"
  | "manifest"
  | "bundle";

export interface ErrorCodeInfo {
  readonly area: ErrorArea;
  /** JSON-RPC numeric code used when this error crosses a JSON-RPC wire. */
  readonly rpc: JsonRpcCode;
  /** True when the same request may succeed if simply retried later. */
  readonly retryable: boolean;
  readonly description: string;
}

// The table is built by a call marked pure: a bundle that names no part of it (isErrorCode reads
// the generated list of codes) leaves it out, descriptions and all.
const table = /* @__PURE__ */ (() => ({
  // --- Safe JSON ingress (every JSON entry point) ---
  json_malformed: { area: "json", rpc: JsonRpcCode.ParseError, retryable: false, description: "The text is not valid JSON (or not valid UTF-8)." },
  json_too_large: { area: "json", rpc: JsonRpcCode.InvalidRequest, retryable: false, description: "The message is larger than the size limit (default 256 KiB)." },
  json_too_deep: { area: "json", rpc: JsonRpcCode.InvalidRequest, retryable: false, description: "Arrays and objects nest deeper than the depth limit (default 64)." },
  json_forbidden_key: { area: "json", rpc: JsonRpcCode.InvalidRequest, retryable: false, description: "An object key decodes to `__proto__`, `constructor` or `prototype`." },

  // --- RuntimeEnvelope v1 ---
  envelope_unsupported_version: { area: "envelope", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "`v` is missing or is not a version this peer speaks (only 1)." },
  envelope_unknown_type: { area: "envelope", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "`type` is not in the envelope type registry." },
  envelope_schema_violation: { area: "envelope", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "A field of the envelope is missing, extra or of the wrong shape; `path` points at it." },
  scope_missing: { area: "envelope", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "A routable message lacks `scope.app_scope` or `scope.conversation_id`." },
  scope_invalid: { area: "envelope", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "An `app_scope` or id breaks its grammar, or a reserved scope/conversation is misused." },
  scope_mismatch: { area: "envelope", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "`target` and `scope` disagree (other app scope, other instance, runtime target for an app)." },
  sender_not_allowed: { area: "envelope", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "This sender kind may not send this envelope type (the three ingress paths stay distinct)." },
  correlation_missing: { area: "envelope", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "The type needs a correlation field (`call_id`, `inventory_revision`, `reply_to`) that is absent." },
  payload_invalid: { area: "envelope", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "The payload does not match the schema registered for the envelope type." },

  // --- Legacy lineup.v1 adapter ---
  legacy_unsupported_type: { area: "legacy", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "A legacy `lineup.v1.*` type with no mapping to RuntimeEnvelope." },
  legacy_unmappable: { area: "legacy", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "A legacy message whose fields cannot be mapped (no conversation, an `app.id` that names no local app scope, …)." },

  // --- Surface Bridge v1 (host ⇄ sandboxed app; method, event and params refusals reuse method_not_found / invalid_params) ---
  bridge_protocol_mismatch: { area: "bridge", rpc: JsonRpcCode.InvalidRequest, retryable: false, description: "Not a Surface Bridge v1 message: `bridge` is not `lineup.surface` or `v` is not 1. The receiver drops it and may log a debug event." },
  bridge_bad_nonce: { area: "bridge", rpc: JsonRpcCode.Forbidden, retryable: false, description: "The message's `nonce` is missing or is not the nonce of this surface instance; it is dropped unexecuted." },
  bridge_frame_invalid: { area: "bridge", rpc: JsonRpcCode.InvalidRequest, retryable: false, description: "The bridge frame is malformed: bad `kind` or `id`, a missing or extra frame key, or a response with both or neither of `result` and `error`; `path` points at it." },
  bridge_result_invalid: { area: "bridge", rpc: JsonRpcCode.InternalError, retryable: false, description: "A bridge response's `result` does not match the catalogue's result schema for the method it answers; `path` points at it." },

  // --- Runtime filter chain (spec 5.3) ---
  unknown_agent: { area: "filter", rpc: JsonRpcCode.Forbidden, retryable: false, description: "The sending agent is not the agent bound to the conversation." },
  conversation_unknown: { area: "filter", rpc: JsonRpcCode.NotFound, retryable: false, description: "The conversation is not known to this Runtime." },
  duplicate_message: { area: "filter", rpc: JsonRpcCode.Conflict, retryable: false, description: "An envelope with this `id` (or this sequence number) was already accepted." },
  out_of_order: { area: "filter", rpc: JsonRpcCode.Conflict, retryable: true, description: "A sequence number arrived ahead of a gap; the receiver resyncs from its cursor." },
  cursor_invalid: { area: "filter", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "A sync cursor that moves backwards or beyond what the server has." },
  not_owner: { area: "filter", rpc: JsonRpcCode.Forbidden, retryable: false, description: "The conversation, instance or operation does not belong to the sender or target." },
  not_subscribed: { area: "filter", rpc: JsonRpcCode.Refused, retryable: false, description: "The target app neither declared nor subscribed to this message type for this scope." },
  stale_inventory_revision: { area: "filter", rpc: JsonRpcCode.Conflict, retryable: false, description: "The call carries an old `inventory_revision`: refresh the inventory and call again." },
  inbox_full: { area: "filter", rpc: JsonRpcCode.Refused, retryable: true, description: "The target app already has its limit of messages waiting for its acknowledgement in this conversation; this one was not stored for it. Retry once the app has caught up." },

  // --- Tool calls (spec 7.3) ---
  cancelled_by_user: { area: "tool", rpc: JsonRpcCode.Cancelled, retryable: false, description: "The user cancelled the call or declined the request." },
  permission_denied: { area: "tool", rpc: JsonRpcCode.Forbidden, retryable: false, description: "The user or the system denied a permission the call needs." },
  app_disabled: { area: "tool", rpc: JsonRpcCode.Refused, retryable: false, description: "The target app is installed but disabled." },
  app_not_installed: { area: "tool", rpc: JsonRpcCode.NotFound, retryable: false, description: "No app with this `app_scope` is installed." },
  app_version_mismatch: { area: "tool", rpc: JsonRpcCode.Refused, retryable: false, description: "The tool's `contract_version` or the app's SDK version does not match what is installed." },
  tool_not_visible: { area: "tool", rpc: JsonRpcCode.NotFound, retryable: false, description: "The method is not in the current inventory for this agent and conversation." },
  invalid_arguments: { area: "tool", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "The arguments do not match the tool's input schema." },
  foreground_required: { area: "tool", rpc: JsonRpcCode.Refused, retryable: true, description: "The tool needs its app in the foreground and it could not be brought there." },
  operation_expired: { area: "tool", rpc: JsonRpcCode.Timeout, retryable: false, description: "The call or its operation passed its deadline before a result." },
  handler_failed: { area: "tool", rpc: JsonRpcCode.InternalError, retryable: false, description: "The app's handler failed or crashed; no result was produced." },
  invalid_result: { area: "tool", rpc: JsonRpcCode.InternalError, retryable: false, description: "The app's result does not match the tool's output schema; it was not delivered." },
  activation_failed: { area: "tool", rpc: JsonRpcCode.Refused, retryable: true, description: "The app needed for the call failed to start." },
  activation_cancelled: { area: "tool", rpc: JsonRpcCode.Cancelled, retryable: false, description: "Starting the app needed for the call was cancelled." },
  duplicate_call: { area: "tool", rpc: JsonRpcCode.Conflict, retryable: false, description: "A different call already used this `call_id`." },
  call_not_active: { area: "tool", rpc: JsonRpcCode.Conflict, retryable: false, description: "A progress, result or error names a call that is unknown or already has its one terminal outcome; the report was ignored." },

  // --- Capabilities (spec 6.3): the non-`completed` outcomes ---
  unsupported_on_host: { area: "capability", rpc: JsonRpcCode.Refused, retryable: false, description: "This host cannot provide the capability." },
  policy_denied: { area: "capability", rpc: JsonRpcCode.Forbidden, retryable: false, description: "A user or organisation policy forbids the request." },
  expired: { area: "capability", rpc: JsonRpcCode.Timeout, retryable: false, description: "The capability request expired before the user or host answered." },
  failed: { area: "capability", rpc: JsonRpcCode.InternalError, retryable: true, description: "The host failed to carry out the capability; no native detail is exposed." },
  capability_not_declared: { area: "capability", rpc: JsonRpcCode.Forbidden, retryable: false, description: "The app's manifest does not declare this capability." },
  rate_limited: { area: "capability", rpc: JsonRpcCode.Overloaded, retryable: true, description: "Too many requests in the current window." },

  // --- MiniApp session data (spec 6.3) ---
  revision_conflict: { area: "session_data", rpc: JsonRpcCode.Conflict, retryable: false, description: "`expected_revision` is not the current revision: read, then write again." },
  quota_exceeded: { area: "session_data", rpc: JsonRpcCode.Refused, retryable: false, description: "The write would exceed the per-app size or depth quota; `data` names usage and limit." },
  session_context_invalid: { area: "session_data", rpc: JsonRpcCode.Forbidden, retryable: false, description: "The SDK context is stale or does not own this app session." },

  // --- Apps and instances ---
  app_not_found: { area: "app", rpc: JsonRpcCode.NotFound, retryable: false, description: "No such app, instance or entrypoint." },
  app_protected: { area: "app", rpc: JsonRpcCode.Forbidden, retryable: false, description: "A core app cannot be overridden, disabled or removed." },
  app_already_installed: { area: "app", rpc: JsonRpcCode.Conflict, retryable: false, description: "An install names an `app_scope` that is already installed; offer the bundle as an update instead." },
  bundle_downgrade: { area: "app", rpc: JsonRpcCode.Refused, retryable: false, description: "A bundle offered as an update is not newer than the installed version; only an explicit, audited rollback goes back." },
  version_not_retained: { area: "app", rpc: JsonRpcCode.NotFound, retryable: false, description: "A rollback names a version that is not retained (or is the active one); nothing changed." },
  app_host_incompatible: { area: "app", rpc: JsonRpcCode.Refused, retryable: false, description: "Readiness failed: the app requires a Runtime SDK feature this host does not offer; nothing changed." },
  update_not_pending: { area: "app", rpc: JsonRpcCode.Conflict, retryable: false, description: "An approval or refusal names an update that is not waiting for approval (already decided or superseded)." },
  confirmation_required: { area: "app", rpc: JsonRpcCode.Refused, retryable: false, description: "Removing an app deletes its bundle and data, so it needs the user's explicit confirmation; nothing changed." },
  app_not_default_eligible: { area: "app", rpc: JsonRpcCode.Refused, retryable: false, description: "The app cannot be the default app: it is not enabled or has no default-eligible primary entrypoint." },
  illegal_transition: { area: "app", rpc: JsonRpcCode.Conflict, retryable: false, description: "The app instance cannot make this lifecycle transition from its current state (spec 4.4); nothing changed." },

  // --- Storage ---
  store_write_failed: { area: "store", rpc: JsonRpcCode.InternalError, retryable: true, description: "A durable write failed; nothing of the batch was applied." },
  store_quota_exceeded: { area: "store", rpc: JsonRpcCode.InternalError, retryable: false, description: "The device store is full; nothing of the batch was applied." },
  store_invalid_key: { area: "store", rpc: JsonRpcCode.InternalError, retryable: false, description: "A store key or range bound is not 1–512 printable ASCII characters; nothing was applied." },
  store_invalid_value: { area: "store", rpc: JsonRpcCode.InternalError, retryable: false, description: "A stored value is neither JSON nor bytes, or a query or schema is malformed; nothing was applied." },
  store_unknown_collection: { area: "store", rpc: JsonRpcCode.InternalError, retryable: false, description: "The collection is not declared by the store's schema; nothing was applied." },
  store_read_failed: { area: "store", rpc: JsonRpcCode.InternalError, retryable: true, description: "The store could not answer a read." },
  store_closed: { area: "store", rpc: JsonRpcCode.InternalError, retryable: false, description: "The store was closed by its owner or its platform." },
  store_corrupt: { area: "store", rpc: JsonRpcCode.InternalError, retryable: false, description: "The file or database is not a valid LineUp store." },
  store_migration_failed: { area: "store", rpc: JsonRpcCode.InternalError, retryable: false, description: "A schema migration failed, or the store was written by an unknown schema; the store stays at its last good step." },

  // --- JSON-RPC framing ---
  invalid_request: { area: "rpc", rpc: JsonRpcCode.InvalidRequest, retryable: false, description: "Not a valid JSON-RPC 2.0 request object." },
  method_not_found: { area: "rpc", rpc: JsonRpcCode.MethodNotFound, retryable: false, description: "The method is not in the catalogue for this role." },
  invalid_params: { area: "rpc", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "The params do not match the method's schema; `path` points at the first problem." },
  internal_error: { area: "rpc", rpc: JsonRpcCode.InternalError, retryable: true, description: "An unexpected failure; details are logged, never sent." },
  overloaded: { area: "rpc", rpc: JsonRpcCode.Overloaded, retryable: true, description: "The peer's bounded queue is full; retry after a pause." },
  request_timeout: { area: "rpc", rpc: JsonRpcCode.Timeout, retryable: true, description: "No response arrived within the request's timeout." },
  request_cancelled: { area: "rpc", rpc: JsonRpcCode.Cancelled, retryable: false, description: "The request was cancelled locally or the connection closed first." },

  // --- App Server ---
  not_initialized: { area: "server", rpc: JsonRpcCode.NotInitialized, retryable: false, description: "A request before `initialize` completed." },
  already_initialized: { area: "server", rpc: JsonRpcCode.NotInitialized, retryable: false, description: "A second `initialize` on the same connection." },
  unauthorized: { area: "server", rpc: JsonRpcCode.Unauthorized, retryable: false, description: "No token, or a token the server does not know." },
  forbidden: { area: "server", rpc: JsonRpcCode.Forbidden, retryable: false, description: "The caller's role or identity may not touch this session or resource." },
  session_not_found: { area: "server", rpc: JsonRpcCode.NotFound, retryable: false, description: "No such session visible to the caller." },
  not_found: { area: "server", rpc: JsonRpcCode.NotFound, retryable: false, description: "No such turn, action, artifact or other resource visible to the caller." },
  idempotency_conflict: { area: "server", rpc: JsonRpcCode.Conflict, retryable: false, description: "The idempotency key was used before with a different request body." },
  predecessor_pending: { area: "server", rpc: JsonRpcCode.Conflict, retryable: true, description: "The write names an earlier write of the caller (`after_key`) that has no stored outcome yet; nothing was stored: send it again once that write is answered." },
  message_too_large: { area: "server", rpc: JsonRpcCode.InvalidRequest, retryable: false, description: "A frame exceeded the connection's message size limit." },
  invalid_state: { area: "server", rpc: JsonRpcCode.Conflict, retryable: false, description: "The request does not fit the current state (cancel a finished turn, answer an answered action)." },
  evidence_invalid: { area: "server", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "An evidence pack fails verification: an event hash, the hash chain, the seq order, an artifact hash or the digest does not match; `path` points at the first problem." },

  // --- Manifest lineup.app.v1 ---
  manifest_invalid: { area: "manifest", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "The manifest does not match the `lineup.app.v1` schema; `path` points at the problem." },
  manifest_duplicate_tool: { area: "manifest", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "Two tools share one method name." },
  manifest_invalid_tool_schema: { area: "manifest", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "A tool's input or output schema, or an event's data schema, is not a JSON Schema (draft 2020-12) the Runtime accepts: invalid against the meta-schema, a `$ref` outside the schema, nesting deeper than 32, a bad pattern, or an unsupported keyword; `path` points at it." },
  manifest_unknown_entrypoint: { area: "manifest", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "A reference names an entrypoint the manifest does not define." },
  manifest_unknown_capability: { area: "manifest", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "A capability name that is not in the capability registry." },
  manifest_unknown_feature: { area: "manifest", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "A required runtime SDK feature that is not in the feature registry." },
  manifest_unsupported_api_version: { area: "manifest", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "`runtime_sdk.api_version` is not one this Runtime implements." },
  manifest_reserved_scope: { area: "manifest", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "An installed app claims a reserved or core app scope (`runtime`, `chat`, `app-registry`, `settings`)." },

  // --- App bundle v1 (docs/bundle.md): one code per verification step, in the order they are checked ---
  bundle_too_large: { area: "bundle", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "The bundle archive is larger than the size limit (default 64 MiB); nothing of it was read." },
  bundle_not_archive: { area: "bundle", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "Not a zip archive in the bundle profile: no end record at the very end, truncated, a comment, zip64, encryption, data descriptors, a method other than stored or deflate, a gap or overlap between entries, or a local header that disagrees with the central directory." },
  bundle_too_many_files: { area: "bundle", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "The archive has more entries than the limit (default 4,096)." },
  bundle_unsafe_path: { area: "bundle", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "An entry is not a plain file at a safe relative path: `..` or `.` segments, an absolute path, a backslash, a drive letter, NUL or another character outside the path grammar, a hidden or device name, a directory or a symbolic link entry; `path` is `/entries/<index>`." },
  bundle_duplicate_path: { area: "bundle", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "Two entries have the same path, compared without regard to ASCII case." },
  bundle_unpacked_too_large: { area: "bundle", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "The declared uncompressed sizes add up to more than the unpacked limit (default 256 MiB): refused before anything is inflated (zip bomb guard)." },
  bundle_missing_file_list: { area: "bundle", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "The archive has no `lineup.files.json`." },
  bundle_missing_signature: { area: "bundle", rpc: JsonRpcCode.Forbidden, retryable: false, description: "The archive has no `lineup.sig.json`: an unsigned bundle never runs." },
  bundle_signature_malformed: { area: "bundle", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "`lineup.sig.json` is not `{alg: \"Ed25519\", key_id, signature}` with a 64-hex key id and a base64 64-byte signature." },
  bundle_untrusted_key: { area: "bundle", rpc: JsonRpcCode.Forbidden, retryable: false, description: "The signature's `key_id` is not one of the publisher keys this Runtime trusts." },
  bundle_bad_signature: { area: "bundle", rpc: JsonRpcCode.Forbidden, retryable: false, description: "The Ed25519 signature does not verify over the exact bytes of `lineup.files.json` with the trusted key." },
  bundle_file_list_malformed: { area: "bundle", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "The signed `lineup.files.json` is not a canonical `lineup.files.v1` list (shape, path grammar, order, duplicates or byte-exact serialization); `path` points into it." },
  bundle_file_list_mismatch: { area: "bundle", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "The archive's files differ from the signed list: a file added, missing, or of another size; `path` is `/files/<index>` or `/entries/<index>`." },
  bundle_entry_corrupt: { area: "bundle", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "A deflated entry does not inflate to exactly its declared size (corrupt data, or more output than declared)." },
  bundle_hash_mismatch: { area: "bundle", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "A file's SHA-256 differs from the signed list; `path` is `/files/<index>`." },
  bundle_manifest_invalid: { area: "bundle", rpc: JsonRpcCode.InvalidParams, retryable: false, description: "`lineup.app.json` is missing or fails manifest validation (the manifest's own code leads the message, `path` points into it), or an entrypoint's page is not in the bundle." },
  bundle_incompatible: { area: "bundle", rpc: JsonRpcCode.Refused, retryable: false, description: "The bundle is valid but this host cannot run it: its `runtime_sdk.api_version` or a required feature is not offered here." },
}) as const satisfies Record<string, ErrorCodeInfo>)();

export type ErrorCode = keyof typeof table;

/** The whole table, for documentation and for tests that walk every code. */
export const ERROR_CODES: Readonly<Record<ErrorCode, ErrorCodeInfo>> = table;

/** The codes alone (generated from the table by `npm run gen`): a bundle that only recognises codes carries no descriptions. */
const codes: ReadonlySet<string> = /* @__PURE__ */ new Set(ERROR_CODE_NAMES);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && codes.has(value);
}

/** A refusal as data: what every validator and decoder returns instead of throwing. */
export interface ProtocolError {
  readonly code: ErrorCode;
  readonly message: string;
  /** JSON Pointer (RFC 6901) to the offending part of the input, when there is one. */
  readonly path?: string;
}

export type Result<T, E = ProtocolError> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function fail(code: ErrorCode, message: string, path?: string): { ok: false; error: ProtocolError } {
  return { ok: false, error: path === undefined ? { code, message } : { code, message, path } };
}

/** An Error that carries a LineUp code; what local APIs throw or reject with. */
export class LineUpError extends Error {
  readonly code: ErrorCode;
  readonly path: string | undefined;
  readonly data: Readonly<Record<string, unknown>> | undefined;
  constructor(code: ErrorCode, message: string, options?: { path?: string; data?: Record<string, unknown>; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "LineUpError";
    this.code = code;
    this.path = options?.path;
    this.data = options?.data;
  }
  toProtocolError(): ProtocolError {
    return this.path === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, path: this.path };
  }
}
