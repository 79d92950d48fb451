/** The Runtime's catalog client: a whole listing follows the AppServer's pages, and a page that does not move on is an error. */
import type { CatalogRelease } from "@lineup/protocol";
import { describe, expect, it } from "vitest";
import { createRuntimeCatalog, type CatalogRequest } from "../src/communication/catalog.js";

const release = (app_scope: string, version: string): CatalogRelease => ({
  app_scope,
  version,
  name: app_scope,
  publisher: { key_id: "k".repeat(64), public_key: "p" },
  sha256: "0".repeat(64),
  size: 1,
  published_at: "2026-12-06T00:00:00.000Z",
});

function pagedServer(pages: Record<string, { releases: CatalogRelease[]; next_after?: string }>, asked: unknown[]): CatalogRequest {
  return (async (method: string, params: { after?: string }) => {
    asked.push(params);
    if (method !== "catalog/list") throw new Error(method);
    return pages[params.after ?? ""]!;
  }) as CatalogRequest;
}

describe("the Runtime's catalog client", () => {
  it("lists every app by following next_after to the last page", async () => {
    const asked: unknown[] = [];
    const catalog = createRuntimeCatalog(pagedServer({ "": { releases: [release("a", "2.0.0"), release("a", "1.0.0")], next_after: "a" }, a: { releases: [release("b", "1.0.0")] } }, asked));
    expect((await catalog.list()).map((r) => `${r.app_scope}@${r.version}`)).toEqual(["a@2.0.0", "a@1.0.0", "b@1.0.0"]);
    expect(asked).toEqual([{}, { after: "a" }]);
  });

  it("refuses pages that come round again instead of asking forever", async () => {
    const catalog = createRuntimeCatalog(pagedServer({ "": { releases: [], next_after: "a" }, a: { releases: [], next_after: "a" } }, []));
    await expect(catalog.list()).rejects.toMatchObject({ code: "internal_error" });
  });
});
