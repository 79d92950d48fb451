// The app storage contract suite against the real IndexedDB of the page (bundled by esbuild, with `vitest` aliased
// to ./vitest-shim.ts): one database per app store, each case with its own prefix, deleted afterwards.
import { createIndexedDbAppStorageHost } from "@lineup/runtime/browser";
import { runAppStorageContract } from "../../../runtime/test/app-storage-contract.js";
import { runRegistered } from "./vitest-shim.js";

let next = 0;
runAppStorageContract("indexeddb in Chromium", () => {
  const prefix = `lineup-app-storage-${Date.now()}-${next++}`;
  return {
    host: createIndexedDbAppStorageHost({ prefix }),
    cleanup: async () => {
      for (const { name } of await indexedDB.databases()) {
        if (name === undefined || !name.startsWith(`${prefix}/`)) continue;
        await new Promise<void>((resolve) => {
          const request = indexedDB.deleteDatabase(name);
          request.onsuccess = request.onerror = request.onblocked = () => resolve();
        });
      }
    },
  };
});

(window as unknown as { runAppStorageContract: typeof runRegistered }).runAppStorageContract = runRegistered;
