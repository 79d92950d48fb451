/**
 * What the host's site serves, for every host that serves it: `npm start`'s loopback HTTP server
 * (`node/serve.ts`) and the desktop host's `lineup://` scheme (`@lineup/host-desktop`). One function from
 * a path to a response, so both hosts send the same bytes under the same headers: the page with its CSP
 * (`connect-src` cut to the configured AppServer), the frame page every installed app is written into with
 * its own CSP and Permissions-Policy, the sign-in config (inside the page), the built-in bundles, the assets. No I/O
 * here: the adapter reads files and speaks its transport.
 */
import { CONFIG_ELEMENT_ID } from "../bootstrap/config.js";
import { FRAME_PERMISSIONS_POLICY } from "../surface-host/frame-policy.js";
import { grantOfFramePath, grantedFramePolicy } from "../surface-host/view-csp.js";

export interface ServedConfig {
  readonly server_url: string;
  readonly device_token: string;
  readonly agent_id?: string;
  readonly workspace_id?: string;
  readonly trusted_publishers?: readonly { readonly key_id: string; readonly public_key: string; readonly label?: string }[];
  readonly builtin_apps?: readonly { readonly name: string; readonly file: string; readonly app_scope?: string; readonly version?: string }[];
  /** The host's local back-end service (`node/serve.ts` adds it when it runs one): its URL; never its secret. */
  readonly local_backends?: { readonly url: string };
  /** How long an app stays loaded in the background, idle, before it is suspended; the page's default is 600. */
  readonly suspend_idle_seconds?: number;
}

export interface SiteOptions {
  /** The built host's `index.html` and `surface-frame.html`, as text. */
  readonly indexHtml: string;
  readonly frameHtml: string;
  /** The bytes of a file under the built host (`path` starts with `/`, checked: no `..`, no NUL), or undefined. */
  readFile(path: string): Promise<Uint8Array | undefined>;
  /**
   * Written into the page (`<script type="application/json" id="lineup-config">`), which then starts with it
   * without a request of its own, and is never stored by the browser's cache; without it the page shows its
   * sign-in form.
   */
  readonly config?: ServedConfig;
  /** Signed bundles served at `/apps/<file>` (the built-in apps the App Registry offers). */
  readonly bundles?: ReadonlyMap<string, Uint8Array>;
}

export interface SiteResponse {
  readonly status: number;
  /** Lower-case names; `content-type` always among them. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".ico": "image/x-icon",
  ".wasm": "application/wasm",
};

/** A page's CSP meta element: what comes before its policy, the policy, and the rest of the element. */
const CSP_META = /(<meta\s+http-equiv="Content-Security-Policy"\s+content=")([^"]*)("\s*\/?>)/i;

/** Every response carries these: no sniffing, no referrer, a window group of its own. */
const BASE_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
} as const;

/**
 * The headers of `surface-frame.html`, the document every sandboxed app is written into: its own CSP
 * (the one its meta tag states, sent before a byte is parsed), every powerful feature off, no DNS
 * prefetching. The browser tests serve the frame with these too.
 */
export function surfaceFrameHeaders(frameHtml: string): Record<string, string> {
  const policy = CSP_META.exec(frameHtml)?.[2];
  if (policy === undefined) throw new Error("surface-frame.html has no Content-Security-Policy meta: rebuild the host");
  return {
    "content-security-policy": policy,
    "permissions-policy": FRAME_PERMISSIONS_POLICY,
    "x-dns-prefetch-control": "off",
  };
}

/**
 * An MCP Apps view's frame page with the origins its person granted (`/surface-frame-view/<token>.html`,
 * surface-host/view-csp.ts): the same page and headers, its policy widened in both; undefined for any other path.
 */
export function grantedFramePage(frameHtml: string, path: string): { readonly html: string; readonly headers: Record<string, string> } | undefined {
  const grant = grantOfFramePath(path);
  if (grant === undefined) return undefined;
  const headers = surfaceFrameHeaders(frameHtml);
  const policy = grantedFramePolicy(headers["content-security-policy"]!, grant);
  return { html: frameHtml.replace(CSP_META, (_m, a: string, _b: string, c: string) => `${a}${policy}${c}`), headers: { ...headers, "content-security-policy": policy } };
}

/** The page's CSP with `connect-src` limited to the page itself, the AppServer's origin and the local back-end service's (when there is one). */
export function policyFor(basePolicy: string, serverUrl: string | undefined, localBackendsUrl?: string): string {
  // Without a config the person types the AppServer address into the sign-in form: allow loopback only (its
  // WebSocket, and its HTTP port for exchanging a pairing code).
  const dev = "ws://127.0.0.1:* ws://localhost:* http://127.0.0.1:* http://localhost:*";
  const local = localBackendsUrl === undefined ? undefined : webSocketOrigin(localBackendsUrl);
  const connect = `connect-src 'self' ${(serverUrl === undefined ? undefined : webSocketOrigin(serverUrl)) ?? dev}${local === undefined ? "" : ` ${local}`}`;
  return basePolicy
    .split(";")
    .map((d) => d.trim())
    .filter((d) => d !== "")
    .map((d) => (d.startsWith("connect-src") ? connect : d))
    .join("; ");
}

