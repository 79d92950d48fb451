/**
 * Spec 8.2 and 5.4 through the whole chain, in real Chromium: a sandboxed app receives state patches and
 * the agent messages it subscribes to, acknowledges them, and raises the events its manifest declares —
 * the agent on the other side of the real AppServer hears those events, and nothing else reaches it.
 *
 * The host (Vite build, IndexedDB Runtime) runs against the real AppServer; the app is signed with a fresh
 * key the host trusts and installed through Apps. The test is the agent (the agent SDK, with the dev agent
 * token): a person opens a conversation and says hello; the agent calls the app's tool, which brings the
 * app to the front in that conversation; then it sends the app a state patch and a message. The person
 * presses the app's buttons, which emit a declared event (heard by the agent) and an undeclared one
 * (refused in the app with `invalid_params`); acknowledging a message it was never given is `not_found`. A patch sent while the page is closed arrives after a
 * reload; one already acknowledged does not come back.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentClient, AppEvent } from "@lineup/agent-sdk";
import { connectAgent } from "@lineup/agent-sdk/node";
import { installFromApps, PROBE_OPEN_TOOL as OPEN_TOOL, startOneAppHost, type SignedAppHost } from "./signed-app.js";
import { say, SCREENSHOTS } from "./support.js";

const APP = { app_scope: "inbox-probe", name: "Inbox Probe", file: "inbox-probe.lineup" } as const;


/**
 * The app's page: state patches set the title (and are listed, then acknowledged); agent messages are listed
 * with whether they needed an acknowledgement (and acknowledged anyway: a no-op); two buttons emit a declared and an undeclared event, and
 * the outcome of each is listed.
 */
const APP_SCRIPT = `
import { connectSurface, defineAgentTools } from "@lineup/surface-sdk";
const tools = defineAgentTools({
  "probe.open": { ...${JSON.stringify(OPEN_TOOL)}, handler: () => ({ opened: true }) },
});
void (async () => {
  const surface = await connectSurface({ tools });
  const root = document.getElementById("app");
  const list = (id) => { const ol = document.createElement("ol"); ol.id = id; root.append(ol); return ol; };
  const title = document.createElement("h1");
  title.id = "title";
  title.textContent = "No patch yet";
  root.append(title);
  const patches = list("patches");
  const messages = list("messages");
  const outcomes = list("outcomes");
  const listed = list("listed");
  const add = (into, text) => { const li = document.createElement("li"); li.textContent = text; into.append(li); return li; };
  surface.agentMessages.onStatePatch((patch) => {
    if (typeof patch.patch.title === "string") title.textContent = patch.patch.title;
    add(patches, JSON.stringify(patch.patch));
    void surface.agentMessages.ack(patch.message_id);
  });
  surface.agentMessages.subscribe((message) => {
    const li = add(messages, message.type + " " + message.sender.kind + " " + message.requires_ack + " " + JSON.stringify(message.payload));
    // Acknowledging a display message is allowed, and changes nothing.
    surface.agentMessages.ack(message.message_id).then(() => { li.textContent += " · ack ok"; }, (error) => { li.textContent += " · ack " + error.code; });
  }, { types: ["lineup.message"], include_pending: true });
  const button = (label, name, data) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.addEventListener("click", () => surface.events.emit(name, data).then(() => add(outcomes, name + " sent"), (error) => add(outcomes, name + " " + error.code)));
    root.append(b);
  };
  button("Send note", "note.sent", { text: "hello agent" });
  button("Send bad note", "note.sent", { text: "" });
  button("Send undeclared", "note.deleted", {});
  const foreign = document.createElement("button");
  foreign.type = "button";
  foreign.textContent = "Acknowledge a message it never got";
  foreign.addEventListener("click", () => surface.agentMessages.ack("conv-elsewhere:1").then(() => add(outcomes, "ack sent"), (error) => add(outcomes, "ack " + error.code)));
  root.append(foreign);
  const lister = document.createElement("button");
  lister.type = "button";
  lister.textContent = "List the inbox";
  lister.addEventListener("click", () => surface.agentMessages.list({ latest: true, limit: 20 }).then((page) => {
    listed.replaceChildren();
    for (const m of page.messages) add(listed, m.type + " " + JSON.stringify(m.payload));
  }, (error) => add(listed, "list " + error.code)));
  root.append(lister);
  await surface.lifecycle.ready();
})();
`;

