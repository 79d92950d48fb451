import type { Lifecycle } from "@lineup/runtime";
import { t } from "../i18n/index.js";

export type ConnectionTone = "ok" | "busy" | "warn" | "off";

/** What the shell says about the Runtime's lifecycle: a short label and a tone for the indicator. */
export function describeLifecycle(lifecycle: Lifecycle): { label: string; tone: ConnectionTone } {
  switch (lifecycle.status) {
    case "created":
    case "restoring":
      return { label: t("connection.restoring"), tone: "busy" };
    case "authenticating":
      return { label: t("connection.signingIn"), tone: "busy" };
    case "synchronizing":
      return { label: t("connection.synchronizing"), tone: "busy" };
    case "online":
      return { label: t("connection.online"), tone: "ok" };
    case "reconnecting":
      return { label: t("connection.reconnecting", { attempt: lifecycle.attempt }), tone: "warn" };
    case "offline_degraded":
      return { label: t(lifecycle.last_error === "unauthorized" ? "connection.refused" : "connection.offline"), tone: "warn" };
    case "stopping":
    case "stopped":
      return { label: t("connection.stopped"), tone: "off" };
  }
}
