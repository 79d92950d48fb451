/**
 * Delivery to app subscribers (spec 5.4), after the commit that stored the messages:
 *
 * - a subscriber gets the messages of its app that pass its filter (conversation, types), in order;
 * - nothing is delivered for a conversation that is not live (before its caught-up seam, or offline):
 *   those messages wait in the inbox and are flushed at the seam;
 * - display messages are acknowledged automatically once delivered; the rest wait for the app;
 * - within one run a subscriber never gets the same `message_id` twice;
 * - a throwing or rejecting handler never stops delivery: its error goes to diagnostics.
 *
 * Deliveries and flushes run one at a time on one chain, so a flush reading the store never interleaves
 * with live deliveries.
 */
import type { DiagnosticsSink, Unsubscribe } from "../core/emitter.js";
import { readPendingPage, type AgentAppMessage } from "../persistence/inbox.js";
import type { RuntimeStore } from "../persistence/store.js";
import type { Delivery } from "./inputs.js";

export interface SubscribeOptions {
  readonly conversation_id?: string;
  /**
   * One instance's view of the inbox (a sandboxed surface's): messages addressed to this instance, and
   * those addressed to no instance; a message for another instance of the app is not delivered here.
   */
  readonly instance_id?: string;
  readonly types?: readonly string[];
  /** Also deliver the app's unacknowledged backlog from before this subscription. */
  readonly include_pending?: boolean;
}

export type MessageHandler = (message: AgentAppMessage) => Promise<void> | void;

interface Subscriber {
  readonly app_scope: string;
  readonly options: SubscribeOptions;
  readonly handler: MessageHandler;
  /** Per conversation, the seq through which this subscriber does not want the backlog. */
  readonly watermark: ReadonlyMap<string, number> | undefined;
  readonly delivered: Set<string>;
}

export interface DeliveryHubOptions {
  readonly store: Pick<RuntimeStore, "range" | "get">;
  readonly diagnostics: DiagnosticsSink;
  readonly isLive: (conversationId: string) => boolean;
  /** Acknowledge display messages once delivered (the Runtime posts an acknowledge input). */
  readonly acknowledgeDisplayed: (appScope: string, messageIds: readonly string[]) => void;
  /** Page size of flush reads. Default 200. */
  readonly pageSize?: number;
}

export class DeliveryHub {
  private readonly subscribers = new Set<Subscriber>();
  private chain: Promise<void> = Promise.resolve();
  private readonly pageSize: number;

  constructor(private readonly options: DeliveryHubOptions) {
    this.pageSize = options.pageSize ?? 200;
  }

  /** `cursors` is the current cursor per conversation: the backlog boundary for `include_pending: false`. */
  subscribe(appScope: string, options: SubscribeOptions, handler: MessageHandler, cursors: ReadonlyMap<string, number>): Unsubscribe {
    const subscriber: Subscriber = {
      app_scope: appScope,
      options,
      handler,
      watermark: options.include_pending === true ? undefined : new Map(cursors),
      delivered: new Set(),
    };
    this.subscribers.add(subscriber);
    if (options.include_pending === true) void this.enqueue(() => this.flushFor([subscriber], options.conversation_id));
    return () => {
      this.subscribers.delete(subscriber);
    };
  }

  /** Runs a committed turn's deliveries in order. */
  run(deliveries: readonly Delivery[]): Promise<void> {
    // Tool and app deliveries are the ToolHub's (runtime.ts), not the message hub's.
    if (!deliveries.some((delivery) => delivery.kind === "message" || delivery.kind === "flush" || delivery.kind === "acknowledged")) return this.chain;
    return this.enqueue(async () => {
      // The display messages of the whole turn are acknowledged together: one input per app, not one per message.
      const displayed = new Map<string, string[]>();
      for (const delivery of deliveries) {
        if (delivery.kind === "message") this.deliverNow([delivery.message], [...this.subscribers], displayed);
        else if (delivery.kind === "flush") await this.flushFor([...this.subscribers], delivery.conversation_id);
        else if (delivery.kind === "acknowledged") {
          for (const s of this.subscribers) if (s.app_scope === delivery.app_scope) for (const id of delivery.message_ids) s.delivered.delete(id);
        }
      }
      this.acknowledge(displayed);
    });
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  private enqueue(task: () => Promise<void> | void): Promise<void> {
    this.chain = this.chain.then(task).catch((error: unknown) => this.options.diagnostics(error, "delivery"));
    return this.chain;
  }

  private async flushFor(subscribers: readonly Subscriber[], conversationId: string | undefined): Promise<void> {
    const apps = new Set(subscribers.map((s) => s.app_scope));
    for (const appScope of apps) {
      const audience = subscribers.filter((s) => s.app_scope === appScope);
      let afterKey: string | undefined;
      for (;;) {
        const page = await readPendingPage(this.options.store as RuntimeStore, {
          appScope,
          ...(conversationId === undefined ? {} : { conversationId }),
          ...(afterKey === undefined ? {} : { afterKey }),
          limit: this.pageSize,
        });
        this.deliverNow(page.messages, audience);
        if (page.next === undefined) break;
        afterKey = page.next;
      }
    }
  }

  private deliverNow(messages: readonly AgentAppMessage[], audience: readonly Subscriber[], into?: Map<string, string[]>): void {
    const displayed = into ?? new Map<string, string[]>();
    for (const message of messages) {
      if (!this.options.isLive(message.conversation_id)) continue;
      let delivered = false;
      for (const subscriber of audience) {
        if (!this.subscribers.has(subscriber) || !wants(subscriber, message) || subscriber.delivered.has(message.message_id)) continue;
        subscriber.delivered.add(message.message_id);
        delivered = true;
        try {
          const pending = subscriber.handler(message);
          if (pending !== undefined) pending.catch((error: unknown) => this.options.diagnostics(error, `${message.app_scope} message handler`));
        } catch (error) {
          this.options.diagnostics(error, `${message.app_scope} message handler`);
        }
      }
      if (delivered && message.delivery === "display") {
        const list = displayed.get(message.app_scope) ?? [];
        list.push(message.message_id);
        displayed.set(message.app_scope, list);
      }
    }
    if (into === undefined) this.acknowledge(displayed);
  }

  private acknowledge(displayed: ReadonlyMap<string, string[]>): void {
    for (const [appScope, ids] of displayed) this.options.acknowledgeDisplayed(appScope, ids);
  }
}

function wants(subscriber: Subscriber, message: AgentAppMessage): boolean {
  if (subscriber.app_scope !== message.app_scope) return false;
  const { conversation_id: conversationId, types } = subscriber.options;
  if (conversationId !== undefined && conversationId !== message.conversation_id) return false;
  const instanceId = subscriber.options.instance_id;
  if (instanceId !== undefined && message.instance_id !== undefined && message.instance_id !== instanceId) return false;
  if (types !== undefined && !types.includes(message.type)) return false;
  const watermark = subscriber.watermark?.get(message.conversation_id);
  return watermark === undefined || message.seq > watermark;
}
