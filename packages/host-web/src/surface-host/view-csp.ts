/**
 * The network an MCP Apps view's frame may reach (its server's `_meta.ui.csp`), once the person granted it: by default
 * none (the frame page's `connect-src 'none'`). A grant travels in the frame page's path
 * (`/surface-frame-view/<token>.html`, `viewFramePath`), and the site serves the same frame page with those origins
 * added to its policy, in the header and in the meta tag alike (`grantedFramePolicy`). Each origin is checked to be a
 * bare `scheme://host[:port]` (http, https, ws, wss), so nothing else can be written into the policy. Neutral code:
 * the browser, Node and the desktop host's GJS all run it (hex, not base64: GJS has no `atob`).
 */

/** The origins a person let one view reach. `connect`: fetch, XHR, WebSocket; `resource`: scripts, styles, images, fonts, media. */
export interface ViewCspGrant {
  readonly connect_domains: readonly string[];
  readonly resource_domains: readonly string[];
}

/** The most origins of each kind a grant holds. */
export const MAX_GRANTED_ORIGINS = 8;
const ORIGIN = /^(?:https?|wss?):\/\/(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]{2,45}\])(?::[0-9]{1,5})?$/;
const PREFIX = "/surface-frame-view/";

/** Whether `origin` may be granted: a bare lower-case `scheme://host[:port]`, nothing more. */
export const isGrantableOrigin = (origin: string): boolean => origin.length <= 300 && ORIGIN.test(origin);

const valid = (grant: ViewCspGrant): boolean =>
  [grant.connect_domains, grant.resource_domains].every((list) => Array.isArray(list) && list.length <= MAX_GRANTED_ORIGINS && list.every((o) => typeof o === "string" && isGrantableOrigin(o)));

/** The frame page's path for `grant` (relative to the site's root, no leading slash), or undefined when nothing is granted. */
export function viewFramePath(grant: ViewCspGrant): string | undefined {
  if (grant.connect_domains.length === 0 && grant.resource_domains.length === 0) return undefined;
  if (!valid(grant)) throw new Error("a view's grant names something that is not an origin");
  const text = JSON.stringify({ c: grant.connect_domains, r: grant.resource_domains });
  let hex = "";
  for (let i = 0; i < text.length; i++) hex += text.charCodeAt(i).toString(16).padStart(2, "0");
  return `${PREFIX.slice(1)}${hex}.html`;
}

/** The grant a frame path (`/surface-frame-view/<token>.html`) carries; undefined for any other path or a bad token. */
export function grantOfFramePath(path: string): ViewCspGrant | undefined {
  if (!path.startsWith(PREFIX) || !path.endsWith(".html")) return undefined;
  const hex = path.slice(PREFIX.length, -".html".length);
  if (hex.length === 0 || hex.length > 8_192 || !/^(?:[0-9a-f]{2})+$/.test(hex)) return undefined;
  let text = "";
  for (let i = 0; i < hex.length; i += 2) text += String.fromCharCode(parseInt(hex.slice(i, i + 2), 16));
  try {
    const parsed = JSON.parse(text) as { c?: unknown; r?: unknown };
    const grant = { connect_domains: parsed.c as string[], resource_domains: parsed.r as string[] };
    return valid(grant) ? grant : undefined;
  } catch {
    return undefined;
  }
}

/** `policy` (the frame page's CSP) with the granted origins added: `connect-src` gets `connect`, the resource directives `resource`. */
export function grantedFramePolicy(policy: string, grant: ViewCspGrant): string {
  const add = (directive: string, origins: readonly string[]): string => {
    if (origins.length === 0) return directive;
    const [name, ...sources] = directive.split(/\s+/);
    return [name, ...sources.filter((s) => s !== "'none'"), ...origins].join(" ");
  };
  return policy
    .split(";")
    .map((d) => d.trim())
    .filter((d) => d !== "")
    .map((d) => {
      const name = d.split(/\s+/)[0];
      if (name === "connect-src") return add(d, grant.connect_domains);
      if (name === "script-src" || name === "style-src" || name === "img-src" || name === "font-src" || name === "media-src") return add(d, grant.resource_domains);
      return d;
    })
    .join("; ");
}
