import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../src/node/index.js";
import type { StoreSchema } from "../src/index.js";
import { runStoreContract } from "./store-contract.js";
import { freshDbPaths } from "./sqlite-test-helpers.js";
import { expectStoreError } from "./store-test-helpers.js";

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "lineup-sqlite-"));
}

runStoreContract("sqlite", async () => {
  const dir = tempDir();
  return {
    open: (schema) => openSqliteStore({ path: join(dir, "store.db"), schema }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe("SQLite store specifics", () => {
  const schema: StoreSchema = { collections: ["items"], migrations: [] };
  const freshPath = freshDbPaths(tempDir);

  it("reports a sound file through integrityCheck()", async () => {
    const store = await openSqliteStore({ path: freshPath(), schema });
    await store.commit([{ op: "put", collection: "items", key: "a", value: { ok: true } }]);
    expect(await store.integrityCheck()).toBe(true);
    await store.close();
    await expectStoreError(store.integrityCheck(), "store_closed");
  });

  it("refuses a file that is not a database with store_corrupt", async () => {
    const path = freshPath();
    writeFileSync(path, "this is not a SQLite database, just some text that is long enough to have a header".repeat(20));
    await expectStoreError(openSqliteStore({ path, schema }), "store_corrupt");
  });

  it("fails to open in a missing directory with store_write_failed", async () => {
    await expectStoreError(openSqliteStore({ path: join(freshPath(), "missing", "store.db"), schema }), "store_write_failed");
  });

  it("maps a full database to store_quota_exceeded and applies nothing of that batch", async () => {
    const store = await openSqliteStore({ path: freshPath(), schema, maxBytes: 64 * 1024 });
    await store.commit([{ op: "put", collection: "items", key: "small", value: "fits" }]);
    const big = new Uint8Array(200 * 1024);
    await expectStoreError(
      store.commit([
        { op: "put", collection: "items", key: "first", value: "would fit alone" },
        { op: "put", collection: "items", key: "big", value: big },
      ]),
      "store_quota_exceeded",
    );
    expect((await store.range("items")).map((entry) => entry.key)).toEqual(["small"]);
    await store.commit([{ op: "put", collection: "items", key: "after", value: "still writable" }]);
    expect(await store.count("items")).toBe(2);
    expect(await store.integrityCheck()).toBe(true);
    await store.close();
  });
});
