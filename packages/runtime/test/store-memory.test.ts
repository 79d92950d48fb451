import { createMemoryStore, createMemoryStoreData } from "../src/index.js";
import { runStoreContract } from "./store-contract.js";

runStoreContract("memory", async () => {
  // One MemoryStoreData per fixture plays the part of the disk: reopening reads the same data.
  const data = createMemoryStoreData();
  return {
    open: (schema) => createMemoryStore(schema, { data }),
    cleanup: async () => {},
  };
});
