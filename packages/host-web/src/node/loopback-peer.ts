/**
 * Who is at the other end of a loopback TCP connection: the operating-system user that owns the peer's socket, read
 * from the kernel's socket tables (`/proc/net/tcp`, `/proc/net/tcp6`: Linux). The host server lets only its own user's
 * processes (the person's browser) reach the local back-end service; another account on the same machine connects
 * to 127.0.0.1 as easily, and an `Origin` header is only a browser's word.
 */
import { readFileSync } from "node:fs";

const TABLES = ["/proc/net/tcp", "/proc/net/tcp6"];
/** `st` of an established connection in the kernel's table. */
const ESTABLISHED = "01";

/** 127.0.0.1 (the only address the host server listens on) as the tables spell it: IPv4, and IPv4-mapped IPv6. */
const SERVER_ADDRESSES = new Set(["0100007F", "0000000000000000FFFF00000100007F"]);

/** The port of an `address:port` column (hex). */
const portOf = (column: string): number => Number.parseInt(column.slice(column.lastIndexOf(":") + 1), 16);

/**
 * The uid owning the socket whose local port is `peerPort` and whose remote port is `serverPort` (the peer's end of a
 * connection to this server), or `undefined` when the tables cannot be read (not Linux) or hold no such connection.
 */
export function loopbackPeerUid(peerPort: number, serverPort: number, tables: readonly string[] = TABLES): number | undefined {
  for (const table of tables) {
    let text: string;
    try {
      text = readFileSync(table, "latin1");
    } catch {
      continue;
    }
    // Each line: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 8 || fields[3] !== ESTABLISHED) continue;
      const remote = fields[2]!;
      if (portOf(fields[1]!) === peerPort && portOf(remote) === serverPort && SERVER_ADDRESSES.has(remote.slice(0, remote.lastIndexOf(":")).toUpperCase())) {
        const uid = Number(fields[7]);
        return Number.isSafeInteger(uid) ? uid : undefined;
      }
    }
  }
  return undefined;
}
