/** Files and standard streams for the GJS program: small synchronous helpers over GLib and Gio. */
import GLib from "gi://GLib";
import Gio from "gi://Gio";

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** A file's bytes, or undefined when it cannot be read. */
export function readBytes(path: string): Uint8Array | undefined {
  try {
    const [ok, bytes] = GLib.file_get_contents(path);
    return ok ? bytes : undefined;
  } catch {
    return undefined;
  }
}

export const readText = (path: string): string | undefined => {
  const bytes = readBytes(path);
  return bytes === undefined ? undefined : decoder.decode(bytes);
};

/** Writes a file whole (GLib writes a temporary file and renames it: a crash leaves the old one or the new one). */
export function writeText(path: string, text: string): void {
  GLib.file_set_contents(path, text);
}

export const exists = (path: string): boolean => GLib.file_test(path, GLib.FileTest.EXISTS);
export const join = (...parts: string[]): string => GLib.build_filenamev(parts);

let stdout: Gio.UnixOutputStream | undefined;
/** One line on standard output, written and flushed at once (GJS's print is block-buffered on a pipe). */
export function writeLine(line: string): void {
  stdout ??= new Gio.UnixOutputStream({ fd: 1, close_fd: false });
  stdout.write_all(encoder.encode(`${line}\n`), null);
  stdout.flush(null);
}

/** Calls `onLine` with each line of standard input until it ends, then `onEnd`. */
export function readLines(onLine: (line: string) => void, onEnd: () => void): void {
  const input = new Gio.DataInputStream({ base_stream: new Gio.UnixInputStream({ fd: 0, close_fd: false }) });
  const next = (): void =>
    input.read_line_async(GLib.PRIORITY_DEFAULT, null, (_stream, result) => {
      let line: string | null;
      try {
        [line] = input.read_line_finish_utf8(result);
      } catch {
        line = null;
      }
      if (line === null) return onEnd();
      onLine(line);
      next();
    });
  next();
}
