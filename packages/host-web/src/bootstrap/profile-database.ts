/**
 * The profile's IndexedDB database, opened as soon as the page has read its sign-in config: creating or
 * opening it is disk and IPC work in the browser, which goes on while the page loads and compiles the
 * Runtime's code rather than after it (a new profile's database takes tens of milliseconds to create).
 * The Runtime's store takes it (`takeProfileDatabase`) when the profile starts.
 */
import { openIndexedDbDatabase } from "@lineup/runtime/browser";
import { profileName, type HostConfig } from "./config.js";

let early: { readonly name: string; readonly database: Promise<IDBDatabase> } | undefined;

/** Starts opening the database of `config`'s profile. Without IndexedDB nothing starts: the store says why. */
export function openProfileDatabaseEarly(config: Pick<HostConfig, "server_url" | "device_token">): void {
  if ((globalThis as { indexedDB?: IDBFactory }).indexedDB === undefined) return;
  const name = profileName(config);
  const database = openIndexedDbDatabase(name);
  // Its failure is the store's to report when it takes it; until then it is not an unhandled rejection.
  database.catch(() => undefined);
  early = { name, database };
}

/**
 * The database opened early for the profile `name`, once (a later start of the profile opens its own). One
 * opened for another profile (the person signed in anew) is closed.
 */
export function takeProfileDatabase(name: string): Promise<IDBDatabase> | undefined {
  const taken = early;
  early = undefined;
  if (taken === undefined) return undefined;
  if (taken.name === name) return taken.database;
  taken.database.then((db) => db.close(), () => undefined);
  return undefined;
}
