/**
 * The `lineup://app/` scheme: the web host's site (`@lineup/host-web/serving`) answered by the native side,
 * so the page, the frame page every app is written into and their CSPs are the same bytes and headers as
 * in the web host, and nothing is fetched from the network. Only GET, only the host `app`.
 */
import GLib from "gi://GLib";
import Gio from "gi://Gio";
import Soup from "gi://Soup?version=3.0";
import WebKit from "gi://WebKit?version=6.0";
import type { SiteResponse } from "@lineup/host-web/serving";
import { ORIGIN, SCHEME } from "./confinement.js";

export type Site = (path: string) => Promise<SiteResponse>;

const REASONS: Record<number, string> = { 200: "OK", 404: "Not Found", 405: "Method Not Allowed", 500: "Internal Server Error" };

function respond(request: WebKit.URISchemeRequest, response: SiteResponse): void {
  const body = new GLib.Bytes(response.body);
  const answer = new WebKit.URISchemeResponse({ stream: Gio.MemoryInputStream.new_from_bytes(body), stream_length: response.body.byteLength });
  answer.set_status(response.status, REASONS[response.status] ?? null);
  answer.set_content_type(response.headers["content-type"]!);
  // The header set replaces the content type given above: it must carry content-type too, or under
  // nosniff a stylesheet is dropped (measured in the first probe).
  const headers = Soup.MessageHeaders.new(Soup.MessageHeadersType.RESPONSE);
  for (const [name, value] of Object.entries(response.headers)) headers.append(name, value);
  answer.set_http_headers(headers);
  request.finish_with_response(answer);
}

const plain = (status: number, text: string): SiteResponse => ({ status, headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" }, body: new TextEncoder().encode(text) });

export function registerScheme(context: WebKit.WebContext, site: Site): void {
  const security = context.get_security_manager();
  security.register_uri_scheme_as_secure(SCHEME);
  security.register_uri_scheme_as_cors_enabled(SCHEME);
  context.register_uri_scheme(SCHEME, (request) => {
    const uri = request.get_uri();
    if (!uri.startsWith(`${ORIGIN}/`)) return respond(request, plain(404, "not found"));
    const method = request.get_http_method() ?? "GET";
    if (method !== "GET") return respond(request, plain(405, "method not allowed"));
    let path: string;
    try {
      path = decodeURIComponent(request.get_path());
    } catch {
      return respond(request, plain(404, "not found"));
    }
    site(path).then(
      (response) => respond(request, response),
      () => respond(request, plain(500, "internal error")),
    );
  });
}
