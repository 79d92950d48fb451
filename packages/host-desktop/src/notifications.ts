/**
 * Notifications on the desktop (`notification.show`): the page's Notification API, which the Capability
 * Gateway's provider uses, reaches WebKit's `show-notification`; this shows it as the desktop's own
 * (`Gio.Notification`, sent through the session bus to the notification service) and, when the person clicks
 * it, brings the window forward and reports the click to the page — whose handler opens the notifying app, as in
 * the web host.
 *
 * Without a session bus or a notification service on it, `available` is false: the page's `host.info` says so,
 * the provider then reports `notification.show` unsupported on this host, and WebKit's permission requests for
 * notifications are denied. The bus is watched for the service's names: when one comes or goes, `onChange` hears
 * it (the page is told, and the Runtime republishes the inventory).
 */
import Gio from "gi://Gio";
import GLib from "gi://GLib";
import type WebKit from "gi://WebKit?version=6.0";

export const APPLICATION_ID = "dev.lineup.Desktop";
const CLICK_ACTION = "notification-clicked";
/** The names a notification service answers on: the freedesktop one, and GNOME Shell's own. */
const SERVICES = ["org.freedesktop.Notifications", "org.gtk.Notifications"] as const;

export interface Notifier {
  /** Whether a notification service runs now. */
  readonly available: boolean;
  /** Shows `notification` natively; the page hears its click. Closed at once while no service runs. */
  show(notification: WebKit.Notification): void;
}

/** Which of `names` the bus daemon says have an owner now (`owned`) or can be started on demand (`startable`). */
function servicesOnBus(bus: Gio.DBusConnection, names: readonly string[]): { owned: Set<string>; startable: Set<string> } {
  const ask = (method: string, name?: string): unknown =>
    bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method, name === undefined ? null : new GLib.Variant("(s)", [name]), null, Gio.DBusCallFlags.NONE, 2_000, null).deepUnpack();
  const owned = new Set<string>();
  const startable = new Set<string>();
  try {
    for (const name of names) if ((ask("NameHasOwner", name) as [boolean])[0]) owned.add(name);
    for (const name of (ask("ListActivatableNames") as [string[]])[0]) if (names.includes(name)) startable.add(name);
  } catch {
    // A bus that does not answer has, for now, no service we know of; the watches below tell when one appears.
  }
  return { owned, startable };
}

/** Where there is no session bus: nothing is shown, and the page's notification is closed at once. */
const UNAVAILABLE: Notifier = { available: false, show: (notification) => notification.close() };

/** The desktop's notifications; `onChange` hears the service come (true) and go (false). */
export function createNotifier(onClick: () => void, onChange: (available: boolean) => void): Notifier {
  let bus: Gio.DBusConnection;
  try {
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, null);
  } catch {
    return UNAVAILABLE;
  }
  // An application of its own (not unique: the instance lock keeps one window per profile) to send them and take their clicks.
  const application = new Gio.Application({ application_id: APPLICATION_ID, flags: Gio.ApplicationFlags.NON_UNIQUE });
  const shown = new Map<string, WebKit.Notification>();
  const click = new Gio.SimpleAction({ name: CLICK_ACTION, parameter_type: GLib.VariantType.new("s") });
  click.connect("activate", (_action, parameter) => {
    const id = parameter?.unpack<string>();
    const notification = id === undefined ? undefined : shown.get(id);
    if (id !== undefined) shown.delete(id);
    onClick();
    notification?.clicked();
  });
  application.add_action(click);
  try {
    application.register(null);
  } catch {
    return UNAVAILABLE;
  }
  // Asked once, at start; after that the watches say when a name gains or loses its owner. Nothing asks the bus
  // again from a watch: a slow answer (a loaded machine) must not read as the service gone.
  const { owned, startable } = servicesOnBus(bus, SERVICES);
  const runs = (): boolean => owned.size > 0 || startable.size > 0;
  let available = runs();
  const watched = (name: string, hasOwner: boolean) => () => {
    if (hasOwner) owned.add(name);
    else owned.delete(name);
    if (runs() === available) return;
    available = runs();
    onChange(available);
  };
  // Each watch also reports the name's first state at once: only a change is told.
  for (const name of SERVICES) Gio.bus_watch_name_on_connection(bus, name, Gio.BusNameWatcherFlags.NONE, watched(name, true), watched(name, false));
  return {
    get available() {
      return available;
    },
    show(notification) {
      if (!available) return notification.close();
      const id = `page-${notification.get_id()}`;
      const native = Gio.Notification.new(notification.get_title());
      native.set_body(notification.get_body());
      native.set_default_action_and_target_value(`app.${CLICK_ACTION}`, new GLib.Variant("s", id));
      shown.set(id, notification);
      notification.connect("closed", () => {
        if (shown.delete(id)) application.withdraw_notification(id);
      });
      application.send_notification(id, native);
    },
  };
}
