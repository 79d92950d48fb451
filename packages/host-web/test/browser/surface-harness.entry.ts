// A page that embeds apps through the real surface host, under the host page's own CSP. It plays the
// Runtime side with a session-data store and an artifact list; the test drives it through window.__surfaces.
import type { BridgeHostSnapshot, DisplayMode } from "@lineup/protocol";
import { currentTheme, mountSurface, type HeartbeatOptions, type MountedSurface, type SurfaceDeath } from "../../src/surface-host/index.js";

interface Harness {
  surface: MountedSurface;
  refused: string[];
  resizes: number[];
  session: { data: unknown; revision: number };
  requests: string[];
  /** How the surface died, and when (`performance.now()`), once it has. */
  death?: SurfaceDeath & { at: number };
}

/** What a dead-surface test adds to a mount: the heartbeat's bounds and the app's name for people. */
interface MountExtras {
  readonly heartbeat?: HeartbeatOptions;
  readonly name?: string;
}

const harnesses = new Map<string, Harness>();

/** How a refused request ended: the protocol's code (request_cancelled, request_timeout) before its message. */
const outcome = (error: unknown): string => (error instanceof Error ? `${"code" in error ? `${String(error.code)}: ` : ""}${error.message}` : String(error));

function layout(container: HTMLElement, mode: DisplayMode): void {
  const s = container.style;
  s.border = "1px solid #8887";
  s.boxSizing = "border-box";
  if (mode === "foreground") Object.assign(s, { position: "static", width: "860px", height: "560px", margin: "16px" });
  else if (mode === "pip") Object.assign(s, { position: "fixed", right: "16px", bottom: "16px", width: "320px", height: "auto", margin: "0", boxShadow: "0 8px 28px #0006", borderRadius: "10px", overflow: "hidden" });
  else Object.assign(s, { position: "static", width: "480px", height: "auto", margin: "16px", borderRadius: "10px", overflow: "hidden" });
}

const DARK: Record<string, string> = {
  "--lineup-color-bg": "#111316",
  "--lineup-color-fg": "#e8eaed",
  "--lineup-color-surface": "#1b1e23",
  "--lineup-color-border": "#30353d",
  "--lineup-color-muted": "#9aa3ae",
  "--lineup-color-accent": "#7ea2ff",
};

function mount(id: string, html: string, snapshot: BridgeHostSnapshot, mode: DisplayMode, readyTimeoutMs?: number, extras: MountExtras = {}): void {
  const container = document.createElement("div");
  container.className = "surface";
  container.id = id;
  // The shell's stylesheet lays surfaces out; this bare page does it with CSSOM.
  layout(container, mode);
  document.body.append(container);
  const h: Harness = { surface: undefined as unknown as MountedSurface, refused: [], resizes: [], session: { data: null, revision: 0 }, requests: [] };
  let subscribed = false;
  h.surface = mountSurface(
    container,
    html,
    { ...snapshot, theme: currentTheme(), display_mode: mode },
    {
      async request(method, params) {
        h.requests.push(method);
        const p = params as { data?: unknown; expected_revision?: number; content?: { data: string }; name?: string; mime_type?: string };
        switch (method) {
          case "session_data.get":
            return h.session;
          case "session_data.subscribe":
            subscribed = true;
            return h.session;
          case "session_data.unsubscribe":
            subscribed = false;
            return {};
          case "session_data.replace":
            if (p.expected_revision !== h.session.revision) throw { code: "revision_conflict", message: "stale revision" };
            h.session = { data: p.data, revision: h.session.revision + 1 };
            if (subscribed) h.surface.event("session_data.changed", h.session as never);
            return { revision: h.session.revision };
          case "artifact.create":
            return { artifact: { artifact_id: "art-1", name: p.name ?? "x", mime_type: p.mime_type ?? "application/octet-stream", size: atob(p.content?.data ?? "").length, sha256: "0".repeat(64) } };
          default:
            return {};
        }
      },
      onRefused: (r) => h.refused.push(r.code),
      onResize: (height) => h.resizes.push(height),
    },
    { title: `App ${snapshot.app_scope}`, ...(readyTimeoutMs === undefined ? {} : { readyTimeoutMs }), ...extras },
  );
  void h.surface.dead.then((death) => (h.death = { ...death, at: performance.now() }));
  harnesses.set(id, h);
}

(window as unknown as { __surfaces: unknown }).__surfaces = {
  mount,
  ready: (id: string) => harnesses.get(id)!.surface.ready.then(() => true),
  /** How the start-up ended: "ready", or the reason it failed. */
  startup: (id: string) => harnesses.get(id)!.surface.ready.then(
    () => "ready",
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  ),
  invoke: async (id: string, params: { call_id: string; method: string; arguments: Record<string, unknown> }) => {
    const response = await harnesses.get(id)!.surface.request("tool.invoke", params as never);
    return "error" in response && response.error !== undefined ? { error: response.error } : response.result;
  },
  /** Starts a tool call and keeps its promise, to see later how it ended; returns when it was sent (`performance.now()`). */
  startInvoke: (id: string, params: { call_id: string; method: string; arguments: Record<string, unknown> }, timeoutMs?: number) => {
    const h = harnesses.get(id)! as Harness & { invoked?: Promise<string> };
    const at = performance.now();
    h.invoked = h.surface.request("tool.invoke", params as never, timeoutMs).then(() => "answered", outcome);
    return at;
  },
  /** How the surface died (`{ reason, message, at }`), or null while it lives. */
  death: (id: string) => harnesses.get(id)!.death ?? null,
  /** Whether `request` is refused at once, and with what (a dead surface takes nothing more). */
  requestNow: (id: string) => harnesses.get(id)!.surface.request("tool.invoke", { call_id: "late", method: "probe.echo", arguments: {} } as never).then(() => "answered", outcome),
  frameCount: () => document.querySelectorAll("iframe").length,
  invokeOutcome: (id: string) => (harnesses.get(id)! as Harness & { invoked?: Promise<string> }).invoked,
  setDisplayMode: (id: string, mode: DisplayMode) => {
    layout(document.getElementById(id)!, mode);
    harnesses.get(id)!.surface.setDisplayMode(mode);
  },
  setDark: (id: string) => {
    document.documentElement.dataset["theme"] = "dark";
    for (const [name, value] of Object.entries(DARK)) document.documentElement.style.setProperty(name, value);
    document.documentElement.style.colorScheme = "dark";
    document.body.style.background = DARK["--lineup-color-bg"]!;
    harnesses.get(id)!.surface.setTheme(currentTheme());
  },
  close: (id: string, ms: number) => harnesses.get(id)!.surface.close(ms),
  state: (id: string) => {
    const h = harnesses.get(id)!;
    return { refused: h.refused, resizes: h.resizes, session: h.session, requests: h.requests, sandbox: h.surface.frame.getAttribute("sandbox"), opaque: h.surface.frame.contentDocument === null };
  },
};
