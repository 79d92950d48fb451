/**
 * The LineUp desktop host (issue 23): the web host's shell, core apps and surface host, unchanged, in a GTK 4
 * window holding one WebKitGTK 6.0 view. The Runtime runs in the view on the IndexedDB store, exactly as in
 * the web host (docs/architecture.md says why); this program is its bootstrap's native half: it serves the
 * built host over `lineup://app/`, confines the view (`confinement.ts`), answers the host channel, keeps the
 * window's size and one instance per profile, and on close lets the page stop its Runtime before it exits.
 */
import Gdk from "gi://Gdk?version=4.0";
import GLib from "gi://GLib";
import GObject from "gi://GObject";
import Gtk from "gi://Gtk?version=4.0";
import WebKit from "gi://WebKit?version=6.0";
import { exit, programArgs } from "system";
import { createSite, webSocketOrigin, type ServedConfig } from "@lineup/host-web/serving";
import { base64ToBytes, encodeHostChannelPush, type HostChannelPushName, type HostChannelPushParams } from "@lineup/protocol";
import Gio from "gi://Gio";
import { createChannel } from "./channel.js";
import { fakeDialogs, nativeDialogs, readPicked } from "./dialogs.js";
import { createNotifier } from "./notifications.js";
import { secretService, writePrivateFile } from "./keyring.js";
import { settleToken, type TokenStorage } from "./token-store.js";
import { HOME } from "./confinement.js";
import { emit, startDriver } from "./driver.js";
import { createExpectedAsks } from "./expected-asks.js";
import { takeInstanceLock } from "./instance-lock.js";
import { askToPresent, listenForPresent } from "./present.js";
import { join, readBytes, readText, writeLine, writeText } from "./io.js";
import { parseOptions, USAGE } from "./options.js";
import { HOST_EVENTS, HOST_WORLD, hostPush, shutdownBody } from "./page-scripts.js";
import { registerScheme } from "./scheme.js";
import { startWatchdog, type Watchdog } from "./watchdog.js";
import { createConfinedView } from "./webview.js";
import { parseWindowState, windowShown, type WindowShown, type WindowState } from "./window-state.js";
import JavaScriptCore from "gi://JavaScriptCore?version=6.0";

/** How long the page may take to stop its Runtime on close before the window goes anyway. */
const SHUTDOWN_LIMIT_MS = 5_000;
/** How often the watchdog asks the page, and how long an answer may take before the web process counts as hung. */
const WATCHDOG = { everyMs: 1_000, limitMs: 6_000 } as const;

function fatal(message: string, code = 1): never {
  writeLine(`lineup-desktop: ${message}`);
  exit(code);
}