const MANIFEST = {
  format: "lineup.app.v1",
  app_scope: APP.app_scope,
  version: "1.0.0",
  name: APP.name,
  description: "Shows what the agent sends it and tells the agent what the person does, so a test can watch both ways.",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", "surface.state.v1", "surface.events.v1", "app.agent-messages.v1"] },
  entrypoints: [{ id: "main", kind: "contextual", default_eligible: false, display_modes: ["foreground"], path: "index.html", title: APP.name }],
  agent_subscriptions: [
    { type: "lineup.app.state.patch", scope: "instance" },
    { type: "lineup.app.state.patch", scope: "conversation" },
    { type: "lineup.message", scope: "conversation" },
    { type: "lineup.tool.invoke", scope: "conversation" },
  ],
  events: [{ name: "note.sent", data_schema: { type: "object", additionalProperties: false, required: ["text"], properties: { text: { type: "string", minLength: 1, maxLength: 200 } } } }],
  tools: [OPEN_TOOL],
};

let world: SignedAppHost;
let page: Page;
let agent: AgentClient;
const heard: AppEvent[] = [];
let sessionId = "";

beforeAll(async () => {
  world = await startOneAppHost(APP, MANIFEST, APP_SCRIPT, { dataDirPrefix: "lineup-app-inbox-", publisherLabel: "Inbox test publisher" });
  page = world.page;
  agent = await connectAgent({ url: world.server.url, token: world.server.devCredentials!.agent_token, sessionPollMs: 50, reconnect: { initialMs: 20, maxMs: 200 } });
  agent.onAppEvent((event) => heard.push(event));
  // The agent answers the first thing said in a conversation by opening the probe there.
  agent.onTurn((turn) => {
    sessionId = turn.sessionId;
    void (async () => {
      const call = agent.invokeTool(turn.sessionId, OPEN_TOOL.method, {}, { appScope: APP.app_scope });
      const outcome = await call.result;
      await agent.completeTurn(turn.sessionId, turn.turnId, { text: `opened: ${JSON.stringify(outcome)}` });
    })().catch((error: unknown) => void agent.failTurn(turn.sessionId, turn.turnId, { code: "handler_failed", message: String(error) }).catch(() => undefined));
  });
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await world?.close();
});

const frame = (): FrameLocator => page.frameLocator(`.instance-surface[data-app="${APP.app_scope}"] iframe`);
const items = async (id: string): Promise<string[]> => frame().locator(`#${id} li`).allTextContents();

