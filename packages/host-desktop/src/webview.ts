/**
 * The one webview: confined (`confinement.ts`) before its first load, with the host world's relay in the top
 * frame and, for tests only, the driver's world in every frame.
 */
import GLib from "gi://GLib";
import WebKit from "gi://WebKit?version=6.0";
import { contentRules, FEATURES_OFF, mayNavigate, SETTINGS } from "./confinement.js";
import { DRIVER_WORLD, frameDriver, HOST_EVENTS, HOST_WORLD, hostRelay } from "./page-scripts.js";
import type { Dialogs } from "./dialogs.js";
import { join } from "./io.js";
import type { Notifier } from "./notifications.js";
import type { ExpectedAsks } from "./expected-asks.js";

export interface WebViewEvents {
  /** A navigation the confinement refused (the page or an app tried to leave LineUp's pages). */
  onRefusedNavigation(uri: string): void;
  onLoadFailed(uri: string, message: string): void;
  onWebProcessTerminated(reason: number): void;
}

export interface ConfinedView {
  readonly view: WebKit.WebView;
  readonly manager: WebKit.UserContentManager;
}

const source = (fn: (...args: never[]) => void, ...args: unknown[]): string => `(${fn.toString()})(${args.map((a) => JSON.stringify(a)).join(", ")});`;

/** Makes the view; `ready` is called once the content filter is in place (loads before it would go unfiltered). */
export function createConfinedView(options: {
  readonly context: WebKit.WebContext;
  readonly dataDir: string;
  readonly serverOrigin: string | undefined;
  /** The local back-end service's URL from the config (`local_backends.url`), the one loopback URL the page may open besides. */
  readonly localBackendsUrl: string | undefined;
  readonly driver: boolean;
  readonly events: WebViewEvents;
  /** The file dialogs a pick opens (the host page's `<input type=file>`: the gateway's `file.pick`). */
  readonly dialogs: Dialogs;
  readonly notifier: Notifier;
  /** The asks the host page said were coming: the only ones allowed. */
  readonly expected: ExpectedAsks;
  /** Under the test driver only: WebKit's mock microphone instead of the machine's (`--mock-capture`). */
  readonly mockCapture: boolean;
  readonly ready: (view: ConfinedView) => void;
  readonly failed: (message: string) => void;
}): void {
  const settings = new WebKit.Settings();
  for (const [name, value] of Object.entries(SETTINGS)) (settings as unknown as Record<string, boolean>)[name] = value;
  // Under the test driver, the pages' console (CSP reports among it) goes to standard output for the test's log.
  settings.enable_write_console_messages_to_stdout = options.driver;
  settings.enable_mock_capture_devices = options.mockCapture;
  const features = WebKit.Settings.get_all_features();
  const off = new Set<string>(FEATURES_OFF);
  for (let i = 0; i < features.get_length(); i++) {
    const feature = features.get(i);
    if (off.has(feature.get_identifier())) settings.set_feature_enabled(feature, false);
  }
  const manager = new WebKit.UserContentManager();
  manager.register_script_message_handler_with_reply(HOST_WORLD, HOST_WORLD);
  manager.add_script(WebKit.UserScript.new_for_world(source(hostRelay, HOST_EVENTS, HOST_WORLD), WebKit.UserContentInjectedFrames.TOP_FRAME, WebKit.UserScriptInjectionTime.START, HOST_WORLD, null, null));
  if (options.driver) {
    manager.register_script_message_handler_with_reply(DRIVER_WORLD, DRIVER_WORLD);
    manager.add_script(WebKit.UserScript.new_for_world(source(frameDriver, DRIVER_WORLD), WebKit.UserContentInjectedFrames.ALL_FRAMES, WebKit.UserScriptInjectionTime.END, DRIVER_WORLD, null, null));
  }
  const session = new WebKit.NetworkSession({ data_directory: join(options.dataDir, "webkit"), cache_directory: join(options.dataDir, "webkit-cache") });
  const view = new WebKit.WebView({ web_context: options.context, network_session: session, user_content_manager: manager, settings });
  view.connect("decide-policy", (_view, decision, type) => {
    if (type === WebKit.PolicyDecisionType.NEW_WINDOW_ACTION) {
      decision.ignore();
      return true;
    }
    if (type !== WebKit.PolicyDecisionType.NAVIGATION_ACTION) return false;
    const uri = (decision as WebKit.NavigationPolicyDecision).get_navigation_action().get_request().get_uri();
    if (mayNavigate(uri)) return false;
    decision.ignore();
    options.events.onRefusedNavigation(uri);
    return true;
  });
  view.connect("create", () => null);
  // Nothing is granted to web content directly: devices go through the Runtime's gateway, which has asked the
  // person before the page asks WebKit. WebKit does not say which frame asks, so an ask is allowed only when the host
  // page told the native side it was coming (host channel `permission.expect`, `expected-asks.ts`), one told ask for
  // one ask: the gateway's notification.show (where the desktop has a notification service) and its
  // microphone.record (audio alone, never a camera or the screen). Every other ask is refused, whatever WebKit let
  // through: apps' frames (sandboxed, opaque origins) are refused by WebKit before they get here.
  view.connect("permission-request", (_view, request) => {
    if (request instanceof WebKit.NotificationPermissionRequest) {
      if (options.notifier.available && options.expected.take("notifications")) request.allow();
      else request.deny();
    } else if (request instanceof WebKit.UserMediaPermissionRequest && request.is_for_audio_device && !request.is_for_video_device && !request.is_for_display_device) {
      if (options.expected.take("microphone")) request.allow();
      else request.deny();
    } else request.deny();
    return true;
  });
  view.connect("show-notification", (_view, notification) => {
    options.notifier.show(notification);
    return true;
  });
  // The host page's file input (the gateway's file.pick; apps' frames may not open one): the desktop's own dialog.
  view.connect("run-file-chooser", (_view, request) => {
    options.dialogs
      .pick({ multiple: request.get_select_multiple(), accept: request.get_mime_types() ?? [] })
      .then((paths) => (paths === undefined ? request.cancel() : request.select_files(paths)))
      .catch(() => request.cancel());
    return true;
  });
  view.connect("load-failed", (_view, _event, uri, error) => {
    options.events.onLoadFailed(uri, error.message);
    return false;
  });
  view.connect("web-process-terminated", (_view, reason) => options.events.onWebProcessTerminated(reason));

  const store = new WebKit.UserContentFilterStore({ path: join(options.dataDir, "content-filters") });
  store.save("lineup-confinement", new GLib.Bytes(new TextEncoder().encode(contentRules(options.serverOrigin, options.localBackendsUrl))), null, (_store, result) => {
    try {
      manager.add_filter(store.save_finish(result));
    } catch (error) {
      // Without the filter the confinement does not hold: the window does not open.
      return options.failed(`the content filter could not be compiled: ${error instanceof Error ? error.message : String(error)}`);
    }
    options.ready({ view, manager });
  });
}
