/**
 * What an agent sends into a conversation, and how each becomes a RuntimeEnvelope v1 with the
 * agent as sender: text and Markdown messages (`lineup.message`), the interaction primitives of
 * spec 8.1 (`lineup.interaction.request`: choice, confirm, input), status and task progress.
 */
import type { EnvelopePayload, JsonObject, JsonValue, RuntimeEnvelope } from "@lineup/protocol";

export interface ChoiceOption {
  readonly id: string;
  readonly label: string;
  readonly description?: string;
}

export type OutgoingMessage =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "markdown"; readonly text: string }
  | { readonly kind: "choice"; readonly prompt: string; readonly options: readonly ChoiceOption[]; readonly multiple?: boolean; readonly interactionId?: string; readonly expiresAt?: string }
  | { readonly kind: "confirm"; readonly prompt: string; readonly confirmLabel?: string; readonly cancelLabel?: string; readonly interactionId?: string; readonly expiresAt?: string }
  | { readonly kind: "input"; readonly prompt: string; readonly placeholder?: string; readonly multiline?: boolean; readonly maxLength?: number; readonly interactionId?: string; readonly expiresAt?: string }
  | { readonly kind: "status"; readonly state: "idle" | "thinking" | "working" | "waiting_for_user"; readonly label?: string }
  | {
      readonly kind: "task_progress";
      readonly taskId: string;
      readonly title?: string;
      readonly state: "running" | "completed" | "failed" | "cancelled";
      readonly progress?: number;
      readonly detail?: string;
    };

export type InteractionKind = "choice" | "confirm" | "input";

/** The user's answer to a choice, confirm or input card, whichever path it came back on. */
export interface InteractionAnswer {
  readonly interactionId: string;
  readonly outcome: "answered" | "cancelled";
  readonly choiceIds?: readonly string[];
  /** For confirm: true when the user confirmed. */
  readonly confirmed?: boolean;
  readonly text?: string;
  readonly data?: JsonValue;
  /** `envelope`: a `lineup.interaction.response`; `action`: an `action.responded` event. */
  readonly via: "envelope" | "action";
}

export interface EnvelopeContext {
  readonly envelopeId: string;
  readonly timestamp: string;
  readonly agentId: string;
  readonly sessionId: string;
  /** The app scope the message is for: the session's (`chat` for the default interaction app). */
  readonly appScope: string;
}

function frame<T extends JsonValue>(ctx: EnvelopeContext, type: string, payload: T, appScope = ctx.appScope, correlation?: JsonObject): RuntimeEnvelope<T> {
  const envelope = {
    v: 1 as const,
    id: ctx.envelopeId,
    type,
    timestamp: ctx.timestamp,
    sender: { kind: "agent" as const, id: ctx.agentId },
    target: { kind: "app" as const, app_scope: appScope },
    scope: { app_scope: appScope, conversation_id: ctx.sessionId },
    payload,
  };
  return (correlation === undefined ? envelope : { ...envelope, correlation }) as unknown as RuntimeEnvelope<T>;
}

/** A `lineup.app.state.patch` for `appScope` (and one of its instances, when given), in the session of `ctx`. */
export function statePatchEnvelope(ctx: EnvelopeContext, patch: { readonly appScope: string; readonly instanceId?: string; readonly patch: JsonObject; readonly baseRevision?: number }): RuntimeEnvelope {
  const envelope = frame(ctx, "lineup.app.state.patch", defined({ patch: patch.patch, base_revision: patch.baseRevision }), patch.appScope);
  if (patch.instanceId === undefined) return envelope;
  return { ...envelope, target: { ...envelope.target, instance_id: patch.instanceId } } as unknown as RuntimeEnvelope;
}

/** Drops undefined members, so optional fields never reach the wire as `undefined`. */
function defined<T extends Record<string, unknown>>(object: T): JsonObject {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) if (value !== undefined) out[key] = value;
  return out as JsonObject;
}

/** The interaction id a message carries, or undefined for non-interactive messages. */
export function interactionIdOf(message: OutgoingMessage): string | undefined {
  return message.kind === "choice" || message.kind === "confirm" || message.kind === "input" ? message.interactionId : undefined;
}

/** Builds the envelope for a message; interaction messages need `interactionId` filled in. */
export function messageEnvelope(ctx: EnvelopeContext, message: OutgoingMessage, interactionId: string): RuntimeEnvelope {
  switch (message.kind) {
    case "text":
    case "markdown":
      return frame(ctx, "lineup.message", { format: message.kind, text: message.text } satisfies EnvelopePayload<"lineup.message">);
    case "choice":
      return frame(
        ctx,
        "lineup.interaction.request",
        defined({
          interaction_id: interactionId,
          kind: "choice",
          prompt: message.prompt,
          options: message.options.map((o) => defined({ id: o.id, label: o.label, description: o.description })),
          multiple: message.multiple,
          expires_at: message.expiresAt,
        }),
      );
    case "confirm":
      return frame(
        ctx,
        "lineup.interaction.request",
        defined({ interaction_id: interactionId, kind: "confirm", prompt: message.prompt, confirm_label: message.confirmLabel, cancel_label: message.cancelLabel, expires_at: message.expiresAt }),
      );
    case "input":
      return frame(
        ctx,
        "lineup.interaction.request",
        defined({
          interaction_id: interactionId,
          kind: "input",
          prompt: message.prompt,
          placeholder: message.placeholder,
          multiline: message.multiline,
          max_length: message.maxLength,
          expires_at: message.expiresAt,
        }),
      );
    case "status":
      return frame(ctx, "lineup.status", defined({ state: message.state, label: message.label }));
    case "task_progress":
      return frame(
        ctx,
        "lineup.task.progress",
        defined({ task_id: message.taskId, title: message.title, state: message.state, progress: message.progress, detail: message.detail }),
      );
  }
}

export interface ToolInvokeContext extends EnvelopeContext {
  readonly callId: string;
  readonly inventoryRevision: number;
  readonly method: string;
  readonly arguments: JsonObject;
  readonly contractVersion?: string;
  readonly timeoutMs?: number;
}

/** `lineup.tool.invoke` for the tool's app, carrying `call_id` and the inventory revision it was chosen from. */
export function toolInvokeEnvelope(ctx: ToolInvokeContext): RuntimeEnvelope {
  return frame(
    ctx,
    "lineup.tool.invoke",
    defined({ method: ctx.method, contract_version: ctx.contractVersion, arguments: ctx.arguments, timeout_ms: ctx.timeoutMs }),
    ctx.appScope,
    { call_id: ctx.callId, inventory_revision: String(ctx.inventoryRevision) },
  );
}

/** `lineup.tool.cancel` for a call the agent gives up on. */
export function toolCancelEnvelope(ctx: EnvelopeContext & { readonly callId: string; readonly reason?: string }): RuntimeEnvelope {
  return frame(ctx, "lineup.tool.cancel", defined({ reason: ctx.reason }), ctx.appScope, { call_id: ctx.callId });
}
