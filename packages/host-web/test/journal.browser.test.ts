/**
 * The journal `npm start` offers, in real Chromium through the whole product (issue 20): its install review says
 * what it keeps and runs in a person's words; made the default app it opens at start; an entry written in it is
 * kept in the app's own IndexedDB database and is there again after a reload; its search runs in its wasm back-end,
 * in a Worker of the page; and a part this host cannot run (the importer, a local program) says so instead of
 * pretending, as does a workflow that needs a conversation the instance does not have.
 */
import { join } from "node:path";
import type { FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explained, installBuiltinApp, openProduct, SCREENSHOTS, type ProductPage } from "./support.js";

let product: ProductPage;
let page: Page;

beforeAll(async () => {
  product = await openProduct();
  page = product.page;
}, 180_000);

afterAll(async () => {
  await product?.close();
});

const journal = (): FrameLocator => page.frameLocator('.instance-surface[data-app="journal"] iframe');
const step = <T>(run: () => Promise<T>) => explained(page, product.consoleLines, product.world, run);

describe("the journal through the whole product", () => {
  it("says in its review what it keeps and runs, and opens at start once it is the default app", () =>
    step(async () => {
      await page.goto(product.world.host.url);
      await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
      await installBuiltinApp(page, "Journal", "Keeps up to 50 MB of its own data on this device (entries, summaries), deleted when you remove it.", async () => {
        const review = await page.getByRole("region", { name: "Review before installing" }).textContent();
        expect(review).toContain("Full-text search runs sandboxed code on this device, with no access to files or the network (up to 16 MB)");
        expect(review).toContain("Text importer runs a background program on this device (up to 96 MB), with no network and only its own folder; it may use its own data (optional: skipped where this device cannot run it).");
        expect(review).toContain("Workflow “Summarize my week”: reads its data, asks the agent, asks you before going on, writes its data, makes files, and records evidence.");
        await page.screenshot({ path: join(SCREENSHOTS, "journal-review.png") });
      });
      await page.getByRole("button", { name: "Make Journal the default app" }).click();
      await expect.poll(() => page.locator(".install-live, .operation-live, [role=status]").allTextContents().then((t) => t.join(" ")), { timeout: 15_000 }).toMatch(/Journal now opens when LineUp starts/);
      await page.reload();
      await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 60_000 }).toBe("journal");
      await journal().getByRole("heading", { name: "Journal" }).waitFor({ timeout: 60_000 });
    }), 240_000);

  it("keeps an entry in the app's own storage, there again after a reload", () =>
    step(async () => {
      const form = journal().getByRole("form", { name: "Write an entry" });
      await form.getByLabel("Day").fill("2026-12-01");
      await form.getByLabel("Mood").fill("calm");
      await form.getByLabel("Title").fill("A quiet Monday");
      await form.getByLabel("Entry").fill("Walked by the river. Nothing much happened, and that was good.");
      await form.getByRole("button", { name: "Keep entry" }).click();
      await expect.poll(() => journal().getByRole("status").textContent(), { timeout: 15_000 }).toBe("Kept the entry of 2026-12-01.");
      const entry = journal().locator('.entry[data-day="2026-12-01"]');
      await expect.poll(() => entry.textContent(), { timeout: 15_000 }).toContain("Walked by the river.");
      await expect.poll(() => journal().locator("[data-usage]").textContent(), { timeout: 15_000 }).toMatch(/^1 entry · 1 KB of 50 MB$/);
      await page.screenshot({ path: join(SCREENSHOTS, "journal-entry.png") });
      await page.reload();
      await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 60_000 }).toBe("journal");
      await expect.poll(() => journal().locator('.entry[data-day="2026-12-01"]').textContent(), { timeout: 60_000 }).toContain("A quiet Monday");
      // An entry the collection's schema refuses is refused, and nothing is kept.
      expect(await journal().locator(".entry").count()).toBe(1);
    }), 180_000);

  it("searches with its wasm back-end, and says so when this device cannot run a part of it", () =>
    step(async () => {
      await journal().getByRole("searchbox").fill("river");
      await journal().getByRole("button", { name: "Search", exact: true }).click();
      await expect.poll(() => journal().locator(".entry").count(), { timeout: 15_000 }).toBe(1);
      await journal().getByRole("searchbox").fill("mountains");
      await journal().getByRole("button", { name: "Search", exact: true }).click();
      await expect.poll(() => journal().getByRole("status").textContent(), { timeout: 15_000 }).toBe("No entry mentions “mountains”.");
      expect(await journal().locator(".entry").count()).toBe(0);
      await page.screenshot({ path: join(SCREENSHOTS, "journal-search.png") });
      // The importer is a local program: the web host does not run programs.
      await journal().getByText("Import from text").click();
      await journal().getByPlaceholder("2026-12-01").fill("2026-12-02\nA busy Tuesday.");
      await journal().getByRole("button", { name: "Import", exact: true }).click();
      await expect.poll(() => journal().getByRole("status").textContent(), { timeout: 15_000 }).toBe("This device cannot run that part of the journal.");
      // Opened as the default app it serves no conversation, and its summary asks the agent: refused up front, and said.
      await journal().getByRole("button", { name: "Summarize my week" }).click();
      await expect.poll(() => journal().getByRole("status").textContent(), { timeout: 15_000 }).toBe("Summarize my week asks the agent, so it runs in a conversation: open journal in one and start it there");
    }), 60_000);
});
