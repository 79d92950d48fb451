// The browser shim must fail where Vitest would, or the in-page contract run would prove nothing.
import { describe, expect as vitestExpect, it as vitestIt } from "vitest";
import { describe as shimDescribe, expect, it, runRegistered } from "./browser/vitest-shim.js";

describe("the in-page Vitest shim", () => {
  vitestIt("fails wrong expectations and passes right ones, with hooks and it.each", async () => {
    shimDescribe("probe", () => {
      it("equal", () => expect({ a: [1, new Uint8Array([2])], b: undefined }).toEqual({ a: [1, new Uint8Array([2])] }));
      it("not equal", () => expect({ a: 1 }).toEqual({ a: 2 }));
      it("bytes differ", () => expect(new Uint8Array([1])).toEqual(new Uint8Array([2])));
      it("not.toBe on the same object", () => {
        const o = {};
        expect(o).not.toBe(o);
      });
      it("rejects.toMatchObject on a resolved promise", () => expect(Promise.resolve(1)).rejects.toMatchObject({ code: "x" }));
      it("rejects.toMatchObject matching", () => expect(Promise.reject(Object.assign(new Error("e"), { code: "x" }))).rejects.toMatchObject({ code: "x" }));
      it.each([[1, 1], [2, 3]])("each %s = %s", (a, b) => expect(a).toBe(b));
    });
    const results = await runRegistered();
    vitestExpect(results.map((r) => [r.name, r.ok])).toEqual([
      ["probe > equal", true],
      ["probe > not equal", false],
      ["probe > bytes differ", false],
      ["probe > not.toBe on the same object", false],
      ["probe > rejects.toMatchObject on a resolved promise", false],
      ["probe > rejects.toMatchObject matching", true],
      ["probe > each 1 = 1", true],
      ["probe > each 2 = 3", false],
    ]);
  });
});
