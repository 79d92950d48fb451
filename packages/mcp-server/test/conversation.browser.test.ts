/**
 * An MCP client alone holds the conversation of a person in the web host (Chromium): the demo agent is
 * stopped and the MCP SDK's `Client`, on the AppServer's `/mcp` with the agent's token and `session=new`,
 * is the agent. The person writes; `lineup.next_message` returns it; `lineup.ask` puts a confirm card in
 * the chat, the person presses its button, and the client reads the answer; `lineup.reply` answers in
 * Markdown and ends the turn, which the person sees rendered.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { launchPersistentChromium } from "../../../test/support/chromium.js";
import { explained, say, startWorld, type World } from "../../host-web/test/support.js";
import { connectClient } from "./world.js";

let world: World;
let browser: Awaited<ReturnType<typeof launchPersistentChromium>>;
let page: Page;
let client: Client;
const consoleLines: string[] = [];

beforeAll(async () => {
  world = await startWorld();
  await world.stopAgent();
  client = await connectClient("http", { url: world.server.url, httpUrl: world.server.httpUrl, token: world.server.devCredentials!.agent_token, session: "new" });
  browser = await launchPersistentChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on("console", (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
}, 120_000);

afterAll(async () => {
  await client?.close();
  await browser?.close();
  await world?.close();
});

const call = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
  const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
  if (result.isError === true) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  return result.structuredContent!;
};

describe("an MCP client as the agent of a person in the web host", () => {
  it("hears the person, asks with a card they answer in Chromium, and replies in Markdown", async () => {
    await explained(page, consoleLines, world, async () => {
      await page.goto(world.host.url);
      await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
      await page.getByRole("button", { name: "New conversation with the demo agent" }).click();
      await page.getByRole("log").waitFor();
      await say(page, "Please tidy my notes");

      const message = await call("lineup.next_message", { timeout_ms: 30_000 });
      expect(message).toMatchObject({ status: "message", text: "Please tidy my notes" });

      const asking = call("lineup.ask", { kind: "confirm", prompt: "Tidy all 12 notes?", confirm_label: "Yes, tidy them", cancel_label: "Not now", timeout_ms: 30_000 });
      const card = page.locator('[data-kind="card"][data-card="confirm"]');
      await card.waitFor({ timeout: 15_000 });
      expect(await card.textContent()).toContain("Tidy all 12 notes?");
      await card.getByRole("button", { name: "Yes, tidy them" }).click();
      expect(await asking).toMatchObject({ status: "answered", confirmed: true });
      await expect.poll(() => card.getAttribute("data-answered"), { timeout: 10_000 }).toBe("true");

      const replied = await call("lineup.reply", { text: "Done: **12 notes** tidied." });
      expect(replied).toMatchObject({ turn_id: message["turn_id"], turn_state: "completed" });
      const bubble = page.locator('[data-kind="message"][data-from="agent"] .markdown').last();
      await expect.poll(() => bubble.locator("strong").textContent(), { timeout: 10_000 }).toBe("12 notes");
    });
  }, 120_000);
});
