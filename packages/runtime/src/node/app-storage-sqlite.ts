/**
 * Apps' own storage on the Node host: one SQLite file per app store under `<dir>/<app_scope>/<name>.db`
 * (WAL, `synchronous=FULL`, as the Runtime's own store), so an app's writes never take the Runtime's write
 * lock or another app's, and removing an app is removing its directory.
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { AppStorageHost } from "../app-storage/host.js";
import { openSqliteStore } from "./sqlite-store.js";

export function createSqliteAppStorageHost(dir: string): AppStorageHost {
  const appDir = (appScope: string): string => join(dir, appScope);
  return {
    async open(appScope, name, schema) {
      mkdirSync(appDir(appScope), { recursive: true, mode: 0o700 });
      return openSqliteStore({ path: join(appDir(appScope), `${name}.db`), schema });
    },
    async destroy(appScope, name) {
      if (name === undefined) {
        rmSync(appDir(appScope), { recursive: true, force: true });
        return;
      }
      let files: string[];
      try {
        files = readdirSync(appDir(appScope));
      } catch {
        return;
      }
      // The database and the WAL and shared-memory files beside it.
      for (const file of files) if (file === `${name}.db` || file === `${name}.db-wal` || file === `${name}.db-shm`) rmSync(join(appDir(appScope), file), { force: true });
    },
  };
}
