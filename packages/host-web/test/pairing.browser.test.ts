/**
 * Pairing through the sign-in page in real Chromium against the real AppServer: with no config served, a person
 * types the AppServer address and a pairing code from `admin/device/pair`; a wrong code is refused in words, the
 * right one becomes a new device of that user, and the host comes online as it.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchPersistentChromium } from "../../../test/support/chromium.js";
import { startWorld, type World } from "./support.js";

let world: World;
let browser: Awaited<ReturnType<typeof launchPersistentChromium>>;
let page: Page;

async function admin(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(`${world.server.httpUrl}/admin`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${world.server.adminToken}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const reply = (await response.json()) as { result: Record<string, unknown> };
  return reply.result;
}

beforeAll(async () => {
  world = await startWorld({ withConfig: false });
  browser = await launchPersistentChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await world?.close();
});

it("signs in with a pairing code as a new device of its user, after refusing a wrong one", async () => {
  await admin("admin/user/add", { user_id: "pat" });
  const { code } = (await admin("admin/device/pair", { user_id: "pat" })) as { code: string };
  await page.goto(world.host.url);
  await page.getByLabel("AppServer URL").fill(world.server.url);
  await page.getByLabel("Pairing code").fill("ZZZZ-ZZZZ");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect.poll(() => page.getByRole("alert").textContent(), { timeout: 10_000 }).toContain("The pairing code is unknown, expired or already used");
  expect(await admin("admin/device/list", { user_id: "pat" })).toEqual({ devices: [] });

  await page.getByLabel("Pairing code").fill(code.toLowerCase());
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
  const { devices } = (await admin("admin/device/list", { user_id: "pat" })) as { devices: { name: string; revoked_at: string | null }[] };
  expect(devices).toEqual([expect.objectContaining({ name: "LineUp web host", revoked_at: null })]);
});
