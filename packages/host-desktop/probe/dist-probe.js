/* global print, TextEncoder, TextDecoder */
// Probe: the built web host (packages/host-web/dist) served over lineup:// with the web host's CSPs.
// Run: WEBKIT_DISABLE_COMPOSITING_MODE=1 xvfb-run -a gjs -m dist-probe.js DIST_DIR CONFIG_JSON_FILE OUT_PNG
import GLib from "gi://GLib";
import Gio from "gi://Gio";
import Gtk from "gi://Gtk?version=4.0";
import Soup from "gi://Soup?version=3.0";
import WebKit from "gi://WebKit?version=6.0";
import { programArgs } from "system";

const [distDir, configFile, outPng] = programArgs;
const decoder = new TextDecoder();
const readBytes = (path) => GLib.file_get_contents(path)[1];
const configBytes = readBytes(configFile);
const config = JSON.parse(decoder.decode(configBytes));
const CSP_META = /(<meta\s+http-equiv="Content-Security-Policy"\s+content=")([^"]*)(")/i;
const wsOrigin = /^wss?:\/\/([^/]+)/.exec(config.server_url)[1];
const template = decoder.decode(readBytes(`${distDir}/index.html`));
const policy = CSP_META.exec(template)[2].split(";").map((d) => d.trim()).filter((d) => d !== "")
  .map((d) => (d.startsWith("connect-src") ? `connect-src 'self' ws://${wsOrigin}` : d)).join("; ");
const indexHtml = new TextEncoder().encode(template.replace(CSP_META, (_m, a, _b, c) => `${a}${policy}${c}`));
const frameHtml = readBytes(`${distDir}/surface-frame.html`);
const framePolicy = CSP_META.exec(decoder.decode(frameHtml))[2];
const TYPES = { html: "text/html", js: "text/javascript", css: "text/css", json: "application/json", svg: "image/svg+xml", png: "image/png" };

function respond(request, bytes, type, headers) {
  const stream = Gio.MemoryInputStream.new_from_bytes(new GLib.Bytes(bytes));
  const response = new WebKit.URISchemeResponse({ stream, stream_length: bytes.length });
  response.set_content_type(type);
  const h = Soup.MessageHeaders.new(Soup.MessageHeadersType.RESPONSE);
  for (const [k, v] of Object.entries({ "content-type": type, "x-content-type-options": "nosniff", "referrer-policy": "no-referrer", ...headers })) h.append(k, v);
  response.set_http_headers(h);
  request.finish_with_response(response);
}

const loop = GLib.MainLoop.new(null, false);
Gtk.init();
const dataDir = GLib.build_filenamev([GLib.get_tmp_dir(), `lineup-dist-probe-${GLib.get_monotonic_time()}`]);
const session = new WebKit.NetworkSession({ data_directory: dataDir, cache_directory: dataDir + "/cache" });
const context = new WebKit.WebContext();
context.get_security_manager().register_uri_scheme_as_secure("lineup");
context.get_security_manager().register_uri_scheme_as_cors_enabled("lineup");
context.register_uri_scheme("lineup", (request) => {
  const path = request.get_path();
  print("GET " + request.get_uri());
  if (path === "/" || path === "/index.html") return respond(request, indexHtml, TYPES.html, { "content-security-policy": `${policy}; frame-ancestors 'none'` });
  if (path === "/surface-frame.html") return respond(request, frameHtml, TYPES.html, { "content-security-policy": framePolicy });
  if (path === "/lineup-config.json") return respond(request, configBytes, TYPES.json, { "cache-control": "no-store" });
  if (path.includes("..") || path.includes("\0")) return request.finish_error(new GLib.Error(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND, "not found"));
  try {
    respond(request, readBytes(distDir + path), TYPES[path.split(".").pop()] ?? "application/octet-stream", {});
  } catch {
    request.finish_error(new GLib.Error(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND, "not found"));
  }
});
const view = new WebKit.WebView({ web_context: context, network_session: session });
view.connect("load-failed", (_v, _e, uri, error) => { print(`LOAD FAILED ${uri}: ${error.message}`); return false; });
const win = new Gtk.Window({ title: "LineUp", default_width: 1100, default_height: 760 });
win.set_child(view);
win.present();
view.load_uri("lineup://app/index.html");
// Poll the page's text until it is online (or time out) and snapshot it either way.
let tries = 0;
let finished = false;
GLib.timeout_add(GLib.PRIORITY_DEFAULT, 500, () => {
  view.evaluate_javascript("document.body.innerText.slice(0, 400)", -1, null, null, null, (_v, res) => {
    let text;
    try { text = view.evaluate_javascript_finish(res).to_string(); } catch (e) { text = "eval error " + e; }
    if (++tries % 4 === 0) print(`TEXT[${tries}]: ${JSON.stringify(text)}`);
    if (!finished && (/online/i.test(text) || tries > 40)) {
      finished = true;
      print("FINAL TEXT: " + JSON.stringify(text));
      view.get_snapshot(WebKit.SnapshotRegion.VISIBLE, WebKit.SnapshotOptions.NONE, null, (_w, r) => {
        view.get_snapshot_finish(r).save_to_png(outPng);
        print("SNAPSHOT " + outPng);
        loop.quit();
      });
    }
  });
  return !finished;
});
loop.run();
