/**
 * The third ingress path (besides the agent's session events and the apps' and person's actions): the host's
 * own intents, `lineup.host.intent` payloads. Each is checked against the payload schema (a bad one is a
 * `LineUpError` with the protocol's code, and changes nothing), audited through the loop, then carried out:
 *
 * - `window_hidden` / `window_shown`: nobody is looking — the idle timer is paused, so no background instance is
 *   suspended for idleness while the window is hidden; shown, it runs again from the instances as they are;
 * - `suspend` / `resume` (the device sleeps and wakes): asleep, the idle timer is paused too; awake, it runs
 *   again and a reconnect waiting out its backoff is tried at once (the network is likely back);
 * - `memory_pressure`: every background instance with no call on it is suspended now (its frame goes; it is
 *   restored from the Runtime's snapshot when brought back);
 * - `open_app` / `open_conversation`: the app (for a conversation: the conversation's app, else `app_scope`) is
 *   launched in front — a deep link or a notification's click;
 * - `close_app`: the app's live instances (in `conversation_id`, when given) close, as the person closing them.
 */
import { LineUpError, validateEnvelopePayload } from "@lineup/protocol";
import type { HostIntent } from "../coordination/inputs.js";
import type { RuntimeInput } from "../coordination/inputs.js";
import type { AppInstance } from "./instances/state.js";
import type { LaunchRequest } from "./app-manager-api.js";

export interface HostIntentDeps {
  post(input: RuntimeInput): Promise<unknown>;
  launch(request: LaunchRequest): Promise<AppInstance>;
  closeInstance(instanceId: string): Promise<void>;
  liveInstances(): readonly AppInstance[];
  /** The app a conversation belongs to, if the Runtime follows it. */
  conversationApp(conversationId: string): string | undefined;
  pauseIdle(paused: boolean): void;
  reconnectNow(): void;
}

/** What the intent did: the instance it opened, or the instances it closed. */
export type HostIntentOutcome = { readonly intent: HostIntent["intent"]; readonly instance_id?: string; readonly closed?: readonly string[] };

export function createHostIntents(deps: HostIntentDeps): (raw: unknown) => Promise<HostIntentOutcome> {
  return async (raw) => {
    const checked = validateEnvelopePayload("lineup.host.intent", raw);
    if (!checked.ok) throw new LineUpError(checked.error.code, checked.error.message, checked.error.path === undefined ? {} : { path: checked.error.path });
    const intent = checked.value as HostIntent;
    const target = intent.intent === "open_conversation" ? (intent.conversation_id === undefined ? undefined : (deps.conversationApp(intent.conversation_id) ?? intent.app_scope)) : intent.app_scope;
    if ((intent.intent === "open_app" || intent.intent === "close_app") && intent.app_scope === undefined) throw new LineUpError("invalid_params", `${intent.intent} names the app`, { path: "/app_scope" });
    if (intent.intent === "open_conversation" && target === undefined) throw new LineUpError(intent.conversation_id === undefined ? "invalid_params" : "conversation_unknown", "open_conversation names a conversation this Runtime follows", { path: "/conversation_id" });
    await deps.post({ kind: "host.intent", intent });
    switch (intent.intent) {
      case "window_hidden":
      case "suspend":
        deps.pauseIdle(true);
        return { intent: intent.intent };
      case "window_shown":
        deps.pauseIdle(false);
        return { intent: intent.intent };
      case "resume":
        deps.pauseIdle(false);
        deps.reconnectNow();
        return { intent: intent.intent };
      case "memory_pressure":
        return { intent: intent.intent };
      case "open_app":
      case "open_conversation": {
        const instance = await deps.launch({
          app_scope: target!,
          foreground: true,
          ...(intent.conversation_id === undefined ? {} : { conversation_id: intent.conversation_id }),
          ...(intent.entrypoint === undefined ? {} : { entrypoint: intent.entrypoint }),
        });
        return { intent: intent.intent, instance_id: instance.instance_id };
      }
      case "close_app": {
        const closing = deps
          .liveInstances()
          .filter((i) => i.app_scope === intent.app_scope && (intent.conversation_id === undefined || i.conversation_id === intent.conversation_id))
          .map((i) => i.instance_id);
        for (const id of closing) await deps.closeInstance(id);
        return { intent: intent.intent, closed: closing };
      }
    }
  };
}
