/**
 * `agentSession/event` notifications, encoded once per event: the frame is the event's stored JSON
 * wrapped in the notification envelope, so neither a live fan-out to many subscribers nor a catch-up
 * read from the log stringifies (or parses) the event again.
 */
import type { SessionEvent } from "@lineup/protocol";

const PREFIX = '{"jsonrpc":"2.0","method":"agentSession/event","params":';

const cache = new WeakMap<SessionEvent, string>();

/** The notification frame of an event whose JSON text is `body` (as stored in the log). */
export function eventFrameFromBody(body: string): string {
  return `${PREFIX}${body}}`;
}

/** Remembers the frame of an event just appended (its body is already stringified). */
export function rememberEventFrame(event: SessionEvent, body: string): void {
  cache.set(event, eventFrameFromBody(body));
}

/** The notification frame of `event`, encoded at most once. */
export function eventFrame(event: SessionEvent): string {
  let frame = cache.get(event);
  if (frame === undefined) cache.set(event, (frame = eventFrameFromBody(JSON.stringify(event))));
  return frame;
}
