/**
 * The AppServer's WebSocket, opened as soon as the page has read its sign-in config, as the profile's database
 * is (`profile-database.ts`): the connection is made while the page renders and the Runtime's code loads, and
 * the Runtime's transport takes it (`takeEarlyConnection`) for its first `initialize`. One the Runtime has not
 * taken within a few seconds (the profile is held by another tab) is closed.
 */
import type { HostConfig } from "./config.js";

const UNTAKEN_MS = 10_000;

let early: { readonly url: string; readonly socket: WebSocket } | undefined;
let untaken: ReturnType<typeof setTimeout> | undefined;

/** Starts connecting to `config`'s AppServer. A URL the browser refuses opens nothing: the Runtime's own attempt says why. */
export function openConnectionEarly(config: Pick<HostConfig, "server_url">): void {
  if (typeof WebSocket !== "function") return;
  try {
    early = { url: config.server_url, socket: new WebSocket(config.server_url) };
  } catch {
    return;
  }
  untaken = setTimeout(() => takeEarlyConnection()?.socket.close(), UNTAKEN_MS);
}

/** The socket opened early, once; undefined after that or when none was opened. */
export function takeEarlyConnection(): { readonly url: string; readonly socket: WebSocket } | undefined {
  clearTimeout(untaken);
  const taken = early;
  early = undefined;
  return taken;
}
