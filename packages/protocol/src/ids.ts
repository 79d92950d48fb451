/**
 * Identifier grammars shared by every contract (spec 4.1, 5.1).
 *
 * - `app_scope`: a local short scope such as `chat`, `whiteboard`, `draw-and-guess`: lowercase
 *   ASCII words joined by single hyphens, 2–40 characters, starting with a letter. Not a vendor
 *   identity, not globally unique; it names an app on this device only.
 * - `runtime` is the reserved scope of the Runtime itself; `runtime:global` is the reserved
 *   conversation of Runtime-wide events and belongs to the `runtime` scope only. Every other
 *   conversation id starting with `runtime:` is reserved for future use and refused.
 * - Opaque ids (envelope id, conversation, instance, operation, call, message): 1–128 characters
 *   of `A–Z a–z 0–9 . _ : ~ -`, starting with a letter or digit.
 */

declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

export type AppScope = Brand<string, "AppScope">;
export type ConversationID = Brand<string, "ConversationID">;
export type AppInstanceID = Brand<string, "AppInstanceID">;
export type OperationID = Brand<string, "OperationID">;
export type ToolCallID = Brand<string, "ToolCallID">;

export const APP_SCOPE_PATTERN = "^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$";
export const APP_SCOPE_MIN_LENGTH = 2;
export const APP_SCOPE_MAX_LENGTH = 40;
export const OPAQUE_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._:~-]*$";
export const OPAQUE_ID_MAX_LENGTH = 128;
/** RFC 3339 date-time with an explicit offset. */
export const TIMESTAMP_PATTERN = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2})$";
/** Envelope types are dotted lowercase names: `lineup.tool.invoke`. */
export const ENVELOPE_TYPE_PATTERN = "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$";

export const RUNTIME_SCOPE = "runtime" as AppScope;
export const RUNTIME_GLOBAL_CONVERSATION = "runtime:global" as ConversationID;
/** Core apps ship with the host; installed bundles may not claim these scopes (spec 4.2). */
export const CORE_APP_SCOPES: readonly AppScope[] = ["chat", "app-registry", "settings"] as AppScope[];
/** Scopes no installed app may take. */
export const RESERVED_APP_SCOPES: ReadonlySet<string> = new Set([RUNTIME_SCOPE, ...CORE_APP_SCOPES]);

const appScopeRe = new RegExp(APP_SCOPE_PATTERN);
const opaqueIdRe = new RegExp(OPAQUE_ID_PATTERN);

/** True for any syntactically valid scope, including the reserved `runtime`. */
export function isAppScope(value: unknown): value is AppScope {
  return (
    typeof value === "string" &&
    value.length >= APP_SCOPE_MIN_LENGTH &&
    value.length <= APP_SCOPE_MAX_LENGTH &&
    appScopeRe.test(value)
  );
}

export function isOpaqueId(value: unknown): value is string {
  return typeof value === "string" && value.length >= 1 && value.length <= OPAQUE_ID_MAX_LENGTH && opaqueIdRe.test(value);
}

export function isConversationId(value: unknown): value is ConversationID {
  return isOpaqueId(value);
}

/**
 * Why a (scope, conversation) pair is not allowed, or undefined when it is.
 * Syntax is checked by the grammars above; this checks the reserved names.
 */
export function reservedScopeViolation(appScope: string, conversationId: string): string | undefined {
  if (conversationId.startsWith("runtime:")) {
    if (conversationId !== RUNTIME_GLOBAL_CONVERSATION) return `conversation id "${conversationId}" uses the reserved runtime: prefix`;
    if (appScope !== RUNTIME_SCOPE) return `conversation "runtime:global" belongs to the runtime scope, not "${appScope}"`;
  }
  return undefined;
}
