import { describe, expect, it } from "vitest";
import { lazyImport } from "../src/lazy-import.js";

describe("lazyImport", () => {
  it("fetches once for every caller, and again after a failed fetch", async () => {
    let fetches = 0;
    const failures: unknown[] = [];
    const lazy = lazyImport(async () => {
      fetches += 1;
      if (fetches === 1) throw new Error("offline");
      return { value: fetches };
    }, (error) => failures.push(error));
    expect(lazy.current()).toBeUndefined();
    await expect(Promise.all([lazy.load(), lazy.load()])).rejects.toThrow("offline");
    expect(fetches).toBe(1);
    expect(failures).toHaveLength(1);
    const [a, b] = await Promise.all([lazy.load(), lazy.load()]);
    expect(a).toBe(b);
    expect(lazy.current()).toEqual({ value: 2 });
    await lazy.load();
    expect(fetches).toBe(2);
  });
});
