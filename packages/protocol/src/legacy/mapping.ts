/**
 * The frozen legacy `lineup.v1.*` → RuntimeEnvelope v1 mapping table (spec 5.2, R0).
 *
 * This is data, not only code: `adapter.ts` and `reverse.ts` follow it, `docs/protocol.md` prints
 * it, and tests check that the three agree. A legacy type is either mapped (`LEGACY_MAPPINGS`) or
 * refused with a stated reason (`LEGACY_REFUSED_TYPES`); any other `lineup.v1.*` type is refused
 * with `legacy_unsupported_type`. Nothing is guessed: a field the table does not fill stays empty,
 * and a value the table cannot place is refused.
 */
import type { ErrorCode } from "../errors.js";
import type { SenderKind, TargetKind } from "../envelope/schemas.js";
import type { EnvelopeType } from "../envelope/terms.js";
import type { LegacyRole, LegacyType } from "./schemas.js";

/** How `sender` is filled: from the legacy `from` (role through `LEGACY_ROLE_TO_SENDER`), or as the app itself. */
export type LegacySenderRule = "from" | "app";

export interface LegacyMapping {
  readonly legacy_type: LegacyType;
  readonly envelope_type: EnvelopeType;
  /** Legacy `from.role` values accepted; any other role is refused with `sender_not_allowed`. */
  readonly roles: readonly LegacyRole[];
  readonly sender: LegacySenderRule;
  /** `app`: `{ kind: "app", app_scope: <resolved scope>, instance_id? }`; `runtime`: `{ kind: "runtime", app_scope: "runtime" }`. */
  readonly target: TargetKind;
  /** Whether `payload.app.id` may be absent (then the scope is `chat`) or must be present. */
  readonly app_id: "optional" | "required";
  /** Legacy field → envelope field, for fields outside the common frame rules. */
  readonly fields: Readonly<Record<string, string>>;
  /** True when `toLegacy` answers a legacy peer with this type (see `LEGACY_REVERSE`). */
  readonly reversible: boolean;
}

const row = (m: LegacyMapping): LegacyMapping => m;

/** Legacy `from.role` → envelope `sender.kind`. `system` was the Tauri client itself, now the Runtime. */
export const LEGACY_ROLE_TO_SENDER: Readonly<Record<LegacyRole, SenderKind>> = { agent: "agent", user: "user", system: "runtime" };

/** Envelope `sender.kind` → legacy `from.role`, for reverse mapping. An app speaks as the local `system`; a host never answers a legacy peer. */
export const LEGACY_SENDER_TO_ROLE: Readonly<Partial<Record<SenderKind, LegacyRole>>> = { agent: "agent", user: "user", runtime: "system", app: "system" };

