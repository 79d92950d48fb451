/**
 * An installed app's own Stop, in real Chromium against the real AppServer: a sandboxed app (the real
 * surface SDK, signed with a key the host trusts, installed through Apps) has a "Stop the agent" button, which
 * calls `surface.agent.cancelTurn()` → bridge `agent.cancel_turn` → `instance-bridge.ts` →
 * `AppPort.cancelTurn(its conversation, its instance)`.
 *
 * The test is the agent (the agent SDK with the dev agent token): the first thing said opens the app in the
 * conversation with its tool; every later turn it keeps running until the device cancels it. Then:
 * - a Stop the app makes while it is behind the chat is refused `foreground_required`, and the turn runs on;
 * - in front, the app's Stop ends the running turn: the agent's turn is aborted, the chat says "You stopped
 *   the agent." and its own Stop goes away;
 * - with nothing running, the app's Stop is refused `invalid_state`.
 */
import { join } from "node:path";
import type { FrameLocator, Page } from "playwright-core";
import type { AgentClient, IncomingTurn } from "@lineup/agent-sdk";
import { connectAgent } from "@lineup/agent-sdk/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installFromApps, PROBE_OPEN_TOOL as OPEN_TOOL, startOneAppHost, type SignedAppHost } from "./signed-app.js";
import { say, SCREENSHOTS } from "./support.js";

const APP = { app_scope: "stop-probe", name: "Stop Probe", file: "stop-probe.lineup" } as const;


/**
 * The app's page: "Stop the agent" asks now; "Stop the agent in a moment" asks 1.5 s after the click (by then
 * the person may have left the app). Each outcome is listed: the receipt's status and whether it names the
 * instance's own conversation, or the refusal's code.
 */
const APP_SCRIPT = `
import { connectSurface, defineAgentTools } from "@lineup/surface-sdk";
const tools = defineAgentTools({
  "probe.open": { ...${JSON.stringify(OPEN_TOOL)}, handler: () => ({ opened: true }) },
});
void (async () => {
  const surface = await connectSurface({ tools });
  const root = document.getElementById("app");
  const outcomes = document.createElement("ol");
  outcomes.id = "outcomes";
  const add = (text) => { const li = document.createElement("li"); li.textContent = text; outcomes.append(li); };
  const stop = () => surface.agent.cancelTurn().then(
    (receipt) => "stopped " + receipt.status + (receipt.conversation_id === surface.app.scope.conversation_id ? " here" : " elsewhere"),
    (error) => "refused " + error.code,
  );
  const button = (label, onClick) => { const b = document.createElement("button"); b.type = "button"; b.textContent = label; b.addEventListener("click", onClick); root.append(b); };
  button("Stop the agent", async () => add(await stop()));
  button("Stop the agent in a moment", () => setTimeout(async () => add(await stop()), 1500));
  root.append(outcomes);
  await surface.lifecycle.ready();
})();
`;

const MANIFEST = {
  format: "lineup.app.v1",
  app_scope: APP.app_scope,
  version: "1.0.0",
  name: APP.name,
  description: "Stops the agent from its own button, so a test can watch the turn end.",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1"] },
  entrypoints: [{ id: "main", kind: "contextual", default_eligible: false, display_modes: ["foreground"], path: "index.html", title: APP.name }],
  tools: [OPEN_TOOL],
};

let world: SignedAppHost;
let page: Page;
let agent: AgentClient;
/** Turns the agent keeps running (every turn after the first), and those the device cancelled. */
const held: IncomingTurn[] = [];
const aborted: string[] = [];
let opened = false;