describe("spec 8.2 / 5.4: a sandboxed app's inbox and events, through the real AppServer (Chromium)", () => {
  it("the agent opens the app in the conversation; its state patch and message reach the app, which acknowledges the patch", async () => {
    await page.goto(world.host.url);
    await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
    await page.getByRole("tab", { name: "Apps" }).click();
    await installFromApps(page, APP.name, async (review) => {
      expect(await review.textContent()).toContain("note.sent");
    });
    await page.getByRole("tab", { name: "Chat" }).click();
    await page.getByRole("button", { name: "New conversation with the demo agent" }).click();
    await page.getByRole("log").waitFor();
    await say(page, "hello");
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 30_000 }).toBe(APP.app_scope);
    await frame().locator("#title").waitFor({ timeout: 30_000 });

    await agent.sendStatePatch(sessionId, { appScope: APP.app_scope, patch: { title: "From the agent" } });
    await agent.send(sessionId, { kind: "text", text: "a note for the probe" }, { appScope: APP.app_scope });
    await expect.poll(() => frame().locator("#title").textContent(), { timeout: 15_000 }).toBe("From the agent");
    await expect.poll(() => items("messages"), { timeout: 15_000 }).toEqual(['lineup.message agent false {"format":"text","text":"a note for the probe"} · ack ok']);
    expect(await items("patches")).toEqual(['{"title":"From the agent"}']);
    // The stored inbox, read back through the SDK's list(): both, oldest first, as the app may see them.
    await frame().getByRole("button", { name: "List the inbox" }).click();
    await expect.poll(() => items("listed"), { timeout: 15_000 }).toEqual(['lineup.app.state.patch {"patch":{"title":"From the agent"}}', 'lineup.message {"format":"text","text":"a note for the probe"}']);
    await page.screenshot({ path: join(SCREENSHOTS, "app-inbox-1-patched.png") });
  }, 120_000);

  it("a declared event reaches the agent with the app and instance it came from; bad data and undeclared names are refused in the app, and the agent hears neither", async () => {
    await frame().getByRole("button", { name: "Send note", exact: true }).click();
    await expect.poll(() => heard.length, { timeout: 15_000 }).toBe(1);
    expect(heard[0]).toMatchObject({ sessionId, appScope: APP.app_scope, name: "note.sent", data: { text: "hello agent" } });
    expect(heard[0]!.instanceId).toMatch(/./);

    await frame().getByRole("button", { name: "Send bad note" }).click();
    await frame().getByRole("button", { name: "Send undeclared" }).click();
    await frame().getByRole("button", { name: "Acknowledge a message it never got" }).click();
    await expect.poll(() => items("outcomes"), { timeout: 15_000 }).toEqual(["note.sent sent", "note.sent invalid_params", "note.deleted invalid_params", "ack not_found"]);
    // The refused ones were never sent: a later good one is the agent's second event.
    await frame().getByRole("button", { name: "Send note", exact: true }).click();
    await expect.poll(() => heard.length, { timeout: 15_000 }).toBe(2);
    expect(heard.map((e) => e.name)).toEqual(["note.sent", "note.sent"]);
    expect(heard[1]!.seq).toBeGreaterThan(heard[0]!.seq);
  }, 60_000);

  it("a patch sent while the page is closed arrives after a reload; the acknowledged one does not come back", async () => {
    const instanceId = heard[0]!.instanceId!;
    await page.goto("about:blank");
    await agent.sendStatePatch(sessionId, { appScope: APP.app_scope, instanceId, patch: { title: "While you were away" } });
    await page.goto(world.host.url);
    await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 30_000 }).toBe(APP.app_scope);
    await expect.poll(() => frame().locator("#title").textContent(), { timeout: 30_000 }).toBe("While you were away");
    // Give a redelivery of the first patch time to show, then check it did not.
    await page.waitForTimeout(500);
    expect(await items("patches")).toEqual(['{"title":"While you were away"}']);
    await page.screenshot({ path: join(SCREENSHOTS, "app-inbox-2-after-reload.png") });
    expect(world.pageErrors).toEqual([]);
  }, 90_000);

  it("a picture the agent shares shows in the chat, its bytes read from the AppServer", async () => {
    // A 2×2 PNG drawn by the page's own canvas: real image bytes, made in the test.
    const png = Uint8Array.from(
      await page.evaluate(async () => {
        const canvas = document.createElement("canvas");
        canvas.width = 2;
        canvas.height = 2;
        canvas.getContext("2d")!.fillRect(0, 0, 2, 2);
        const blob = await new Promise<Blob>((resolve) => canvas.toBlob((b) => resolve(b!), "image/png"));
        return [...new Uint8Array(await blob.arrayBuffer())];
      }),
    );
    const shared = await agent.shareArtifact(sessionId, { name: "chart.png", mime_type: "image/png", bytes: png });
    await page.getByRole("tab", { name: "Chat" }).click();
    const row = page.locator('[data-kind="artifact"]').filter({ hasText: "chart.png" });
    const picture = row.locator("img.artifact-image");
    await expect.poll(() => picture.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0)).catch(() => 0), { timeout: 20_000, message: "the picture drawn" }).toBe(2);
    expect(await picture.getAttribute("src")).toMatch(/^blob:/);
    expect(shared.size).toBe(png.byteLength);
    await page.screenshot({ path: join(SCREENSHOTS, "app-inbox-3-agent-picture.png") });
    expect(world.pageErrors).toEqual([]);

    // The conversation's Files list has it too, newest first, with who shared it; Save hands over the same bytes.
    const files = page.locator("details.conversation-files");
    await files.locator("summary").click();
    const item = files.locator(".files-item").filter({ hasText: "chart.png" });
    await item.waitFor({ timeout: 10_000 });
    expect(await files.locator("summary").textContent()).toMatch(/^Files \(\d+\)$/);
    expect(await files.locator(".files-item").first().textContent()).toContain("chart.png");
    expect(await item.getAttribute("data-origin")).toBe("agent");
    expect(await item.textContent()).toContain("from the agent");
    const downloaded = page.waitForEvent("download", { timeout: 15_000 });
    await item.getByRole("button", { name: "Save chart.png" }).click();
    const download = await downloaded;
    expect(download.suggestedFilename()).toBe("chart.png");
    expect(new Uint8Array(await readFile((await download.path())!))).toEqual(png);
    await page.screenshot({ path: join(SCREENSHOTS, "app-inbox-4-files.png") });

    // Read whole for its preview, the agent's picture is kept on the device: Settings counts it on a row of its own.
    await page.getByRole("tab", { name: "Settings" }).click();
    const kept = page.getByRole("list", { name: "Storage used per app" }).locator('[data-app="runtime"]');
    await expect.poll(() => kept.textContent(), { timeout: 10_000, message: "the kept files' row" }).toContain("Files kept from conversations");
    expect(await kept.textContent()).toContain(`${png.byteLength} bytes`);
    await page.getByRole("tab", { name: "Chat" }).click();
    expect(world.pageErrors).toEqual([]);
  }, 60_000);
});
