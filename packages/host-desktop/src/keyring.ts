/**
 * The desktop's keyring for the device token (`token-store.ts`): libsecret's Secret Service on the session bus,
 * and the config file written readable by this user alone.
 */
import GLib from "gi://GLib";
import Secret from "gi://Secret";
import type { Keyring } from "./token-store.js";

const SCHEMA = new Secret.Schema("dev.lineup.DeviceToken", Secret.SchemaFlags.NONE, { server_url: Secret.SchemaAttributeType.STRING });

/** libsecret's Secret Service; every call answers false/undefined where none runs. */
export const secretService: Keyring = {
  store(serverUrl, token) {
    try {
      return Secret.password_store_sync(SCHEMA, { server_url: serverUrl }, Secret.COLLECTION_DEFAULT, `LineUp device token (${serverUrl})`, token, null);
    } catch {
      return false;
    }
  },
  lookup(serverUrl) {
    try {
      return Secret.password_lookup_sync(SCHEMA, { server_url: serverUrl }, null) ?? undefined;
    } catch {
      return undefined;
    }
  },
};

/** Writes `text` to `path` whole (a new file renamed over it), readable and writable by this user alone. */
export function writePrivateFile(path: string, text: string): void {
  GLib.file_set_contents_full(path, text, GLib.FileSetContentsFlags.CONSISTENT, 0o600);
}