beforeAll(async () => {
  world = await startOneAppHost(APP, MANIFEST, APP_SCRIPT, { dataDirPrefix: "lineup-app-stop-", publisherLabel: "Stop test publisher" });
  page = world.page;
  agent = await connectAgent({ url: world.server.url, token: world.server.devCredentials!.agent_token, sessionPollMs: 50, reconnect: { initialMs: 20, maxMs: 200 } });
  agent.onTurn((turn) => {
    if (!opened) {
      // The first turn opens the probe in the conversation, then ends.
      void (async () => {
        await agent.invokeTool(turn.sessionId, OPEN_TOOL.method, {}, { appScope: APP.app_scope }).result;
        await agent.completeTurn(turn.sessionId, turn.turnId, { text: "opened the probe" });
        opened = true;
      })().catch((error: unknown) => void agent.failTurn(turn.sessionId, turn.turnId, { code: "handler_failed", message: String(error) }).catch(() => undefined));
      return;
    }
    // Every later turn: working on it until the device cancels it.
    held.push(turn);
    void agent.updateTurn(turn.sessionId, turn.turnId, { status: "working", label: "Thinking it over" }).catch(() => undefined);
    turn.signal.addEventListener("abort", () => aborted.push(turn.turnId), { once: true });
  });
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await world?.close();
});

const frame = (): FrameLocator => page.frameLocator(`.instance-surface[data-app="${APP.app_scope}"] iframe`);
const outcomes = (): Promise<string[]> => frame().locator("#outcomes li").allTextContents();
const tab = (name: string) => page.getByRole("tab", { name });
const chatStop = () => page.getByRole("button", { name: "Stop the agent" });
const statusLine = () => page.locator(".status-line");

describe("an installed app stops the agent's turn in its conversation (Chromium, real host and AppServer)", () => {
  it("the agent opens the app in the conversation; a turn it works on shows the chat's Stop", async () => {
    await page.goto(world.host.url);
    await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
    await tab("Apps").click();
    await installFromApps(page, APP.name);
    await tab("Chat").click();
    await page.getByRole("button", { name: "New conversation with the demo agent" }).click();
    await page.getByRole("log").waitFor();
    await say(page, "open the probe");
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 30_000 }).toBe(APP.app_scope);
    await frame().getByRole("button", { name: "Stop the agent", exact: true }).waitFor({ timeout: 30_000 });
    await expect.poll(() => opened, { timeout: 15_000 }).toBe(true);

    await tab("Chat").click();
    await expect.poll(() => chatStop().count(), { timeout: 10_000 }).toBe(0);
    await say(page, "think about it for a while");
    await expect.poll(() => held.length, { timeout: 15_000 }).toBe(1);
    await chatStop().waitFor({ timeout: 10_000 });
  }, 120_000);

  it("behind the chat, the app's Stop is refused foreground_required and the turn runs on", async () => {
    await tab(APP.name).click();
    await frame().getByRole("button", { name: "Stop the agent in a moment" }).click();
    // The person goes back to the chat before the app asks.
    await tab("Chat").click();
    await expect.poll(outcomes, { timeout: 10_000 }).toEqual(["refused foreground_required"]);
    await page.waitForTimeout(300);
    expect(aborted).toEqual([]);
    expect(await chatStop().count()).toBe(1);
  }, 30_000);

  it("in front, the app's Stop ends the running turn: the agent's turn is aborted and the chat says the person stopped it", async () => {
    await tab(APP.name).click();
    await frame().getByRole("button", { name: "Stop the agent", exact: true }).click();
    await expect.poll(outcomes, { timeout: 10_000 }).toEqual(["refused foreground_required", "stopped queued here"]);
    await expect.poll(() => aborted, { timeout: 10_000 }).toEqual([held[0]!.turnId]);
    await page.screenshot({ path: join(SCREENSHOTS, "app-stop-1-stopped-in-app.png") });

    await tab("Chat").click();
    await expect.poll(() => statusLine().textContent(), { timeout: 10_000 }).toBe("Agent stopped");
    await expect.poll(() => page.locator('[data-kind="notice"]').last().textContent(), { timeout: 10_000 }).toBe("You stopped the agent.");
    await expect.poll(() => chatStop().count(), { timeout: 10_000 }).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, "app-stop-2-chat.png") });
  }, 30_000);

  it("with nothing running, the app's Stop is refused invalid_state", async () => {
    await tab(APP.name).click();
    await frame().getByRole("button", { name: "Stop the agent", exact: true }).click();
    await expect.poll(outcomes, { timeout: 10_000 }).toEqual(["refused foreground_required", "stopped queued here", "refused invalid_state"]);
    expect(held).toHaveLength(1);
    expect(world.pageErrors).toEqual([]);
  }, 30_000);
});
