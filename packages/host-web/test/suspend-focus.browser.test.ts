/**
 * Suspend while running and focus that comes back (issue 21), in real Chromium against the real AppServer:
 * a sandboxed app (the real surface SDK, signed with a key the host trusts, installed through Apps) keeps a
 * tally in its session data and offers the agent a game that ends when the person finishes it.
 *
 * - A finished game returns the focus to the chat by itself: the agent (the agent SDK with the dev agent
 *   token) starts `tally.play` (`restore_focus`) while the person is in the chat; the Runtime brings the app
 *   forward; the person finishes; the chat is back in front without a click.
 * - Eight instances opened from the launcher (each in a new conversation, each tallied a different number of
 *   times) never leave more than the bound of live frames (3) in the page; each one brought back loads a
 *   new document that shows its own tally from the Runtime's snapshot — no click repeated.
 */
import { join } from "node:path";
import type { FrameLocator, Page } from "playwright-core";
import type { AgentClient } from "@lineup/agent-sdk";
import { connectAgent } from "@lineup/agent-sdk/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installAndStartConversation, startOneAppHost, type SignedAppHost } from "./signed-app.js";
import { say, SCREENSHOTS } from "./support.js";

const APP = { app_scope: "tally", name: "Tally", file: "tally.lineup" } as const;
/** The host's bound of live surfaces (the Runtime's default). */
const BOUND = 3;

const PLAY_TOOL = {
  method: "tally.play",
  contract_version: "1",
  title: "Play a round",
  description: "Shows the game in front; it ends when the person finishes it.",
  activation_requirement: "foreground_required",
  restore_focus: true,
  input_schema: { type: "object", additionalProperties: false, properties: {} },
  output_schema: { type: "object", additionalProperties: false, required: ["finished"], properties: { finished: { const: true } } },
} as const;

/**
 * The app's page: the tally from its session data, "Add one" to count a click, a per-document mark (a new one
 * each time the page loads), and — while the agent's game runs — "Finish the game".
 */
const APP_SCRIPT = `
import { connectSurface, defineAgentTools } from "@lineup/surface-sdk";
const root = document.getElementById("app");
const count = document.createElement("output"); count.id = "count"; count.textContent = "…";
const mark = document.createElement("span"); mark.id = "document"; mark.textContent = String(Math.random()).slice(2);
root.append(count, mark);
const button = (label, onClick) => { const b = document.createElement("button"); b.type = "button"; b.textContent = label; b.addEventListener("click", onClick); root.append(b); return b; };
const tools = defineAgentTools({
  "tally.play": {
    ...${JSON.stringify(PLAY_TOOL)},
    handler: () => new Promise((resolve) => {
      const finish = button("Finish the game", () => { finish.remove(); resolve({ finished: true }); });
    }),
  },
});
void (async () => {
  const surface = await connectSurface({ tools });
  let current = await surface.sessionData.get();
  const show = () => { count.textContent = String(current.data?.clicks ?? 0); };
  surface.sessionData.subscribe((snapshot) => { if (snapshot.revision >= current.revision) { current = snapshot; show(); } });
  show();
  button("Add one", async () => {
    const clicks = (current.data?.clicks ?? 0) + 1;
    const { revision } = await surface.sessionData.replace({ data: { clicks }, expected_revision: current.revision });
    current = { ...current, data: { clicks }, revision };
    show();
  });
  await surface.lifecycle.ready();
})();
`;

const MANIFEST = {
  format: "lineup.app.v1",
  app_scope: APP.app_scope,
  version: "1.0.0",
  name: APP.name,
  description: "Counts clicks in its session data, and plays a round the agent starts.",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", "app.session-data.v1"] },
  entrypoints: [{ id: "main", kind: "contextual", default_eligible: false, display_modes: ["foreground"], path: "index.html", title: APP.name }],
  storage: { session_data_quota_bytes: 1024 },
  tools: [PLAY_TOOL],
};

let world: SignedAppHost;
let page: Page;
let agent: AgentClient;
const results: unknown[] = [];