export const LEGACY_MAPPINGS = {
  "lineup.v1.message": row({
    legacy_type: "lineup.v1.message", envelope_type: "lineup.message", roles: ["agent", "user", "system"], sender: "from", target: "app", app_id: "optional",
    fields: { "payload.format (absent → \"text\")": "payload.format", "payload.text": "payload.text" },
    reversible: true,
  }),
  "lineup.v1.status": row({
    legacy_type: "lineup.v1.status", envelope_type: "lineup.status", roles: ["agent"], sender: "from", target: "app", app_id: "optional",
    fields: { "payload.state (waiting → waiting_for_user)": "payload.state", "payload.text": "payload.label" },
    reversible: false,
  }),
  "lineup.v1.task.progress": row({
    legacy_type: "lineup.v1.task.progress", envelope_type: "lineup.task.progress", roles: ["agent"], sender: "from", target: "app", app_id: "optional",
    fields: { "payload.task_id": "payload.task_id", "payload.title": "payload.title", "payload.status (done → completed)": "payload.state", "payload.percent (÷ 100)": "payload.progress", "payload.detail": "payload.detail" },
    reversible: false,
  }),
  "lineup.v1.choice": row({
    legacy_type: "lineup.v1.choice", envelope_type: "lineup.interaction.request", roles: ["agent"], sender: "from", target: "app", app_id: "optional",
    fields: { "(kind)": "payload.kind = \"choice\"", "payload.interaction_id": "payload.interaction_id", "payload.prompt": "payload.prompt", "payload.options": "payload.options", "payload.multiple": "payload.multiple", "payload.expires_at (ms → RFC 3339)": "payload.expires_at" },
    reversible: false,
  }),
  "lineup.v1.confirm": row({
    legacy_type: "lineup.v1.confirm", envelope_type: "lineup.interaction.request", roles: ["agent"], sender: "from", target: "app", app_id: "optional",
    fields: { "(kind)": "payload.kind = \"confirm\"", "payload.interaction_id": "payload.interaction_id", "payload.prompt": "payload.prompt", "payload.confirm_label": "payload.confirm_label", "payload.cancel_label": "payload.cancel_label", "payload.expires_at (ms → RFC 3339)": "payload.expires_at" },
    reversible: false,
  }),
  "lineup.v1.input": row({
    legacy_type: "lineup.v1.input", envelope_type: "lineup.interaction.request", roles: ["agent"], sender: "from", target: "app", app_id: "optional",
    fields: { "(kind)": "payload.kind = \"input\"", "payload.interaction_id": "payload.interaction_id", "payload.prompt": "payload.prompt", "payload.placeholder": "payload.placeholder", "payload.multiline": "payload.multiline", "payload.max_length": "payload.max_length", "payload.expires_at (ms → RFC 3339)": "payload.expires_at" },
    reversible: false,
  }),
  "lineup.v1.interaction.response": row({
    legacy_type: "lineup.v1.interaction.response", envelope_type: "lineup.interaction.response", roles: ["user"], sender: "from", target: "runtime", app_id: "optional",
    fields: { "payload.interaction_id": "payload.interaction_id", "payload.cancelled = true (no value)": "payload.outcome = \"cancelled\"", "payload.value: string[]": "payload.outcome = \"answered\", payload.choice_ids", "payload.value: boolean": "payload.outcome = \"answered\", payload.confirmed", "payload.value: string": "payload.outcome = \"answered\", payload.text" },
    reversible: true,
  }),
  "lineup.v1.tool.call": row({
    legacy_type: "lineup.v1.tool.call", envelope_type: "lineup.tool.invoke", roles: ["agent"], sender: "from", target: "runtime", app_id: "optional",
    fields: { "payload.call_id": "correlation.call_id", "payload.inventory_revision (absent → correlation_missing)": "correlation.inventory_revision", "payload.name": "payload.method", "payload.arguments": "payload.arguments", "payload.timeout_ms": "payload.timeout_ms", "payload.instance_id": "scope.instance_id" },
    reversible: false,
  }),
  "lineup.v1.tool.result": row({
    legacy_type: "lineup.v1.tool.result", envelope_type: "lineup.tool.result", roles: ["system"], sender: "from", target: "runtime", app_id: "optional",
    fields: { "payload.call_id": "correlation.call_id", "payload.result": "payload.result" },
    reversible: true,
  }),
  "lineup.v1.tool.error": row({
    legacy_type: "lineup.v1.tool.error", envelope_type: "lineup.tool.error", roles: ["system"], sender: "from", target: "runtime", app_id: "optional",
    fields: { "payload.call_id": "correlation.call_id", "payload.code": "payload.code", "payload.message": "payload.message" },
    reversible: true,
  }),
  "lineup.v1.surface.state": row({
    legacy_type: "lineup.v1.surface.state", envelope_type: "lineup.app.state.patch", roles: ["agent"], sender: "from", target: "app", app_id: "required",
    fields: { "payload.instance_id": "scope.instance_id, target.instance_id", "payload.patch": "payload.patch", "payload.revision": "payload.base_revision" },
    reversible: false,
  }),
  "lineup.v1.surface.event": row({
    legacy_type: "lineup.v1.surface.event", envelope_type: "lineup.app.event", roles: ["user", "system"], sender: "app", target: "runtime", app_id: "required",
    fields: { "payload.instance_id": "scope.instance_id", "payload.name": "payload.name", "payload.data (absent → null)": "payload.data" },
    reversible: true,
  }),
  "lineup.v1.artifact": row({
    legacy_type: "lineup.v1.artifact", envelope_type: "lineup.artifact", roles: ["agent", "user", "system"], sender: "from", target: "app", app_id: "optional",
    fields: { "payload.artifact.id": "payload.artifact.artifact_id", "payload.artifact.name": "payload.artifact.name", "payload.artifact.mime": "payload.artifact.mime_type", "payload.artifact.size": "payload.artifact.size", "payload.artifact.sha256": "payload.artifact.sha256", "payload.caption": "payload.caption" },
    reversible: true,
  }),
} as const satisfies Record<LegacyType, LegacyMapping>;

