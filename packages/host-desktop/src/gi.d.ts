/**
 * The GObject-introspection surface this host uses, declared by hand: GLib, Gio, GTK 4, WebKitGTK 6.0 and
 * JavaScriptCore 6.0 as GJS 1.74 exposes them. The generated `@girs/*` 5.4.0 types cannot be installed
 * from the registry this project builds from (they depend on `@girs/gjs@5.4.0` and
 * `@girs/javascriptcore-6.0@5.4.0`, which it does not have), so only what the code calls is declared,
 * checked against the libraries' documentation; a call outside it does not type-check.
 */
declare module "system" {
  export const programArgs: string[];
  export function exit(code: number): never;
}

declare module "gi://GLib" {
  namespace GLib {
    const PRIORITY_DEFAULT: number;
    class Bytes {
      constructor(data: Uint8Array);
      get_size(): number;
      toArray(): Uint8Array;
    }
    class Error {
      constructor(domain: number, code: number, message: string);
      readonly message: string;
    }
    class MainLoop {
      // GLib's constructor is a static method named `new`, as introspection exposes it.
      // eslint-disable-next-line @typescript-eslint/no-misused-new
      static new(context: null, isRunning: boolean): MainLoop;
      run(): void;
      quit(): void;
    }
    function file_get_contents(path: string): [boolean, Uint8Array];
    function file_set_contents(path: string, contents: string | Uint8Array): boolean;
    function file_set_contents_full(path: string, contents: string | Uint8Array, flags: number, mode: number): boolean;
    const FileSetContentsFlags: { readonly NONE: number; readonly CONSISTENT: number; readonly DURABLE: number };
    function file_test(path: string, test: number): boolean;
    const FileTest: { readonly EXISTS: number; readonly IS_DIR: number };
    function mkdir_with_parents(path: string, mode: number): number;
    function getenv(name: string): string | null;
    function get_user_data_dir(): string;
    function get_user_runtime_dir(): string;
    function build_filenamev(parts: string[]): string;
    function timeout_add(priority: number, ms: number, callback: () => boolean): number;
    function idle_add(priority: number, callback: () => boolean): number;
    function source_remove(id: number): boolean;
    function unix_signal_add(priority: number, signal: number, callback: () => boolean): number;
    function get_monotonic_time(): number;
    function unlink(path: string): number;
    function path_get_basename(path: string): string;
    function base64_encode(data: Uint8Array): string;
    class Variant {
      constructor(type: string, value: unknown);
      unpack<T = unknown>(): T;
      deepUnpack<T = unknown>(): T;
    }
    class VariantType {
      // eslint-disable-next-line @typescript-eslint/no-misused-new
      static new(type: string): VariantType;
    }
  }
  export default GLib;
}

