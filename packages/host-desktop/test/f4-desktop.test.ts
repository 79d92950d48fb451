/**
 * The spec's F4 path in the desktop window, with real input: the whiteboard `npm start` offers (built, packed,
 * signed with the dev key) installed from Apps; a message typed in the chat with the X keyboard asks the demo
 * agent to open a board; the agent's tool call brings the whiteboard to the front; the person draws on it with
 * the X pointer; and an agent reads the drawing back through a tool call.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectAgent, type AgentClient } from "@lineup/agent-sdk";
import { nodeWebSocketTransport } from "@lineup/agent-sdk/node";
import { servedConfig, startWorld, type World } from "../../host-web/test/support.js";
import { clickWhenThere, DESKTOP_SCREENSHOTS, inFrames, installInWindow, launchDesktop, realClick, requireDesktopTools, screenCenter, waitInWindow, xdotool, type DesktopWindow } from "./harness.js";

let world: World;
let root: string;
let window: DesktopWindow;
let reader: AgentClient;
const BOARD = '.instance-surface[data-app="whiteboard"] iframe';

beforeAll(async () => {
  requireDesktopTools();
  world = await startWorld({ builtinApps: true });
  root = mkdtempSync(join(tmpdir(), "lineup-desktop-f4-"));
  // The window takes the same sign-in config and bundles as `npm run desktop` does: from the web host's server.
  const config = JSON.stringify(await servedConfig(world.host.url));
  const configFile = join(root, "config.json");
  writeFileSync(configFile, config);
  mkdirSync(join(root, "bundles"));
  const bundles = [];
  for (const { file } of (JSON.parse(config) as { builtin_apps: { file: string }[] }).builtin_apps) {
    const path = join(root, "bundles", file);
    writeFileSync(path, new Uint8Array(await (await fetch(new URL(`apps/${file}`, world.host.url))).arrayBuffer()));
    bundles.push({ file, path });
  }
  window = await launchDesktop({ dist: world.distDir, config: configFile, dataDir: join(root, "profile"), bundles });
  reader = await connectAgent({ url: world.server.url, token: world.server.devCredentials!.agent_token, transport: nodeWebSocketTransport(), sessionPollMs: 50 });
}, 240_000);

afterAll(async () => {
  await reader?.close();
  window?.kill();
  await world?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("F4 in the desktop window", () => {
  it("install → a typed message → the agent's call brings the whiteboard → the person draws → the agent reads it back", async () => {
    await installInWindow(window, "Whiteboard", (review) => expect(review).toContain("board.create"));
    await clickWhenThere(window, '[role="tab"]', "Chat");
    await clickWhenThere(window, "button", "New conversation with the demo agent");
    await realClick(window, { selector: 'textarea[aria-label="Message"]' });
    xdotool(window, "type", "--delay", "15", "open a whiteboard called Launch plan");
    xdotool(window, "key", "Return");
    await expect.poll(() => reader.sessions().length, { timeout: 20_000 }).toBeGreaterThan(0);
    const sessionId = reader.sessions()[0]!.session_id;
    await waitInWindow(window, `return document.querySelector("#app-area")?.getAttribute("data-app") ?? null`, "whiteboard", 60_000);
    await expect.poll(async () => (await inFrames<{ text: string }[]>(window, { op: "query", selector: ".wb-title", attributes: [] })).flatMap((f) => f.result.map((r) => r.text)), { timeout: 60_000 }).toContain("Launch plan");
    // The person draws a stroke across the canvas with the X pointer.
    const canvas = await screenCenter(window, { selector: "canvas", frame: BOARD });
    const x0 = Math.round(canvas.x - canvas.rect.width / 4);
    const y0 = Math.round(canvas.y);
    xdotool(window, "mousemove", String(x0), String(y0), "mousedown", "1");
    for (let i = 1; i <= 20; i++) xdotool(window, "mousemove", String(x0 + i * 12), String(Math.round(y0 + Math.sin(i / 3) * 40)));
    xdotool(window, "mouseup", "1");
    // The agent reads the board back; the stroke reaches the board's state once the pointer is up, which on a
    // loaded machine can come after the first read, so it asks again (each read is a full tool call).
    let summary: { title: string; counts: { stroke: number } } | undefined;
    await expect
      .poll(async () => {
        summary = (await reader.invokeTool(sessionId, "board.summary", {}, { appScope: "whiteboard" }).result) as { title: string; counts: { stroke: number } };
        return summary.counts.stroke;
      }, { timeout: 20_000, interval: 1_000 })
      .toBeGreaterThanOrEqual(1);
    expect(summary).toMatchObject({ title: "Launch plan" });
    await window.command("snapshot", { path: join(DESKTOP_SCREENSHOTS, "desktop-4-f4-drawn.png") });
  }, 240_000);
});