/** Rules every mapped type shares: how the routing keys of the envelope are filled. */
export const LEGACY_FRAME_RULES: readonly { readonly envelope_field: string; readonly rule: string }[] = [
  { envelope_field: "v", rule: "always 1" },
  { envelope_field: "id", rule: "the legacy `id`, unchanged (it stays the deduplication key)" },
  { envelope_field: "type", rule: "from the mapping row of the legacy `type`" },
  { envelope_field: "timestamp", rule: "legacy `ts`: milliseconds → RFC 3339 UTC with milliseconds; an RFC 3339 string is kept as sent; absent → `context.now()`; absent with no clock → `legacy_unmappable`" },
  { envelope_field: "sender", rule: "per row: `from` → `{ kind: LEGACY_ROLE_TO_SENDER[from.role], id: from.id }`; `app` → `{ kind: \"app\", id: <resolved app_scope> }`. A role outside the row's `roles` → `sender_not_allowed`" },
  { envelope_field: "scope.app_scope", rule: "resolved in order: `payload.app.id` through `context.appIdAliases`, or the id itself when it is a scope in `context.knownAppScopes`, else `legacy_unmappable`; an explicit `app_scope` must equal the resolved scope (`scope_mismatch`) or, with no `app.id`, is used as sent; neither → `chat` (spec 11, MVP-R1). An explicit `app_scope` that breaks the grammar → `scope_invalid`" },
  { envelope_field: "scope.conversation_id", rule: "legacy `conversation_id`, else `context.currentConversationId`, else `legacy_unmappable`. A malformed one → `scope_invalid`; `runtime:*` ids → `scope_invalid` (by the envelope check)" },
  { envelope_field: "scope.instance_id", rule: "legacy `payload.instance_id` where the row maps it; never invented" },
  { envelope_field: "scope.operation_id", rule: "never filled: legacy messages had no operations" },
  { envelope_field: "target", rule: "per row: `app` → `{ kind: \"app\", app_scope: scope.app_scope, instance_id? }`; `runtime` → `{ kind: \"runtime\", app_scope: \"runtime\" }` (the Runtime's router decides)" },
  { envelope_field: "correlation.reply_to", rule: "legacy `reply_to`" },
  { envelope_field: "correlation.sequence", rule: "legacy `seq`" },
  { envelope_field: "correlation.call_id / inventory_revision", rule: "from the tool payloads, per row" },
  { envelope_field: "(all)", rule: "the result goes through `validateEnvelope`; any refusal there (e.g. `correlation_missing`, `payload_invalid`, `scope_invalid`) is returned with its envelope path" },
];

export interface LegacyRefusal {
  readonly code: ErrorCode;
  readonly reason: string;
}

/** Legacy types that existed in M0–M4 and are refused on purpose. */
export const LEGACY_REFUSED_TYPES: Readonly<Record<string, LegacyRefusal>> = {
  "lineup.v1.ping": { code: "legacy_unsupported_type", reason: "transport keep-alive; the transport answers it, it is never routed" },
  "lineup.v1.pong": { code: "legacy_unsupported_type", reason: "transport keep-alive; the transport answers it, it is never routed" },
  "lineup.v1.ack": { code: "legacy_unsupported_type", reason: "the old per-message ack; the App Server sync cursor and app inbox ACKs replace it" },
  "lineup.v1.sync": { code: "legacy_unsupported_type", reason: "the old sync request; App Server sync (per-session seq and cursor) replaces it" },
  "lineup.v1.inventory": { code: "legacy_unsupported_type", reason: "the Runtime publishes the revisioned inventory (spec 7.2); a peer never sends one in" },
  "lineup.v1.surface.create": { code: "legacy_unsupported_type", reason: "an agent-supplied inline bundle; apps are installed only through the verified bundle pipeline, never by an agent (spec 2.2, 8.3)" },
  "lineup.v1.app.call": { code: "legacy_unsupported_type", reason: "a direct app.call into app code; forbidden, tools go through the inventory (spec 2.2, 8.2)" },
};

/** Envelope type → the legacy type `toLegacy` answers with. Every other envelope type is refused with `legacy_unsupported_type`. */
export const LEGACY_REVERSE: Readonly<Partial<Record<EnvelopeType, LegacyType>>> = {
  "lineup.message": "lineup.v1.message",
  "lineup.interaction.response": "lineup.v1.interaction.response",
  "lineup.tool.result": "lineup.v1.tool.result",
  "lineup.tool.error": "lineup.v1.tool.error",
  "lineup.app.event": "lineup.v1.surface.event",
  "lineup.artifact": "lineup.v1.artifact",
};

/** The scope of a legacy message that names no app (spec 11, MVP-R1). */
export const LEGACY_DEFAULT_APP_SCOPE = "chat";