declare module "gi://Gio" {
  import type GLib from "gi://GLib";
  namespace Gio {
    type AsyncReadyCallback<T> = (source: T, result: AsyncResult) => void;
    interface AsyncResult {
      readonly __asyncResult: true;
    }
    class Cancellable {}
    class InputStream {}
    class OutputStream {
      write_all(bytes: Uint8Array, cancellable: Cancellable | null): [boolean, number];
      flush(cancellable: Cancellable | null): boolean;
    }
    class MemoryInputStream extends InputStream {
      static new_from_bytes(bytes: GLib.Bytes): MemoryInputStream;
    }
    class UnixInputStream extends InputStream {
      constructor(props: { fd: number; close_fd: boolean });
    }
    class UnixOutputStream extends OutputStream {
      constructor(props: { fd: number; close_fd: boolean });
    }
    class DataInputStream extends InputStream {
      constructor(props: { base_stream: InputStream });
      read_line_async(priority: number, cancellable: Cancellable | null, callback: AsyncReadyCallback<DataInputStream>): void;
      read_line_finish_utf8(result: AsyncResult): [string | null, number];
    }
    class Credentials {
      get_unix_pid(): number;
    }
    class SocketAddress {}
    class UnixSocketAddress extends SocketAddress {
      // eslint-disable-next-line @typescript-eslint/no-misused-new
      static new(path: string): UnixSocketAddress;
    }
    const SocketType: { readonly STREAM: number };
    const SocketProtocol: { readonly DEFAULT: number };
    class SocketConnection {
      get_input_stream(): InputStream;
      get_output_stream(): OutputStream;
      close(cancellable: Cancellable | null): boolean;
    }
    class SocketService {
      constructor();
      add_address(address: SocketAddress, type: number, protocol: number, source: null): [boolean, SocketAddress | null];
      start(): void;
      stop(): void;
      connect(signal: "incoming", callback: (service: SocketService, connection: SocketConnection) => boolean): number;
    }
    class SocketClient {
      constructor();
      connect(address: SocketAddress, cancellable: Cancellable | null): SocketConnection;
    }
    function io_error_quark(): number;
    class File {
      static new_for_path(path: string): File;
      get_path(): string | null;
      enumerate_children(attributes: string, flags: number, cancellable: Cancellable | null): FileEnumerator;
      query_info(attributes: string, flags: number, cancellable: Cancellable | null): FileInfo;
      replace_contents(contents: Uint8Array, etag: string | null, backup: boolean, flags: number, cancellable: Cancellable | null): [boolean, string | null];
    }
    const FileCreateFlags: { readonly NONE: number; readonly PRIVATE: number; readonly REPLACE_DESTINATION: number };
    function content_type_guess(filename: string | null, data: Uint8Array | null): [string, boolean];
    function content_type_get_mime_type(type: string): string | null;
    class FileInfo {
      get_size(): number;
      get_name(): string;
      get_file_type(): number;
    }
    class FileEnumerator {
      next_file(cancellable: Cancellable | null): FileInfo | null;
      close(cancellable: Cancellable | null): boolean;
    }
    const FileType: { readonly REGULAR: number; readonly DIRECTORY: number };
    const FileQueryInfoFlags: { readonly NONE: number };
    class ListModel {
      get_n_items(): number;
      get_item(position: number): unknown;
    }
    const BusType: { readonly SESSION: number };
    const DBusCallFlags: { readonly NONE: number };
    class DBusConnection {
      call_sync(busName: string, objectPath: string, interfaceName: string, method: string, parameters: GLib.Variant | null, replyType: GLib.VariantType | null, flags: number, timeoutMs: number, cancellable: Cancellable | null): GLib.Variant;
    }
    function bus_get_sync(type: number, cancellable: Cancellable | null): DBusConnection;
    const BusNameWatcherFlags: { readonly NONE: number };
    function bus_watch_name_on_connection(connection: DBusConnection, name: string, flags: number, appeared: ((connection: DBusConnection, name: string, owner: string) => void) | null, vanished: ((connection: DBusConnection, name: string) => void) | null): number;
    const ApplicationFlags: { readonly NON_UNIQUE: number; readonly DEFAULT_FLAGS: number };
    class SimpleAction {
      constructor(props: { name: string; parameter_type?: GLib.VariantType });
      connect(signal: "activate", callback: (action: SimpleAction, parameter: GLib.Variant | null) => void): number;
    }
    class Notification {
      // eslint-disable-next-line @typescript-eslint/no-misused-new
      static new(title: string): Notification;
      set_body(body: string | null): void;
      set_default_action_and_target_value(action: string, target: GLib.Variant | null): void;
    }
    class Application {
      constructor(props: { application_id: string; flags: number });
      add_action(action: SimpleAction): void;
      register(cancellable: Cancellable | null): boolean;
      send_notification(id: string | null, notification: Notification): void;
      withdraw_notification(id: string): void;
    }
    const IOErrorEnum: { readonly NOT_FOUND: number; readonly PERMISSION_DENIED: number; readonly FAILED: number };
  }
  export default Gio;
}

