/**
 * The desktop's own file dialogs, for `file.pick` (WebKit's file chooser request from the host page's hidden
 * `<input type=file>`) and `file.save` (the host channel): GTK's native chooser (`Gtk.FileChooserNative`, which
 * goes through the desktop portal where one runs). The person chooses; the page gets only what was chosen.
 *
 * Under the test driver a stand-in replaces the dialog (`--fake-dialogs DIR`): a pick chooses the files in
 * `DIR/pick/` (the first one alone when the page asks for one; none there is a closed dialog), a save writes to
 * `DIR/saved/<name>` (a file `DIR/save-closed` makes it a closed dialog). Nothing else differs: the same signal,
 * request and channel carry both.
 */
import Gio from "gi://Gio";
import GLib from "gi://GLib";
import Gtk from "gi://Gtk?version=4.0";
import { exists, join } from "./io.js";

export interface Dialogs {
  /** The paths the person chose, or undefined when the dialog was closed. */
  pick(options: { readonly multiple: boolean; readonly accept: readonly string[] }): Promise<string[] | undefined>;
  /** Where the person chose to save `name`, or undefined when the dialog was closed. */
  save(name: string): Promise<string | undefined>;
}

function listFiles(dir: string): string[] {
  if (!exists(dir)) return [];
  const names: string[] = [];
  const enumerator = Gio.File.new_for_path(dir).enumerate_children("standard::name,standard::type", Gio.FileQueryInfoFlags.NONE, null);
  for (let info = enumerator.next_file(null); info !== null; info = enumerator.next_file(null)) {
    if (info.get_file_type() === Gio.FileType.REGULAR) names.push(info.get_name());
  }
  enumerator.close(null);
  return names.sort().map((name) => join(dir, name));
}

/** The stand-in for tests: files in `dir/pick/`, saves into `dir/saved/`. */
export function fakeDialogs(dir: string): Dialogs {
  return {
    async pick({ multiple }) {
      const files = listFiles(join(dir, "pick"));
      if (files.length === 0) return undefined;
      return multiple ? files : files.slice(0, 1);
    },
    async save(name) {
      if (exists(join(dir, "save-closed"))) return undefined;
      GLib.mkdir_with_parents(join(dir, "saved"), 0o700);
      return join(dir, "saved", name);
    },
  };
}

/** GTK's native chooser, modal on `window`. */
export function nativeDialogs(window: Gtk.Window): Dialogs {
  const run = (chooser: Gtk.FileChooserNative): Promise<Gio.File[] | undefined> =>
    new Promise((resolve) => {
      chooser.connect("response", (_chooser, response) => {
        const files: Gio.File[] = [];
        if (response === Gtk.ResponseType.ACCEPT) {
          const list = chooser.get_files();
          for (let i = 0; i < list.get_n_items(); i++) files.push(list.get_item(i) as Gio.File);
        }
        chooser.destroy();
        resolve(files.length === 0 ? undefined : files);
      });
      chooser.show();
    });
  const paths = (files: Gio.File[] | undefined): string[] | undefined => {
    const local = files?.map((file) => file.get_path()).filter((path): path is string => path !== null);
    return local === undefined || local.length === 0 ? undefined : local;
  };
  return {
    async pick({ multiple, accept }) {
      const chooser = new Gtk.FileChooserNative({ title: multiple ? "Choose files" : "Choose a file", transient_for: window, modal: true, action: Gtk.FileChooserAction.OPEN, select_multiple: multiple });
      if (accept.length > 0) {
        // MIME types ("image/png", "image/*") and extensions (".txt"), as the capability's input and a file input's accept.
        const filter = new Gtk.FileFilter();
        for (const entry of accept) {
          if (entry.startsWith(".")) filter.add_pattern(`*${entry}`);
          else filter.add_mime_type(entry);
        }
        chooser.add_filter(filter);
      }
      return paths(await run(chooser));
    },
    async save(name) {
      const chooser = new Gtk.FileChooserNative({ title: "Save a file", transient_for: window, modal: true, action: Gtk.FileChooserAction.SAVE });
      chooser.set_current_name(name);
      return paths(await run(chooser))?.[0];
    },
  };
}

/**
 * The chosen files for `file.pick`: each one's name, MIME type (from its name and first bytes) and bytes in
 * base64 — or `over_limit` when together they are over `maxBytes` (their sizes are read first: nothing over it is read).
 */
export function readPicked(paths: readonly string[], maxBytes: number): { files: { name: string; mime_type: string; data: string }[]; over_limit: boolean } {
  let total = 0;
  for (const path of paths) {
    total += Gio.File.new_for_path(path).query_info("standard::size", Gio.FileQueryInfoFlags.NONE, null).get_size();
    if (total > maxBytes) return { files: [], over_limit: true };
  }
  const files = paths.map((path) => {
    const [, bytes] = GLib.file_get_contents(path);
    const name = GLib.path_get_basename(path).slice(0, 255) || "file";
    const [type] = Gio.content_type_guess(name, bytes);
    return { name, mime_type: Gio.content_type_get_mime_type(type) ?? "application/octet-stream", data: GLib.base64_encode(bytes) };
  });
  return { files, over_limit: false };
}
