/**
 * Agent messages and state patches for the instance (spec 5.4): a projection the Runtime filters by
 * the manifest's subscriptions ∩ the requested types, never the raw envelope. Delivery is
 * at-least-once: a message that needs it stays in the app's inbox until `ack(message_id)`, so a
 * listener must be idempotent by `message_id`.
 */
import type { BridgeEventData, BridgeParams, BridgeResult, EnvelopeType } from "@lineup/protocol";
import type { BridgeChannel } from "./channel.js";
import { Emitter, listenerThrew, type DiagnosticsSink, type Unsubscribe } from "./emitter.js";

export type AgentMessage = BridgeEventData<"agent.message">;
export type StatePatch = BridgeEventData<"state.patch">;
export type AgentMessageFilter = BridgeParams<"agent_message.subscribe">;
export type AgentMessageListRequest = BridgeParams<"agent_message.list">;
export type AgentMessagePage = BridgeResult<"agent_message.list">;

export interface AgentMessageAPI {
  /**
   * One page of the stored messages this instance may see (its conversation, addressed to it or to no
   * instance), oldest first: from the oldest, `after` a cursor (`next_cursor` when newer ones follow), or
   * `before` a cursor / `latest: true` backward (`prev_cursor` when older ones exist). Catches up with what
   * arrived while the app was not running (spec 5.4 `list()`); rejects with a `LineUpError`.
   */
  list(request?: AgentMessageListRequest): Promise<AgentMessagePage>;
  /** Starts delivery (one bridge subscription: the first listener's filter, kept until the last listener leaves). */
  subscribe(listener: (message: AgentMessage) => void, filter?: AgentMessageFilter): Unsubscribe;
  /** Removes a delivered message from the app's inbox (needed when `requires_ack`, and for state patches). */
  ack(messageId: string): Promise<void>;
  /**
   * State patches for this instance, those already waiting included; acknowledge each with `ack(message_id)`
   * once applied. Listening starts the bridge subscription too (with state patches added to its types).
   */
  onStatePatch(listener: (patch: StatePatch) => void): Unsubscribe;
}

const STATE_PATCH_TYPE: EnvelopeType = "lineup.app.state.patch";

export class AgentMessages implements AgentMessageAPI {
  readonly #channel: BridgeChannel;
  readonly #messages: Emitter<AgentMessage>;
  readonly #patches: Emitter<StatePatch>;
  /** The filter of the first message listener, while there is one. */
  #filter: AgentMessageFilter | undefined;
  /** The subscription the host has (as last asked), or undefined. */
  #current: string | undefined;

  constructor(channel: BridgeChannel, diagnostics: DiagnosticsSink) {
    this.#channel = channel;
    this.#messages = new Emitter(listenerThrew("agent.message", diagnostics));
    this.#patches = new Emitter(listenerThrew("state.patch", diagnostics));
    channel.on("agent.message", (message) => this.#messages.fire(message));
    channel.on("state.patch", (patch) => this.#patches.fire(patch));
  }

  list(request: AgentMessageListRequest = {}): Promise<AgentMessagePage> {
    return this.#channel.request("agent_message.list", request);
  }

  subscribe(listener: (message: AgentMessage) => void, filter: AgentMessageFilter = {}): Unsubscribe {
    if (this.#messages.size === 0) this.#filter = filter;
    return this.#listen(this.#messages.on(listener));
  }

  async ack(messageId: string): Promise<void> {
    await this.#channel.request("agent_message.ack", { message_id: messageId });
  }

  onStatePatch(listener: (patch: StatePatch) => void): Unsubscribe {
    return this.#listen(this.#patches.on(listener));
  }

  #listen(off: Unsubscribe): Unsubscribe {
    this.#sync();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      off();
      if (this.#messages.size === 0) this.#filter = undefined;
      this.#sync();
    };
  }

  /** What the host should deliver for the listeners there are now: undefined for nothing. */
  #wanted(): AgentMessageFilter | undefined {
    const patches = this.#patches.size > 0;
    const filter = this.#messages.size > 0 ? this.#filter : undefined;
    if (filter === undefined) return patches ? { types: [STATE_PATCH_TYPE], include_pending: true } : undefined;
    if (!patches) return filter;
    // Patches waiting in the inbox must still be applied: they come with the backlog.
    const types = filter.types === undefined || filter.types.includes(STATE_PATCH_TYPE) ? filter.types : [...filter.types, STATE_PATCH_TYPE];
    return { ...(types === undefined ? {} : { types }), include_pending: true };
  }

  /** Asks the host for the subscription the listeners need, when it changed; the host replaces the last one. */
  #sync(): void {
    const wanted = this.#wanted();
    const key = wanted === undefined ? undefined : JSON.stringify(wanted);
    if (key === this.#current) return;
    this.#current = key;
    if (wanted === undefined) {
      if (!this.#channel.isClosed) this.#channel.request("agent_message.unsubscribe", {}).catch(() => {});
      return;
    }
    this.#channel.request("agent_message.subscribe", wanted).catch(() => {
      // Refused (a host without an inbox, an instance without a conversation): the next listener asks again.
      if (this.#current === key) this.#current = undefined;
    });
  }
}
