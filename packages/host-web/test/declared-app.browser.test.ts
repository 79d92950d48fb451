/**
 * The demo agent with an app it has never heard of (issue 28), in real Chromium against the real AppServer:
 * a sandboxed app (the real surface SDK, signed with a key the host trusts, installed through Apps) declares two
 * tools, and the person drives it from the chat by what the app declares — "open plant care" calls its opening
 * tool; "water a plant, soak it" calls the tool of that title with the enum value named, and the plant, a required
 * input with no default, is asked for in an input card. Nothing in the agent SDK names this app.
 */
import { join } from "node:path";
import type { FrameLocator, Page } from "playwright-core";
import { runDemoAgent, type AgentClient, type DemoAgent } from "@lineup/agent-sdk";
import { connectAgent } from "@lineup/agent-sdk/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installAndStartConversation, startOneAppHost, type SignedAppHost } from "./signed-app.js";
import { say, SCREENSHOTS } from "./support.js";

const APP = { app_scope: "plant-care", name: "Plant Care", file: "plant-care.lineup" } as const;

const OPEN_TOOL = {
  method: "plants.open",
  contract_version: "1",
  title: "Plant diary",
  description: "Brings the plant diary to the front in this conversation.",
  activation_requirement: "foreground_required",
  input_schema: { type: "object", additionalProperties: false, properties: {} },
  output_schema: { type: "object", additionalProperties: false, required: ["opened"], properties: { opened: { const: true } } },
} as const;

const WATER_TOOL = {
  method: "plants.water",
  contract_version: "1",
  title: "Water a plant",
  description: "Notes in the diary that a plant was watered.",
  activation_requirement: "foreground_required",
  input_schema: {
    type: "object",
    additionalProperties: false,
    required: ["plant", "mode"],
    properties: { plant: { type: "string", title: "Which plant", minLength: 1, maxLength: 80 }, mode: { enum: ["mist", "soak"] } },
  },
  output_schema: { type: "object", additionalProperties: false, required: ["watered"], properties: { watered: { type: "string" } } },
} as const;

/** The diary: one line per watering. */
const APP_SCRIPT = `
import { connectSurface, defineAgentTools } from "@lineup/surface-sdk";
const list = document.createElement("ul"); list.id = "diary";
document.getElementById("app").append(list);
const tools = defineAgentTools({
  "plants.open": { ...${JSON.stringify(OPEN_TOOL)}, handler: async () => ({ opened: true }) },
  "plants.water": {
    ...${JSON.stringify(WATER_TOOL)},
    handler: async ({ plant, mode }) => {
      const line = document.createElement("li"); line.textContent = plant + " (" + mode + ")"; list.append(line);
      return { watered: plant };
    },
  },
});
void (async () => {
  const surface = await connectSurface({ tools });
  await surface.lifecycle.ready();
})();
`;

const MANIFEST = {
  format: "lineup.app.v1",
  app_scope: APP.app_scope,
  version: "1.0.0",
  name: APP.name,
  description: "A plant diary the agent keeps when asked.",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1"] },
  entrypoints: [{ id: "main", kind: "contextual", default_eligible: false, display_modes: ["foreground"], path: "index.html", title: APP.name }],
  tools: [OPEN_TOOL, WATER_TOOL],
};

let world: SignedAppHost;
let page: Page;
let client: AgentClient;
let agent: DemoAgent;

beforeAll(async () => {
  world = await startOneAppHost(APP, MANIFEST, APP_SCRIPT, { dataDirPrefix: "lineup-declared-app-", publisherLabel: "Plant test publisher" });
  page = world.page;
  client = await connectAgent({ url: world.server.url, token: world.server.devCredentials!.agent_token, sessionPollMs: 50, reconnect: { initialMs: 20, maxMs: 200 } });
  agent = runDemoAgent(client);
}, 120_000);

afterAll(async () => {
  agent?.dispose();
  await client?.close();
  await world?.close();
});

const shown = () => page.locator("#app-area").getAttribute("data-app");
const diary = (): FrameLocator => page.frameLocator(`.instance-surface[data-app="${APP.app_scope}"] iframe`);
const lastReply = () => page.locator('[data-kind="message"][data-from="agent"]').last().textContent();

describe("the demo agent drives an app it has never heard of, from its declarations (Chromium, real host and AppServer)", () => {
  it("installs the app and starts a conversation with the demo agent", async () => {
    await installAndStartConversation(page, world.host.url, APP.name);
  }, 120_000);

  it("“open plant care” opens it through its opening tool", async () => {
    await say(page, "open plant care");
    await expect.poll(shown, { timeout: 60_000 }).toBe(APP.app_scope);
    await diary().locator("#diary").waitFor({ state: "attached", timeout: 60_000 });
    await page.getByRole("tab", { name: "Chat" }).click();
    await expect.poll(lastReply, { timeout: 30_000 }).toContain("plants.open");
  }, 120_000);

  it("a tool named by its title: the enum value said is used, the plant is asked for in a card, and the app does it", async () => {
    await say(page, "water a plant, soak it");
    const card = page.locator('[data-kind="card"][data-card="input"]').last();
    await card.waitFor({ timeout: 30_000 });
    expect(await card.textContent()).toContain("Water a plant: Which plant?");
    await card.getByRole("textbox").fill("Fern");
    await card.getByRole("button", { name: "Send" }).click();
    await expect.poll(() => diary().locator("#diary li").allTextContents(), { timeout: 60_000 }).toEqual(["Fern (soak)"]);
    await page.getByRole("tab", { name: "Chat" }).click();
    await expect.poll(lastReply, { timeout: 30_000 }).toContain('{"watered":"Fern"}');
    await page.screenshot({ path: join(SCREENSHOTS, "declared-app-chat.png") });
  }, 120_000);
});