function main(): void {
  const parsed = parseOptions(programArgs, join(GLib.get_user_data_dir(), "lineup", "desktop"));
  if (!parsed.ok) fatal(`${parsed.error}\n${USAGE}`, 2);
  const options = parsed.value;
  GLib.mkdir_with_parents(options.dataDir, 0o700);
  const lock = takeInstanceLock(options.dataDir);
  if (!lock.ok) {
    // One window per profile: the running one comes forward.
    if (askToPresent(options.dataDir)) {
      writeLine(`lineup-desktop: LineUp is already running on this profile (pid ${lock.pid}); its window was brought forward`);
      exit(0);
    }
    fatal(`LineUp is already running on this profile (pid ${lock.pid}), and did not answer: ${options.dataDir}`);
  }

  const indexHtml = readText(join(options.dist, "index.html"));
  const frameHtml = readText(join(options.dist, "surface-frame.html"));
  if (indexHtml === undefined || frameHtml === undefined) fatal(`${options.dist} is not a built web host (no index.html or surface-frame.html): run npm run build in packages/host-web`);
  let config: ServedConfig | undefined;
  if (options.config !== undefined) {
    const text = readText(options.config);
    if (text === undefined) fatal(`cannot read the config ${options.config}`);
    try {
      config = JSON.parse(text) as ServedConfig;
    } catch {
      fatal(`the config ${options.config} is not JSON`);
    }
  }
  // The device token rests in the keyring where one runs, else in the config file, readable by this user alone.
  let tokenStorage: TokenStorage = "none";
  if (config !== undefined && options.config !== undefined) {
    const settled = settleToken(config as unknown as Record<string, unknown>, options.config, secretService, writePrivateFile);
    config = settled.config as unknown as ServedConfig;
    tokenStorage = settled.storage;
    if (settled.notice !== undefined) writeLine(`lineup-desktop: ${settled.notice}`);
  }
  const bundles = new Map<string, Uint8Array>();
  for (const { file, path } of options.bundles) {
    const bytes = readBytes(path);
    if (bytes === undefined) fatal(`cannot read the bundle ${path}`);
    bundles.set(file, bytes);
  }
  const site = createSite({ indexHtml, frameHtml, readFile: async (path) => readBytes(join(options.dist, path)), bundles, ...(config === undefined ? {} : { config }) });

  Gtk.init();
  const loop = GLib.MainLoop.new(null, false);
  const context = new WebKit.WebContext();
  registerScheme(context, site);
  const stateFile = join(options.dataDir, "window.json");
  const saved = parseWindowState(readText(stateFile));
  const window = new Gtk.Window({ title: "LineUp", default_width: saved.width, default_height: saved.height });
  if (saved.maximized) window.maximize();

  let closing = false;
  let view: WebKit.WebView | undefined;
  let watchdog: Watchdog | undefined;
  /** Whether the web process now ending was ended by the watchdog (else it crashed). */
  let endedForHang = false;
  const stopListening = listenForPresent(options.dataDir, () => {
    window.present();
    if (options.driver) emit({ event: "presented" });
  });
  const finish = () => {
    const [width, height] = window.get_default_size();
    const state: WindowState = { width, height, maximized: window.is_maximized() };
    writeText(stateFile, JSON.stringify(state));
    stopListening();
    lock.release();
    window.destroy();
    loop.quit();
  };
  /** Closing, however it starts (the window's close button, SIGTERM, the driver): the page stops its Runtime first. */
  const close = () => {
    if (closing) return;
    closing = true;
    watchdog?.stop();
    if (view === undefined) return finish();
    let done = false;
    const finishOnce = (flushed: boolean) => {
      if (done) return;
      done = true;
      if (options.driver) emit({ event: "shutdown", flushed });
      finish();
    };
    // A hung page never answers: the window goes anyway, a second after the page's own limit.
    GLib.timeout_add(GLib.PRIORITY_DEFAULT, SHUTDOWN_LIMIT_MS + 1_000, () => (finishOnce(false), false));
    view.call_async_javascript_function(shutdownBody(HOST_EVENTS, SHUTDOWN_LIMIT_MS), -1, null, HOST_WORLD, null, null, (_view, result) => {
      let flushed: boolean;
      try {
        flushed = view!.call_async_javascript_function_finish(result).to_string() === "true";
      } catch {
        flushed = false;
      }
      finishOnce(flushed);
    });
  };
  window.connect("close-request", () => {
    close();
    return true;
  });
  GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 15, () => (close(), false));
  GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 2, () => (close(), false));

  const dialogs = options.fakeDialogs === undefined ? nativeDialogs(window) : fakeDialogs(options.fakeDialogs);
  /**
   * Tells the host page something unasked (the host channel's push): run in the host world of the top frame alone,
   * so no app's frame hears it. Before the page listens (it is loading) the push is lost, and `host.info` says the
   * state the page starts from.
   */
  const push = <P extends HostChannelPushName>(name: P, params: HostChannelPushParams<P>): void => {
    if (options.driver) emit({ event: "pushed", push: name, params });
    view?.evaluate_javascript(`(${hostPush.toString()})(${JSON.stringify(HOST_EVENTS)}, ${JSON.stringify(encodeHostChannelPush(name, params))});`, -1, HOST_WORLD, null, null, (_view, result) => {
      try {
        view?.evaluate_javascript_finish(result);
      } catch {
        // The page is between two documents: it reads the state from host.info when it comes back.
      }
    });
  };
  const notifier = createNotifier(
    () => window.present(),
    (available) => push("host.notifications", { available }),
  );
  // The host page's notification permission is settled before it loads (granted where there is a service), so a
  // notification never races a permission still on its way to the web process. Without a service it is left
  // undecided: a service that comes later is asked (`webview.ts` permission-request), and allows it when the page
  // said the ask was coming.
  context.connect("initialize-notification-permissions", () => {
    context.initialize_notification_permissions(notifier.available ? [WebKit.SecurityOrigin.new_for_uri(HOME)] : [], []);
  });
  // The window hidden, minimized or shown again: the page tells the Runtime (window_hidden / window_shown).
  let windowState: WindowShown = "hidden";
  const minimized = (): boolean => {
    const surface = window.get_surface() as Gdk.Toplevel | null;
    return surface !== null && (surface.get_state() & Gdk.ToplevelState.MINIMIZED) !== 0;
  };
  const checkWindow = () => {
    const now = windowShown(window.get_visible(), window.get_mapped(), minimized());
    if (now === windowState) return;
    windowState = now;
    push("window.state", { state: now });
  };
  for (const signal of ["map", "unmap", "notify::visible"] as const) window.connect(signal, checkWindow);
  // Each realize makes a new surface: its toplevel state says minimized.
  window.connect("realize", () => window.get_surface()?.connect("notify::state", checkWindow));
  const expected = createExpectedAsks();
  createConfinedView({
    context,
    dialogs,
    notifier,
    expected,
    mockCapture: options.mockCapture,
    dataDir: options.dataDir,
    serverOrigin: config === undefined ? undefined : webSocketOrigin(config.server_url),
    localBackendsUrl: config?.local_backends?.url,
    driver: options.driver,
    events: {
      onRefusedNavigation: (uri) => options.driver && emit({ event: "navigation-refused", uri }),
      onLoadFailed: (uri, message) => options.driver && emit({ event: "load-failed", uri, message }),
      onWebProcessTerminated: (reason) => {
        if (options.driver) emit({ event: "web-process-terminated", reason });
        // The page's state is in its store: a new web process starts the Runtime again from it, and is told why,
        // so that it does not bring back the app that froze or crashed the window (host-web bootstrap/recovery.ts).
        const recovered = endedForHang ? "unresponsive" : "crashed";
        endedForHang = false;
        if (!closing) view?.load_uri(`${HOME}?recovered=${recovered}`);
      },
    },
    failed: (message) => fatal(message),
    ready: (confined) => {
      view = confined.view;
      const channel = createChannel({
        "host.info": () => ({
          host: "desktop",
          platform: "linux",
          toolkit: `GTK ${Gtk.get_major_version()}.${Gtk.get_minor_version()}.${Gtk.get_micro_version()}, WebKitGTK ${WebKit.get_major_version()}.${WebKit.get_minor_version()}.${WebKit.get_micro_version()}`,
          data_dir: options.dataDir,
          notifications: notifier.available,
          token_storage: tokenStorage,
          window_state: windowState,
        }),
        "window.set_title": ({ title }) => (window.set_title(title), {}),
        "window.present": () => (window.present(), {}),
        "window.minimize": () => (window.minimize(), {}),
        "clipboard.write_text": ({ text }) => {
          const display = Gdk.Display.get_default();
          if (display === null) throw new Error("no display");
          const value = new GObject.Value();
          value.init(GObject.TYPE_STRING);
          value.set_string(text);
          if (!display.get_clipboard().set_content(Gdk.ContentProvider.new_for_value(value))) throw new Error("the clipboard refused the text");
          return {};
        },
        "file.pick": async ({ multiple, accept, max_bytes }) => {
          const paths = await dialogs.pick({ multiple, accept });
          if (paths === undefined) return { files: [], over_limit: false };
          return readPicked(paths, max_bytes);
        },
        "file.save": async ({ name, data }) => {
          const bytes = base64ToBytes(data);
          if (bytes === undefined) throw new Error("the file's data is not base64");
          const path = await dialogs.save(name);
          if (path === undefined) return { saved: false };
          Gio.File.new_for_path(path).replace_contents(bytes, null, false, Gio.FileCreateFlags.REPLACE_DESTINATION, null);
          if (options.driver) emit({ event: "file-saved", path });
          return { saved: true };
        },
        "permission.expect": ({ permission }) => (expected.expect(permission), {}),
      });
      confined.manager.connect(`script-message-with-reply-received::${HOST_WORLD}`, (_manager, value, reply) => {
        // Answered when the method is done (a dialog waits for the person): WebKit keeps the reply until then.
        void channel(value.is_string() ? value.to_string() : "").then((answer) => reply.return_value(JavaScriptCore.Value.new_string(value.get_context(), answer)));
        return true;
      });
      // A web process that stops answering (an app's endless loop freezes every frame: watchdog.ts) is ended; the
      // page then starts again from its store, as after a crash.
      watchdog = startWatchdog(confined.view, {
        ...WATCHDOG,
        onHung: () => {
          if (options.driver) emit({ event: "web-process-hung" });
          endedForHang = true;
          confined.view.terminate_web_process();
        },
      });
      window.set_child(confined.view);
      window.present();
      confined.view.load_uri(HOME);
      if (options.driver) {
        startDriver({ view: confined.view, manager: confined.manager, window, close });
        // Where the window is, for a test that sends real input with the X display's own tools.
        emit({ event: "started", data_dir: options.dataDir, display: GLib.getenv("DISPLAY"), xauthority: GLib.getenv("XAUTHORITY") });
      }
    },
  });
  loop.run();
}

main();
