import type { Lifecycle } from "@lineup/runtime";

export type ConnectionTone = "ok" | "busy" | "warn" | "off";

/** What the shell says about the Runtime's lifecycle: a short label and a tone for the indicator. */
export function describeLifecycle(lifecycle: Lifecycle): { label: string; tone: ConnectionTone } {
  switch (lifecycle.status) {
    case "created":
    case "restoring":
      return { label: "Restoring…", tone: "busy" };
    case "authenticating":
      return { label: "Signing in…", tone: "busy" };
    case "synchronizing":
      return { label: "Synchronizing…", tone: "busy" };
    case "online":
      return { label: "Online", tone: "ok" };
    case "reconnecting":
      return { label: `Reconnecting (attempt ${lifecycle.attempt})…`, tone: "warn" };
    case "offline_degraded":
      return { label: lifecycle.last_error === "unauthorized" ? "Offline: sign-in refused" : "Offline — working locally", tone: "warn" };
    case "stopping":
    case "stopped":
      return { label: "Stopped", tone: "off" };
  }
}