declare module "gi://GObject" {
  namespace GObject {
    const TYPE_STRING: number;
    class Value {
      constructor();
      init(type: number): Value;
      set_string(text: string): void;
    }
  }
  export default GObject;
}

declare module "gi://Graphene" {
  namespace Graphene {
    class Point {
      constructor(props: { x: number; y: number });
      readonly x: number;
      readonly y: number;
    }
  }
  export default Graphene;
}

declare module "gi://Gdk?version=4.0" {
  import type Gio from "gi://Gio";
  import type GObject from "gi://GObject";
  namespace Gdk {
    class ContentProvider {
      static new_for_value(value: GObject.Value): ContentProvider;
    }
    class Clipboard {
      set_content(provider: ContentProvider | null): boolean;
      read_text_async(cancellable: Gio.Cancellable | null, callback: Gio.AsyncReadyCallback<Clipboard>): void;
      read_text_finish(result: Gio.AsyncResult): string | null;
    }
    class Display {
      static get_default(): Display | null;
      get_clipboard(): Clipboard;
    }
    const ToplevelState: { readonly MINIMIZED: number };
    class Surface {
      connect(signal: "notify::state", callback: () => void): number;
    }
    class Toplevel extends Surface {
      get_state(): number;
    }
  }
  export default Gdk;
}

declare module "gi://Gtk?version=4.0" {
  import type Gdk from "gi://Gdk?version=4.0";
  import type Gio from "gi://Gio";
  import type Graphene from "gi://Graphene";
  namespace Gtk {
    function init(): void;
    function get_major_version(): number;
    function get_minor_version(): number;
    function get_micro_version(): number;
    class Widget {
      grab_focus(): boolean;
      get_visible(): boolean;
      get_mapped(): boolean;
      set_visible(visible: boolean): void;
      compute_point(target: Widget, point: Graphene.Point): [boolean, Graphene.Point];
    }
    const ResponseType: { readonly ACCEPT: number; readonly CANCEL: number };
    const FileChooserAction: { readonly OPEN: number; readonly SAVE: number };
    class FileFilter {
      constructor();
      add_mime_type(type: string): void;
      add_pattern(pattern: string): void;
    }
    class FileChooserNative {
      constructor(props: { title: string; transient_for: Window; modal: boolean; action: number; select_multiple?: boolean });
      add_filter(filter: FileFilter): void;
      set_current_name(name: string): void;
      get_files(): Gio.ListModel;
      show(): void;
      destroy(): void;
      connect(signal: "response", callback: (chooser: FileChooserNative, response: number) => void): number;
    }
    class Window extends Widget {
      constructor(props: { title?: string; default_width?: number; default_height?: number });
      set_child(child: Widget): void;
      set_title(title: string): void;
      get_title(): string | null;
      present(): void;
      minimize(): void;
      destroy(): void;
      close(): void;
      is_maximized(): boolean;
      maximize(): void;
      get_default_size(): [number, number];
      get_surface_transform(): [number, number];
      get_surface(): Gdk.Surface | null;
      set_default_size(width: number, height: number): void;
      connect(signal: "close-request", callback: () => boolean): number;
      connect(signal: "map" | "unmap" | "realize" | "notify::visible", callback: () => void): number;
    }
  }
  export default Gtk;
}

declare module "gi://JavaScriptCore?version=6.0" {
  namespace JavaScriptCore {
    class Context {}
    class Value {
      static new_string(context: Context, text: string): Value;
      get_context(): Context;
      to_string(): string;
      to_json(indent: number): string | null;
      is_string(): boolean;
      is_undefined(): boolean;
    }
  }
  export default JavaScriptCore;
}

declare module "gi://Soup?version=3.0" {
  namespace Soup {
    const MessageHeadersType: { readonly RESPONSE: number };
    class MessageHeaders {
      // eslint-disable-next-line @typescript-eslint/no-misused-new
      static new(type: number): MessageHeaders;
      append(name: string, value: string): void;
    }
  }
  export default Soup;
}

