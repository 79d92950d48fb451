import { IDBDatabase, IDBFactory } from "fake-indexeddb";
import { afterEach, describe, expect, it, vi } from "vitest";
import { profileName } from "../src/bootstrap/config.js";
import { openProfileDatabaseEarly, takeProfileDatabase } from "../src/bootstrap/profile-database.js";

const config = { server_url: "ws://127.0.0.1:8787", device_token: "dev-token" };

describe("the profile's database, opened before the Runtime loads", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it("is opened once the page has read its config and handed to the profile's store once", async () => {
    const indexedDB = new IDBFactory();
    vi.stubGlobal("indexedDB", indexedDB);
    openProfileDatabaseEarly(config);
    const name = profileName(config);
    const database = takeProfileDatabase(name);
    expect(database).toBeDefined();
    const db = await database!;
    expect(db.name).toBe(name);
    expect([...db.objectStoreNames]).toEqual(["entries"]);
    expect((await indexedDB.databases()).map((info) => info.name)).toEqual([name]);
    db.close();
    // A later start of the profile (after a hand-over) opens its own.
    expect(takeProfileDatabase(name)).toBeUndefined();
  });

  it("is closed, not handed over, when the profile that starts is another one", async () => {
    vi.stubGlobal("indexedDB", new IDBFactory());
    const close = vi.spyOn(IDBDatabase.prototype, "close");
    openProfileDatabaseEarly(config);
    expect(takeProfileDatabase(profileName({ ...config, device_token: "another" }))).toBeUndefined();
    await vi.waitFor(() => expect(close).toHaveBeenCalledTimes(1));
    expect(takeProfileDatabase(profileName(config))).toBeUndefined();
  });

  it("starts nothing without IndexedDB: the store says why when the profile starts", () => {
    vi.stubGlobal("indexedDB", undefined);
    openProfileDatabaseEarly(config);
    expect(takeProfileDatabase(profileName(config))).toBeUndefined();
  });
});
