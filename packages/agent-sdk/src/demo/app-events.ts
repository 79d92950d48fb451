/**
 * What the demo agent says when an app tells it what the person did there (spec 8.2: a surface's user
 * operations reach the agent as the app's declared events). Only live events get a reply — history read
 * after a reconnect was answered then, or happened before this agent — and only events it understands:
 * Voice Notes' `note.recorded`, a note the person recorded on their own.
 */
import type { AgentClient, AppEvent } from "../agent-client.js";
import type { Disposable } from "../lifecycle.js";
import { escapeMarkdown, kilobytes, spoken } from "./text.js";

/** The demo agent's reply to `event`, or undefined when it has nothing to say about it. */
export function replyToAppEvent(event: AppEvent): string | undefined {
  if (event.appScope === "voice" && event.name === "note.recorded") {
    const data = event.data;
    if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
    const { name, duration_ms: durationMs, size, mime_type: mimeType } = data as Record<string, unknown>;
    if (typeof name !== "string" || typeof durationMs !== "number" || typeof size !== "number" || typeof mimeType !== "string") return undefined;
    return `🎙 I see you recorded a **voice note** of your own: ${spoken(durationMs)} (${kilobytes(size)}, ${escapeMarkdown(mimeType.slice(0, 100))}), kept in this conversation as *${escapeMarkdown(name.slice(0, 200))}*. I can't listen to audio — I'm a demo agent without a model — but it's there whenever you want to share it.`;
  }
  return undefined;
}

/** Answers the live app events the demo agent understands, in their session; `onError` hears a reply that could not be sent. */
export function followAppEvents(client: AgentClient, onError: (error: unknown) => void = () => undefined): Disposable {
  return client.onAppEvent((event, info) => {
    if (!info.live) return;
    const reply = replyToAppEvent(event);
    if (reply === undefined) return;
    client.send(event.sessionId, { kind: "markdown", text: reply }).catch(onError);
  });
}
