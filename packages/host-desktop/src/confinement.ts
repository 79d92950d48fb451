/**
 * What the desktop host allows the webview to load, navigate to and use, decided natively (outside the
 * page, where no app code can reach): the closing of issue 27's channels on this host. Pure data and
 * decisions; `webview.ts` applies them.
 *
 * - Loads: a content filter (WebKit's content-blocker rules) refuses every resource load, then lets
 *   through only LineUp's own scheme, blob URLs of its origin, the configured AppServer's WebSocket origin and the
 *   desktop's local back-end service (its one loopback URL, when the config names one). The rules are
 *   applied by WebKit before a connection is opened, in every frame, whatever the page's CSP says.
 * - Navigation: every frame may navigate only within `lineup://app/` (plus the empty documents a frame
 *   starts with); new windows are never made.
 * - Features: WebRTC, link preconnect, DNS prefetch and prefetch off; no clipboard access from script, no
 *   developer tools, no windows opened by script. Media capture is on for the microphone alone: the Capability
 *   Gateway's `microphone.record` records in the host page (WebKit's MediaRecorder, over GStreamer), and
 *   `webview.ts` grants only an audio-only request — which only the host page can make: apps' frames are denied
 *   the microphone by their `allow` attribute before WebKit asks.
 */
export const SCHEME = "lineup";
export const ORIGIN = `${SCHEME}://app`;
export const HOME = `${ORIGIN}/index.html`;

/** WebKit feature flags turned off (identifiers as `WebKitSettings.get_all_features()` names them). */
export const FEATURES_OFF = ["LinkPreconnect", "LinkPreconnectEarlyHints", "LinkDNSPrefetch", "LinkPrefetch", "WebTransport", "ServiceWorkers", "SharedWorker", "NotificationEvent"] as const;

/** WebKitSettings properties, set on the one view. */
export const SETTINGS = {
  enable_webrtc: false,
  enable_media_stream: true,
  enable_developer_extras: false,
  javascript_can_open_windows_automatically: false,
  javascript_can_access_clipboard: false,
  allow_file_access_from_file_urls: false,
  allow_universal_access_from_file_urls: false,
} as const;

/** Escapes what WebKit's content-blocker regular expressions treat as special (they take no `\/`). */
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The content-blocker rules: block every load, then let through `lineup:` and the AppServer's WebSocket
 * origin (`ws://host:port` from the config; none when the config has none — the sign-in form then cannot
 * reach a server, which the page says), and the local back-end service's URL (its path alone, on its port).
 */
export function contentRules(serverOrigin: string | undefined, localBackendsUrl?: string): string {
  // Blob URLs of LineUp's own origin are the host page's own bytes (a recording read back, a back-end's worker):
  // no network. Apps' frames have opaque origins, so their blob URLs are `blob:null/…` and stay blocked.
  const allow = [
    `^${SCHEME}:`,
    `^blob:${escapeRegExp(ORIGIN)}/`,
    ...(serverOrigin === undefined ? [] : [`^${escapeRegExp(serverOrigin)}/`]),
    // The page's client always names its profile in the query (WebKit's rules take no alternation for "or the end").
    ...(localBackendsUrl === undefined ? [] : [`^${escapeRegExp(localBackendsUrl)}\\?`]),
  ];
  return JSON.stringify([
    { trigger: { "url-filter": ".*" }, action: { type: "block" } },
    ...allow.map((filter) => ({ trigger: { "url-filter": filter }, action: { type: "ignore-previous-rules" } })),
  ]);
}

/** Whether a frame may navigate to `uri`: only LineUp's own pages, and the empty documents frames start with. */
export function mayNavigate(uri: string): boolean {
  if (uri === "about:blank" || uri === "about:srcdoc") return true;
  return uri.startsWith(`${ORIGIN}/`);
}
