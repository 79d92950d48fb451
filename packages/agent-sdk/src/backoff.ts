/** Reconnect and retry delays: the protocol package's one backoff curve, with equal jitter by default. */
export { backoffDelay, type BackoffOptions } from "@lineup/protocol";
