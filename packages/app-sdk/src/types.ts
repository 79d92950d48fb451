/**
 * The SDK's shapes, as spec 6 names them. This issue delivers the chat subset (context, state, agent
 * messages, actions); `lifecycle`, `tools`, `apps`, `artifacts`, `sessionData`, `capabilities` and
 * `diagnostics` join `LineUpAppRuntimeSDK` as their Runtime parts land.
 */
import type { AgentAppMessage, AgentMessagePage, CommandReceipt, HistoryRequest, InteractionAnswer, RuntimeView, Unsubscribe } from "@lineup/runtime";

export type { AgentAppMessage, AgentMessagePage, CommandReceipt, RuntimeView, Unsubscribe };

export interface AppContext {
  readonly app_scope: string;
  readonly app_version: string;
  readonly instance_id: string;
  readonly kind: "core" | "installed";
  readonly entrypoint: string;
  readonly scope: { readonly conversation_id?: string; readonly operation_id?: string; readonly parent_instance_id?: string };
  readonly granted_permissions: readonly string[];
}

/** What changed between two views, so a listener can skip work. */
export interface AppStateChange {
  readonly lifecycle: boolean;
  readonly conversations: boolean;
  readonly actions: boolean;
}

export interface AppStateAPI<ViewModel = RuntimeView> {
  snapshot(): ViewModel;
  subscribe(listener: (view: ViewModel, change: AppStateChange) => void): Unsubscribe;
}

export type AgentMessageType = string;
export type AgentMessageCursor = string;

export interface AgentMessageAPI {
  /**
   * One page of stored messages, oldest first. Forward from the oldest (default) or `after` a cursor
   * (`next_cursor` when newer ones follow); `before` a cursor or `latest: true` page backward (`prev_cursor`
   * when older ones exist). `after`, `before` and `latest: true` are exclusive: combining them rejects
   * with `invalid_params`.
   */
  list(request?: { conversation_id?: string; after?: AgentMessageCursor; before?: AgentMessageCursor; latest?: boolean; limit?: number }): Promise<AgentMessagePage>;
  subscribe(
    options: { conversation_id?: string; types?: readonly AgentMessageType[]; include_pending?: boolean },
    handler: (message: AgentAppMessage) => Promise<void> | void,
  ): Unsubscribe;
  acknowledge(message_id: string): Promise<void>;
}

/** Declarative actions (spec 6.2): an app never builds envelopes or requests. */
export type AppAction =
  | { readonly type: "conversation.send_text"; readonly conversation_id: string; readonly text: string }
  | { readonly type: "interaction.answer"; readonly conversation_id: string; readonly message_id: string; readonly response: InteractionAnswer }
  | { readonly type: "conversation.start"; readonly agent_id: string; readonly workspace_id: string; readonly title?: string };

export interface AppActionAPI {
  /** Resolves once the action is stored (it will be sent, in order, with its idempotency key); rejects with a LineUpError when refused. */
  dispatch(action: AppAction): Promise<CommandReceipt>;
}

export interface LineUpAppRuntimeSDK {
  readonly app: AppContext;
  readonly state: AppStateAPI<RuntimeView>;
  readonly agentMessages: AgentMessageAPI;
  readonly actions: AppActionAPI;
}

export type { HistoryRequest };
