/**
 * The host's static server for `npm start` and the browser tests: serves the built `dist/` on 127.0.0.1
 * and answers `/lineup-config.json` with the sign-in config (AppServer URL + device token). The page's
 * CSP is rewritten so `connect-src` names exactly the configured AppServer origin, and sent as a header
 * too. Only GET and HEAD; only the loopback Host header (a DNS-rebinding page cannot read the token).
 */
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, resolve, sep } from "node:path";
import { FRAME_PERMISSIONS_POLICY } from "../surface-host/frame-policy.js";

export interface ServedConfig {
  readonly server_url: string;
  readonly device_token: string;
  readonly agent_id?: string;
  readonly workspace_id?: string;
  readonly trusted_publishers?: readonly { readonly key_id: string; readonly public_key: string; readonly label?: string }[];
  readonly builtin_apps?: readonly { readonly name: string; readonly file: string; readonly app_scope?: string; readonly version?: string }[];
}

export interface HostServerOptions {
  /** The built host (`packages/host-web/dist`). */
  readonly distDir: string;
  /** Served at `/lineup-config.json`; without it the page shows its sign-in form. */
  readonly config?: ServedConfig;
  /** Default 0 (any free port). */
  readonly port?: number;
  /** Signed bundles served at `/apps/<file>` (the built-in apps the App Registry offers). */
  readonly bundles?: ReadonlyMap<string, Uint8Array>;
}

export interface HostServer {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".ico": "image/x-icon",
};

const CSP_META = /(<meta\s+http-equiv="Content-Security-Policy"\s+content=")([^"]*)(")/i;

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

/** The page's CSP with `connect-src` limited to the page itself and the AppServer's origin. */
export function policyFor(basePolicy: string, serverUrl: string | undefined): string {
  // Without a config the person types the AppServer address into the sign-in form: allow loopback only.
  const dev = "ws://127.0.0.1:* ws://localhost:*";
  const connect = `connect-src 'self' ${(serverUrl === undefined ? undefined : wsOrigin(serverUrl)) ?? dev}`;
  return basePolicy
    .split(";")
    .map((d) => d.trim())
    .filter((d) => d !== "")
    .map((d) => (d.startsWith("connect-src") ? connect : d))
    .join("; ");
}

function wsOrigin(serverUrl: string): string | undefined {
  try {
    const url = new URL(serverUrl);
    return url.protocol === "ws:" || url.protocol === "wss:" ? `${url.protocol}//${url.host}` : undefined;
  } catch {
    return undefined;
  }
}

export async function startHostServer(options: HostServerOptions): Promise<HostServer> {
  const root = resolve(options.distDir);
  const template = await readFile(join(root, "index.html"), "utf8");
  const baseMatch = CSP_META.exec(template);
  if (baseMatch === null) throw new Error(`${root}/index.html has no Content-Security-Policy meta: rebuild the host`);
  const policy = policyFor(baseMatch[2]!, options.config?.server_url);
  const indexHtml = template.replace(CSP_META, (_m, a: string, _b: string, c: string) => `${a}${policy}${c}`);
  const frameHtml = await readFile(join(root, "surface-frame.html"), "utf8");
  const frameHeaders = surfaceFrameHeaders(frameHtml);
  const configBody = options.config === undefined ? undefined : JSON.stringify(options.config);
  let port = 0;

  const send = (res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}) => {
    res.writeHead(status, {
      "content-type": type,
      "content-length": Buffer.byteLength(body),
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cross-origin-opener-policy": "same-origin",
      ...extra,
    });
    res.end(res.req.method === "HEAD" ? undefined : body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "text/plain", "method not allowed", { allow: "GET, HEAD" });
    const host = req.headers.host ?? "";
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return send(res, 421, "text/plain", "wrong host");
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
    if (path === "/lineup-config.json") {
      if (configBody === undefined) return send(res, 404, "text/plain", "no config");
      return send(res, 200, TYPES[".json"]!, configBody, { "cache-control": "no-store" });
    }
    if (path.startsWith("/apps/")) {
      const bundle = options.bundles?.get(path.slice("/apps/".length));
      if (bundle === undefined) return send(res, 404, "text/plain", "not found");
      return send(res, 200, "application/zip", Buffer.from(bundle), { "cache-control": "no-cache" });
    }
    if (path === "/" || path === "/index.html") {
      return send(res, 200, TYPES[".html"]!, indexHtml, { "cache-control": "no-cache", "content-security-policy": `${policy}; frame-ancestors 'none'` });
    }
    if (path === "/surface-frame.html") return send(res, 200, TYPES[".html"]!, frameHtml, { "cache-control": "no-cache", ...frameHeaders });
    const file = normalize(join(root, path));
    if (!file.startsWith(root + sep) || path.includes("\0")) return send(res, 404, "text/plain", "not found");
    try {
      const body = await readFile(file);
      const immutable = path.startsWith("/assets/");
      return send(res, 200, TYPES[extname(file)] ?? "application/octet-stream", body, { "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache" });
    } catch {
      return send(res, 404, "text/plain", "not found");
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, "text/plain", "internal error");
      else res.destroy();
    });
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolveListen());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