/**
 * `ws://host:port` of a `ws:`/`wss:` URL, or undefined for anything else. Read without `URL`, which GJS
 * (the desktop host's native side) does not have: a lower-case scheme, then an authority of a host name,
 * an IPv4 address or a bracketed IPv6 address and an optional port, with no user info.
 */
export function webSocketOrigin(serverUrl: string): string | undefined {
  const match = /^(wss?):\/\/((?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?)(?:[/?#]|$)/i.exec(serverUrl);
  if (match === null) return undefined;
  return `${match[1]!.toLowerCase()}://${match[2]!.toLowerCase()}`;
}

/**
 * The page with its config as a JSON data block at the end of its head: not a script the page's CSP would have to
 * allow, and read before the first script runs. Every `<` is escaped, so no text in the config ends the block.
 */
function withInlineConfig(html: string, config: ServedConfig): string {
  const json = JSON.stringify(config).replace(/</g, "\\u003c");
  const at = html.search(/<\/head>/i);
  if (at < 0) throw new Error("index.html has no </head>: rebuild the host");
  return `${html.slice(0, at)}<script type="application/json" id="${CONFIG_ELEMENT_ID}">${json}</script>\n${html.slice(at)}`;
}

/** The config `withInlineConfig` wrote into a page's HTML, parsed (unchecked); undefined when the page has none. */
export function configInPage(html: string): unknown {
  const text = new RegExp(`<script type="application/json" id="${CONFIG_ELEMENT_ID}">([^<]*)</script>`).exec(html)?.[1];
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

const encoder = new TextEncoder();
const extension = (path: string): string => /\.[a-z0-9]+$/i.exec(path)?.[0]?.toLowerCase() ?? "";

/** Builds the site: throws only when the built host is not one (a template without its CSP). */
export function createSite(options: SiteOptions): (path: string) => Promise<SiteResponse> {
  const baseMatch = CSP_META.exec(options.indexHtml);
  if (baseMatch === null) throw new Error("index.html has no Content-Security-Policy meta: rebuild the host");
  const policy = policyFor(baseMatch[2]!, options.config?.server_url, options.config?.local_backends?.url);
  // The policy goes in the page's header alone. A CSP meta element holds back the browser's preload scanner: with
  // it, a new Chromium profile started fetching the page's first script about 30 ms later (median of 20 loads each).
  const withoutMeta = options.indexHtml.replace(CSP_META, "");
  const indexHtml = encoder.encode(options.config === undefined ? withoutMeta : withInlineConfig(withoutMeta, options.config));
  // The page carries the device token: the browser keeps no copy of it in its cache.
  const indexCaching = options.config === undefined ? "no-cache" : "no-store";
  const frameHtml = encoder.encode(options.frameHtml);
  const frameHeaders = surfaceFrameHeaders(options.frameHtml);
  const respond = (status: number, type: string, body: Uint8Array | string, extra: Record<string, string> = {}): SiteResponse => ({
    status,
    headers: { "content-type": type, ...BASE_HEADERS, ...extra },
    body: typeof body === "string" ? encoder.encode(body) : body,
  });
  const notFound = () => respond(404, "text/plain; charset=utf-8", "not found");

  return async (path) => {
    if (path.startsWith("/apps/")) {
      const bundle = options.bundles?.get(path.slice("/apps/".length));
      return bundle === undefined ? notFound() : respond(200, "application/zip", bundle, { "cache-control": "no-cache" });
    }
    if (path === "/" || path === "/index.html") {
      return respond(200, CONTENT_TYPES[".html"]!, indexHtml, { "cache-control": indexCaching, "content-security-policy": `${policy}; frame-ancestors 'none'` });
    }
    if (path === "/surface-frame.html") return respond(200, CONTENT_TYPES[".html"]!, frameHtml, { "cache-control": "no-cache", ...frameHeaders });
    const granted = grantedFramePage(options.frameHtml, path);
    if (granted !== undefined) return respond(200, CONTENT_TYPES[".html"]!, granted.html, { "cache-control": "no-cache", ...granted.headers });
    if (!path.startsWith("/") || path.includes("\0") || path.split("/").some((segment) => segment === ".." || segment === ".")) return notFound();
    const body = await options.readFile(path);
    if (body === undefined) return notFound();
    const immutable = path.startsWith("/assets/");
    return respond(200, CONTENT_TYPES[extension(path)] ?? "application/octet-stream", body, { "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache" });
  };
}
