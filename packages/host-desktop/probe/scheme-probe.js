/* global print, TextEncoder */
// Probe: can a lineup:// page open a ws://127.0.0.1 WebSocket, use IndexedDB, and talk to the native side?
// Run: WEBKIT_DISABLE_COMPOSITING_MODE=1 xvfb-run -a gjs -m scheme-probe.js ws://127.0.0.1:PORT
import GLib from "gi://GLib";
import Gio from "gi://Gio";
import Gtk from "gi://Gtk?version=4.0";
import WebKit from "gi://WebKit?version=6.0";
import JavaScriptCore from "gi://JavaScriptCore?version=6.0";
import { programArgs } from "system";

const wsUrl = programArgs[0];
const page = `<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src ${wsUrl.replace(/\/[^/]*$/, "")}">
<h1 style="font:32px sans-serif">LineUp scheme probe</h1>
<script>
const out = {};
const send = (m) => window.webkit.messageHandlers.lineup.postMessage(m);
const done = () => { if ("ws" in out && "idb" in out && "csp" in out) send(JSON.stringify(out)).then((r) => send(JSON.stringify({ reply: r }))); };
try { const ws = new WebSocket(${JSON.stringify(wsUrl)}); ws.onopen = () => { out.ws = "open"; ws.close(); done(); }; ws.onerror = () => { out.ws = "error"; done(); }; } catch (e) { out.ws = "throw " + e; done(); }
try { const r = indexedDB.open("probe", 1); r.onupgradeneeded = () => r.result.createObjectStore("s");
  r.onsuccess = () => { const tx = r.result.transaction("s", "readwrite"); tx.objectStore("s").put(1, "k"); tx.oncomplete = () => { out.idb = "ok"; done(); }; tx.onerror = () => { out.idb = "tx error"; done(); }; };
  r.onerror = () => { out.idb = "error " + r.error; done(); }; } catch (e) { out.idb = "throw " + e; done(); }
// The same server under another origin (localhost), which connect-src does not name, must be refused.
document.addEventListener("securitypolicyviolation", (e) => { out.csp = e.violatedDirective + " " + e.blockedURI; done(); });
try { const other = new WebSocket(${JSON.stringify(wsUrl.replace("127.0.0.1", "localhost"))}); other.onopen = () => { out.csp = "NOT ENFORCED: opened " + other.url; done(); }; other.onerror = () => setTimeout(() => { out.csp ??= "no violation event; socket error"; done(); }, 300); } catch (e) { out.csp = "threw " + e.name; done(); }
out.origin = location.origin; out.secure = isSecureContext; out.crypto = typeof crypto.subtle;
</script>`;

const loop = GLib.MainLoop.new(null, false);
Gtk.init();
const dataDir = GLib.build_filenamev([GLib.get_tmp_dir(), `lineup-probe-${GLib.get_monotonic_time()}`]);
const session = new WebKit.NetworkSession({ data_directory: dataDir, cache_directory: dataDir + "/cache" });
const context = new WebKit.WebContext();
context.get_security_manager().register_uri_scheme_as_secure("lineup");
context.get_security_manager().register_uri_scheme_as_cors_enabled("lineup");
context.register_uri_scheme("lineup", (request) => {
  const bytes = new TextEncoder().encode(page);
  const stream = Gio.MemoryInputStream.new_from_bytes(new GLib.Bytes(bytes));
  const response = new WebKit.URISchemeResponse({ stream, stream_length: bytes.length });
  response.set_content_type("text/html");
  request.finish_with_response(response);
});
const manager = new WebKit.UserContentManager();
let got = 0;
manager.register_script_message_handler_with_reply("lineup", null);
manager.connect("script-message-with-reply-received", (_m, value, reply) => {
  print("PAGE: " + value.to_string());
  reply.return_value(JavaScriptCore.Value.new_string(value.get_context(), "native-ack"));
  if (++got === 2) snapshot();
  return true;
});
const view = new WebKit.WebView({ web_context: context, network_session: session, user_content_manager: manager });
const win = new Gtk.Window({ title: "probe", default_width: 400, default_height: 300 });
win.set_child(view);
win.present();
view.load_uri("lineup://app/index.html");
GLib.timeout_add(GLib.PRIORITY_DEFAULT, 8000, () => { print("TIMEOUT"); loop.quit(); return false; });
function snapshot() {
  view.get_snapshot(WebKit.SnapshotRegion.VISIBLE, WebKit.SnapshotOptions.NONE, null, (_v, res) => {
    const texture = view.get_snapshot_finish(res);
    texture.save_to_png(GLib.get_current_dir() + "/../test/output/probe.png");
    print("SNAPSHOT saved"); loop.quit();
  });
}
loop.run();
