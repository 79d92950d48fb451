import { LineUpError, type JsonObject } from "@lineup/protocol";
import { describe, expect, it } from "vitest";
import { LocalSessionData, replaceWithRetry, SessionDataStore, type MiniAppSessionDataAPI, type SessionDataSnapshot } from "../src/index.js";

/** Session data where another writer gets in first `times` times, each just before this one writes. */
function contended(times: number): { api: MiniAppSessionDataAPI; store: LocalSessionData } {
  const store = new LocalSessionData();
  let left = times;
  const api: MiniAppSessionDataAPI = {
    get: () => store.get(),
    subscribe: (listener) => store.subscribe(listener),
    async replace(request) {
      if (left-- > 0) {
        const current = await store.get();
        await store.replace({ data: { items: [...((current.data?.["items"] as string[] | undefined) ?? []), `other-${times - left}`] }, expected_revision: current.revision });
      }
      return store.replace(request);
    },
  };
  return { api, store };
}

const items = (snapshot: SessionDataSnapshot | undefined): string[] => (snapshot?.data?.["items"] as string[] | undefined) ?? [];

describe("replaceWithRetry", () => {
  it("writes once when nobody wrote first", async () => {
    const store = new LocalSessionData();
    const calls: (SessionDataSnapshot | undefined)[] = [];
    const written = await replaceWithRetry(store, 0, (newer) => {
      calls.push(newer);
      return { items: ["mine"] };
    });
    expect(written).toEqual({ revision: 1 });
    expect(calls).toEqual([undefined]);
    expect(store.current).toEqual({ data: { items: ["mine"] }, revision: 1 });
  });

  it("on a conflict reads what is stored and writes the app's merge of it, with that revision", async () => {
    const { api, store } = contended(2);
    const bases: string[][] = [];
    const written = await replaceWithRetry(api, 0, (newer) => {
      bases.push(items(newer));
      return { items: [...items(newer), "mine"] } as JsonObject;
    });
    // Two others got in first; the third attempt wrote over their latest, keeping both.
    expect(bases).toEqual([[], ["other-1"], ["other-1", "other-2"]]);
    expect(written).toEqual({ revision: 3 });
    expect(store.current).toEqual({ data: { items: ["other-1", "other-2", "mine"] }, revision: 3 });
  });

  it("gives up with revision_conflict after the last attempt, having written nothing of its own", async () => {
    const { api, store } = contended(5);
    await expect(replaceWithRetry(api, 0, (newer) => ({ items: [...items(newer), "mine"] }) as JsonObject, 2)).rejects.toMatchObject({ code: "revision_conflict" });
    expect(items(store.current)).not.toContain("mine");
  });

  it("does not retry any other refusal", async () => {
    let writes = 0;
    const api: MiniAppSessionDataAPI = {
      get: () => Promise.reject(new Error("not read")),
      subscribe: () => () => undefined,
      replace: () => {
        writes++;
        return Promise.reject(new LineUpError("quota_exceeded", "too large"));
      },
    };
    await expect(replaceWithRetry(api, 0, () => ({ big: true }))).rejects.toMatchObject({ code: "quota_exceeded" });
    expect(writes).toBe(1);
  });
});

describe("SessionDataStore", () => {
  /** A store that keeps the newest snapshot and tells its screen. */
  class Latest extends SessionDataStore {
    seen: number[] = [];
    constructor(api: MiniAppSessionDataAPI) {
      super(api);
    }
    protected applySnapshot(snapshot: SessionDataSnapshot): void {
      this.seen.push(snapshot.revision);
      this.notify();
    }
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  it("applies the stored snapshot at load, then each revision, telling its listeners; dispose stops following", async () => {
    const data = new LocalSessionData();
    await data.replace({ data: { n: 1 }, expected_revision: 0 });
    const store = new Latest(data);
    let changes = 0;
    const off = store.onChange(() => changes++);
    await store.load();
    await settle();
    await data.replace({ data: { n: 2 }, expected_revision: 1 });
    await settle();
    // The read at load, the subscription's first frame (the same snapshot), then revision 2.
    expect(store.seen).toEqual([1, 1, 2]);
    expect(changes).toBe(3);
    off();
    store.dispose();
    await data.replace({ data: { n: 3 }, expected_revision: 2 });
    await settle();
    expect(store.seen).toEqual([1, 1, 2]);
    expect(changes).toBe(3);
  });
});
