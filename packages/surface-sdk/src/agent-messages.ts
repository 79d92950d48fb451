/**
 * Agent messages and state patches for the instance (spec 5.4): a projection the Runtime filters by
 * the manifest's subscriptions ∩ the requested types, never the raw envelope. Delivery is
 * at-least-once: a message that needs it stays in the app's inbox until `ack(message_id)`, so a
 * listener must be idempotent by `message_id`.
 */
import type { BridgeEventData, BridgeParams } from "@lineup/protocol";
import type { BridgeChannel } from "./channel.js";
import { Emitter, type DiagnosticsSink, type Unsubscribe } from "./emitter.js";

export type AgentMessage = BridgeEventData<"agent.message">;
export type StatePatch = BridgeEventData<"state.patch">;
export type AgentMessageFilter = BridgeParams<"agent_message.subscribe">;

export interface AgentMessageAPI {
  /** Starts delivery (one bridge subscription, started by the first listener with its filter, ended by the last). */
  subscribe(listener: (message: AgentMessage) => void, filter?: AgentMessageFilter): Unsubscribe;
  /** Removes a delivered message from the app's inbox (needed when `requires_ack`, and for state patches). */
  ack(messageId: string): Promise<void>;
  /** State patches for this instance; acknowledge each with `ack(message_id)` once applied. */
  onStatePatch(listener: (patch: StatePatch) => void): Unsubscribe;
}

export class AgentMessages implements AgentMessageAPI {
  readonly #channel: BridgeChannel;
  readonly #messages: Emitter<AgentMessage>;
  readonly #patches: Emitter<StatePatch>;
  #subscribed = false;

  constructor(channel: BridgeChannel, diagnostics: DiagnosticsSink) {
    this.#channel = channel;
    this.#messages = new Emitter("agent.message", diagnostics);
    this.#patches = new Emitter("state.patch", diagnostics);
    channel.on("agent.message", (message) => this.#messages.fire(message));
    channel.on("state.patch", (patch) => this.#patches.fire(patch));
  }

  subscribe(listener: (message: AgentMessage) => void, filter: AgentMessageFilter = {}): Unsubscribe {
    const off = this.#messages.on(listener);
    if (!this.#subscribed) {
      this.#subscribed = true;
      this.#channel.request("agent_message.subscribe", filter).catch(() => {
        this.#subscribed = false;
      });
    }
    return () => {
      off();
      if (this.#messages.size > 0 || !this.#subscribed) return;
      this.#subscribed = false;
      if (!this.#channel.isClosed) this.#channel.request("agent_message.unsubscribe", {}).catch(() => {});
    };
  }

  async ack(messageId: string): Promise<void> {
    await this.#channel.request("agent_message.ack", { message_id: messageId });
  }

  onStatePatch(listener: (patch: StatePatch) => void): Unsubscribe {
    return this.#patches.on(listener);
  }
}
