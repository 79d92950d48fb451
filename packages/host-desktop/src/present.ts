/**
 * A second start on a running profile brings the running window forward instead of opening another: the
 * running program listens on a Unix socket in its profile (`desktop.sock`, mode 0600 by the profile folder's
 * 0700), and a second start sends one line, `present`, then exits. Anything else on the socket is ignored.
 */
import GLib from "gi://GLib";
import Gio from "gi://Gio";
import { join } from "./io.js";

export const PRESENT_LINE = "present";
const socketPath = (dataDir: string) => join(dataDir, "desktop.sock");

/** Listens for `present` from a second start; returns the stop. */
export function listenForPresent(dataDir: string, onPresent: () => void): () => void {
  const path = socketPath(dataDir);
  GLib.unlink(path); // a socket file left by a program that died
  const service = new Gio.SocketService();
  service.add_address(Gio.UnixSocketAddress.new(path), Gio.SocketType.STREAM, Gio.SocketProtocol.DEFAULT, null);
  service.connect("incoming", (_service, connection) => {
    const input = new Gio.DataInputStream({ base_stream: connection.get_input_stream() });
    input.read_line_async(GLib.PRIORITY_DEFAULT, null, (_stream, result) => {
      try {
        const [line] = input.read_line_finish_utf8(result);
        if (line === PRESENT_LINE) onPresent();
      } catch {
        // a broken peer: nothing to do
      }
      connection.close(null);
    });
    return true;
  });
  service.start();
  return () => {
    service.stop();
    GLib.unlink(path);
  };
}

/** Asks the running program on `dataDir` to bring its window forward; false when nobody answers. */
export function askToPresent(dataDir: string): boolean {
  try {
    const connection = new Gio.SocketClient().connect(Gio.UnixSocketAddress.new(socketPath(dataDir)), null);
    connection.get_output_stream().write_all(new TextEncoder().encode(`${PRESENT_LINE}\n`), null);
    connection.close(null);
    return true;
  } catch {
    return false;
  }
}