beforeAll(async () => {
  world = await startOneAppHost(APP, MANIFEST, APP_SCRIPT, { dataDirPrefix: "lineup-suspend-focus-", publisherLabel: "Tally test publisher" });
  page = world.page;
  agent = await connectAgent({ url: world.server.url, token: world.server.devCredentials!.agent_token, sessionPollMs: 50, reconnect: { initialMs: 20, maxMs: 200 } });
  // Every turn starts a round and ends once the round is on screen; the round's result comes later.
  agent.onTurn((turn) => {
    void (async () => {
      const call = agent.invokeTool(turn.sessionId, PLAY_TOOL.method, {}, { appScope: APP.app_scope });
      await agent.completeTurn(turn.sessionId, turn.turnId, { text: "your round is on screen" });
      results.push(await call.result);
    })().catch((error: unknown) => void agent.failTurn(turn.sessionId, turn.turnId, { code: "handler_failed", message: String(error) }).catch(() => undefined));
  });
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await world?.close();
});

const shown = () => page.locator("#app-area").getAttribute("data-app");
const foreground = (): FrameLocator => page.frameLocator(`.instance-surface.placement-foreground[data-app="${APP.app_scope}"] iframe`);
const liveFrames = () => page.locator(".instance-layer iframe").count();
const appTabs = () => page.locator('[role="tab"][id^="switch-inst"]');
const launcher = () => page.getByRole("dialog", { name: "Open an app" });

describe("suspend while running and focus that comes back (Chromium, real host and AppServer)", () => {
  it("installs the app and starts a conversation with the agent", async () => {
    await installAndStartConversation(page, world.host.url, APP.name);
  }, 60_000);

  it("a finished game returns the focus to the chat by itself", async () => {
    await say(page, "let's play a round");
    await expect.poll(shown, { timeout: 30_000 }).toBe(APP.app_scope);
    await foreground().getByRole("button", { name: "Finish the game" }).click();
    // No click on Chat: the Runtime gave the front back when the call ended, and the shell followed.
    await expect.poll(shown, { timeout: 15_000 }).toBe("chat");
    await expect.poll(() => results, { timeout: 15_000 }).toEqual([{ finished: true }]);
    expect(await page.getByRole("tab", { name: "Chat" }).getAttribute("aria-selected")).toBe("true");
    await page.screenshot({ path: join(SCREENSHOTS, "suspend-focus-1-back-in-chat.png") });
  }, 60_000);

  it(`eight instances leave at most ${BOUND} live frames, and each restores its own tally when brought back`, async () => {
    const marks = new Map<string, string>();
    for (let n = 1; n <= 8; n++) {
      await page.getByRole("button", { name: "Open app" }).click();
      await launcher().getByRole("radio", { name: "A new conversation" }).check();
      await launcher().getByRole("option", { name: APP.name, exact: true }).click();
      await expect.poll(() => appTabs().count(), { timeout: 30_000 }).toBe(n + 1);
      const id = (await page.locator(".instance-surface.placement-foreground").getAttribute("data-instance", { timeout: 30_000 }))!;
      const add = foreground().getByRole("button", { name: "Add one" });
      for (let click = 0; click < n; click++) {
        await add.click({ timeout: 30_000 });
        await expect.poll(() => foreground().locator("#count").textContent(), { timeout: 10_000 }).toBe(String(click + 1));
      }
      marks.set(id, (await foreground().locator("#document").textContent())!);
      expect(await liveFrames()).toBeLessThanOrEqual(BOUND);
    }
    expect(marks.size).toBe(8);
    await page.screenshot({ path: join(SCREENSHOTS, "suspend-focus-2-eight-open.png") });

    // Brought back one by one, oldest first: each shows the tally it had; a suspended one loads a new page.
    let reloaded = 0;
    for (const [n, [id, mark]] of [...marks].entries()) {
      await page.locator(`#switch-${id}`).click();
      await expect.poll(() => page.locator(".instance-surface.placement-foreground").getAttribute("data-instance"), { timeout: 30_000 }).toBe(id);
      await expect.poll(() => foreground().locator("#count").textContent({ timeout: 1_000 }).catch(() => ""), { timeout: 30_000 }).toBe(String(n + 1));
      if ((await foreground().locator("#document").textContent()) !== mark) reloaded += 1;
      expect(await liveFrames()).toBeLessThanOrEqual(BOUND);
    }
    // Five of the eight had been suspended (and the ones still live when reached were not reloaded).
    expect(reloaded).toBeGreaterThanOrEqual(8 - BOUND);
    expect(world.pageErrors).toEqual([]);
  }, 240_000);
});
