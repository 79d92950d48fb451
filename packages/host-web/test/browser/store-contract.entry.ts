// The Runtime's store contract suite against the real IndexedDB of the page (bundled by esbuild, with
// `vitest` aliased to ./vitest-shim.ts). Each case gets a fresh database, deleted afterwards.
import { openIndexedDbStore } from "@lineup/runtime/browser";
import { runStoreContract } from "../../../runtime/test/store-contract.js";
import { runIndexedDbReadCases } from "../../../runtime/test/store-indexeddb-reads.js";
import { runRegistered } from "./vitest-shim.js";

let next = 0;
runStoreContract("indexeddb in Chromium", async () => {
  const name = `lineup-contract-${Date.now()}-${next++}`;
  return {
    open: (schema) => openIndexedDbStore({ name, schema }),
    cleanup: () =>
      new Promise<void>((resolve) => {
        const request = indexedDB.deleteDatabase(name);
        request.onsuccess = request.onerror = request.onblocked = () => resolve();
      }),
  };
});

runIndexedDbReadCases("Chromium", (schema) => openIndexedDbStore({ name: `lineup-reads-${Date.now()}-${next++}`, schema }), IDBDatabase.prototype);

(window as unknown as { runStoreContract: typeof runRegistered }).runStoreContract = runRegistered;