declare module "gi://WebKit?version=6.0" {
  import type GLib from "gi://GLib";
  import type Gio from "gi://Gio";
  import type Gtk from "gi://Gtk?version=4.0";
  import type JavaScriptCore from "gi://JavaScriptCore?version=6.0";
  import type Soup from "gi://Soup?version=3.0";
  namespace WebKit {
    function get_major_version(): number;
    function get_minor_version(): number;
    function get_micro_version(): number;
    class NetworkSession {
      constructor(props: { data_directory: string; cache_directory: string });
    }
    class SecurityManager {
      register_uri_scheme_as_secure(scheme: string): void;
      register_uri_scheme_as_cors_enabled(scheme: string): void;
    }
    class URISchemeRequest {
      get_uri(): string;
      get_path(): string;
      get_http_method(): string | null;
      finish_with_response(response: URISchemeResponse): void;
      finish_error(error: GLib.Error): void;
    }
    class URISchemeResponse {
      constructor(props: { stream: Gio.InputStream; stream_length: number });
      set_status(code: number, reason: string | null): void;
      set_content_type(type: string): void;
      set_http_headers(headers: Soup.MessageHeaders): void;
    }
    class SecurityOrigin {
      static new_for_uri(uri: string): SecurityOrigin;
    }
    class WebContext {
      constructor();
      initialize_notification_permissions(allowed: SecurityOrigin[], disallowed: SecurityOrigin[]): void;
      connect(signal: "initialize-notification-permissions", callback: () => void): number;
      get_security_manager(): SecurityManager;
      register_uri_scheme(scheme: string, callback: (request: URISchemeRequest) => void): void;
    }
    class Feature {
      get_identifier(): string;
    }
    class FeatureList {
      get_length(): number;
      get(index: number): Feature;
    }
    class Settings {
      constructor();
      static get_all_features(): FeatureList;
      get_feature_enabled(feature: Feature): boolean;
      set_feature_enabled(feature: Feature, enabled: boolean): void;
      enable_webrtc: boolean;
      enable_media_stream: boolean;
      enable_developer_extras: boolean;
      javascript_can_open_windows_automatically: boolean;
      javascript_can_access_clipboard: boolean;
      enable_back_forward_cache: boolean;
      allow_file_access_from_file_urls: boolean;
      allow_universal_access_from_file_urls: boolean;
      enable_write_console_messages_to_stdout: boolean;
      enable_mock_capture_devices: boolean;
    }
    const UserContentInjectedFrames: { readonly ALL_FRAMES: number; readonly TOP_FRAME: number };
    const UserScriptInjectionTime: { readonly START: number; readonly END: number };
    class UserScript {
      static new_for_world(source: string, frames: number, time: number, world: string, allow: string[] | null, block: string[] | null): UserScript;
    }
    class UserContentFilter {}
    class UserContentFilterStore {
      constructor(props: { path: string });
      save(identifier: string, source: GLib.Bytes, cancellable: Gio.Cancellable | null, callback: Gio.AsyncReadyCallback<UserContentFilterStore>): void;
      save_finish(result: Gio.AsyncResult): UserContentFilter;
    }
    class ScriptMessageReply {
      return_value(value: JavaScriptCore.Value): void;
      return_error_message(message: string): void;
    }
    class UserContentManager {
      constructor();
      add_script(script: UserScript): void;
      add_filter(filter: UserContentFilter): void;
      register_script_message_handler_with_reply(name: string, world: string | null): boolean;
      connect(signal: string, callback: (manager: UserContentManager, value: JavaScriptCore.Value, reply: ScriptMessageReply) => boolean): number;
    }
    const PolicyDecisionType: { readonly NAVIGATION_ACTION: number; readonly NEW_WINDOW_ACTION: number; readonly RESPONSE: number };
    class URIRequest {
      get_uri(): string;
    }
    class NavigationAction {
      get_request(): URIRequest;
      get_frame_name(): string | null;
    }
    class PolicyDecision {
      ignore(): void;
      use(): void;
    }
    class NavigationPolicyDecision extends PolicyDecision {
      get_navigation_action(): NavigationAction;
    }
    class PermissionRequest {
      deny(): void;
      allow(): void;
    }
    class NotificationPermissionRequest extends PermissionRequest {}
    class UserMediaPermissionRequest extends PermissionRequest {
      readonly is_for_audio_device: boolean;
      readonly is_for_video_device: boolean;
      readonly is_for_display_device: boolean;
    }
    class FileChooserRequest {
      get_select_multiple(): boolean;
      get_mime_types(): string[] | null;
      select_files(files: string[]): void;
      cancel(): void;
    }
    class Notification {
      get_id(): number;
      get_title(): string;
      get_body(): string | null;
      clicked(): void;
      close(): void;
      connect(signal: "closed", callback: () => void): number;
    }
    const SnapshotRegion: { readonly VISIBLE: number; readonly FULL_DOCUMENT: number };
    const SnapshotOptions: { readonly NONE: number };
    class Texture {
      save_to_png(path: string): boolean;
    }
    const WebProcessTerminationReason: { readonly CRASHED: number; readonly EXCEEDED_MEMORY_LIMIT: number; readonly TERMINATED_BY_API: number };
    class WebView extends Gtk.Widget {
      constructor(props: { web_context: WebContext; network_session: NetworkSession; user_content_manager: UserContentManager; settings: Settings });
      load_uri(uri: string): void;
      terminate_web_process(): void;
      get_uri(): string | null;
      get_title(): string | null;
      evaluate_javascript(script: string, length: number, world: string | null, sourceUri: string | null, cancellable: Gio.Cancellable | null, callback: Gio.AsyncReadyCallback<WebView>): void;
      evaluate_javascript_finish(result: Gio.AsyncResult): JavaScriptCore.Value;
      call_async_javascript_function(body: string, length: number, args: null, world: string | null, sourceUri: string | null, cancellable: Gio.Cancellable | null, callback: Gio.AsyncReadyCallback<WebView>): void;
      call_async_javascript_function_finish(result: Gio.AsyncResult): JavaScriptCore.Value;
      get_snapshot(region: number, options: number, cancellable: Gio.Cancellable | null, callback: Gio.AsyncReadyCallback<WebView>): void;
      get_snapshot_finish(result: Gio.AsyncResult): Texture;
      connect(signal: "decide-policy", callback: (view: WebView, decision: PolicyDecision, type: number) => boolean): number;
      connect(signal: "create", callback: () => WebView | null): number;
      connect(signal: "permission-request", callback: (view: WebView, request: PermissionRequest) => boolean): number;
      connect(signal: "web-process-terminated", callback: (view: WebView, reason: number) => void): number;
      connect(signal: "load-failed", callback: (view: WebView, event: number, uri: string, error: GLib.Error) => boolean): number;
      connect(signal: "notify::title", callback: () => void): number;
      connect(signal: "run-file-chooser", callback: (view: WebView, request: FileChooserRequest) => boolean): number;
      connect(signal: "show-notification", callback: (view: WebView, notification: Notification) => boolean): number;
    }
  }
  export default WebKit;
}

declare module "gi://Secret" {
  import type Gio from "gi://Gio";
  namespace Secret {
    const COLLECTION_DEFAULT: string;
    const SchemaFlags: { readonly NONE: number };
    const SchemaAttributeType: { readonly STRING: number };
    class Schema {
      constructor(name: string, flags: number, attributes: Record<string, number>);
    }
    function password_store_sync(schema: Schema, attributes: Record<string, string>, collection: string | null, label: string, password: string, cancellable: Gio.Cancellable | null): boolean;
    function password_lookup_sync(schema: Schema, attributes: Record<string, string>, cancellable: Gio.Cancellable | null): string | null;
  }
  export default Secret;
}
