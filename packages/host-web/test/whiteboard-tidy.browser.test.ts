/**
 * "Ask the agent to tidy this board", end to end in real Chromium against the real AppServer and the demo
 * agent, with the whiteboard `npm start` offers: the agent opens a board, the person draws shapes on it and
 * presses the button; the demo agent answers `tidy_board` with a grid layout; the whiteboard shows the
 * proposal (how many items move, a preview) and only Accept moves the shapes — exactly where the layout says,
 * as one change that one undo takes back. The positions are read the way any agent reads them: the board's
 * own `board.summary`, through a second connection of the dev agent.
 */
import { join } from "node:path";
import type { FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectAgent, type AgentClient } from "@lineup/agent-sdk";
import { nodeWebSocketTransport } from "@lineup/agent-sdk/node";
import { taskOptionsOf, type SessionEvent } from "@lineup/protocol";
import { explained, installAndAsk, openProduct, SCREENSHOTS, type ProductPage } from "./support.js";

let product: ProductPage;
let page: Page;
let agent: AgentClient;
let sessionId: string;
const events: SessionEvent[] = [];

beforeAll(async () => {
  product = await openProduct();
  page = product.page;
  agent = await connectAgent({ url: product.world.server.url, token: product.world.server.devCredentials!.agent_token, transport: nodeWebSocketTransport(), sessionPollMs: 50 });
  agent.onEvent((event) => events.push(event));
}, 180_000);

afterAll(async () => {
  await agent?.close();
  await product?.close();
});

const board = (): FrameLocator => page.frameLocator('.instance-surface[data-app="whiteboard"] iframe');
const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
const step = <T>(run: () => Promise<T>) => explained(page, product.consoleLines, product.world, run);

type Box = { x: number; y: number; width: number; height: number };
type Placed = { id: string; x: number; y: number; w: number; h: number };

/** The bounding box `board.summary` reports for items at these places (whole board units, outwards). */
function boxOf(items: readonly Placed[]): Box {
  const x = Math.floor(Math.min(...items.map((i) => i.x)));
  const y = Math.floor(Math.min(...items.map((i) => i.y)));
  return { x, y, width: Math.ceil(Math.max(...items.map((i) => i.x + i.w))) - x, height: Math.ceil(Math.max(...items.map((i) => i.y + i.h))) - y };
}

const summary = async (): Promise<{ item_count: number; bounding_box: Box }> => (await agent.invokeTool(sessionId, "board.summary", {}, { appScope: "whiteboard" }).result) as { item_count: number; bounding_box: Box };

/** Drags a shape with the current tool from (x0, y0) to (x1, y1), canvas pixels. */
async function drag(x0: number, y0: number, x1: number, y1: number): Promise<void> {
  const canvas = (await board().locator("canvas.wb-canvas").boundingBox())!;
  await page.mouse.move(canvas.x + x0, canvas.y + y0);
  await page.mouse.down();
  await page.mouse.move(canvas.x + (x0 + x1) / 2, canvas.y + (y0 + y1) / 2, { steps: 4 });
  await page.mouse.move(canvas.x + x1, canvas.y + y1, { steps: 4 });
  await page.mouse.up();
}

describe("tidying the whiteboard with the agent", () => {
  let before: Box;
  let placed: Placed[];
  let layout: { id: string; x: number; y: number }[];

  it("the agent opens a board; the person draws shapes on it", () =>
    step(async () => {
      await installAndAsk(product, "Whiteboard", "board.create", "open a whiteboard called Tidy me");
      await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 60_000 }).toBe("whiteboard");
      await expect.poll(() => board().locator(".wb-title").textContent(), { timeout: 60_000 }).toBe("Tidy me");
      sessionId = agent.sessions()[0]!.session_id;
      // The host runs agent tasks: the button is there.
      const tidy = board().getByRole("button", { name: "Ask the agent to tidy this board" });
      await tidy.waitFor({ timeout: 15_000 });
      expect(await tidy.isDisabled()).toBe(true); // nothing to tidy yet

      await board().getByRole("radio", { name: "Rectangle" }).click();
      await drag(420, 260, 560, 330);
      await drag(90, 300, 170, 420);
      await board().getByRole("radio", { name: "Ellipse" }).click();
      await drag(300, 60, 400, 130);
      await expect.poll(() => board().locator("canvas.wb-canvas").getAttribute("aria-label"), { timeout: 10_000 }).toBe("Whiteboard: Tidy me, 3 items");
      await expect.poll(() => events.filter((e) => e.kind === "turn.completed" || e.kind === "turn.failed").length, { timeout: 30_000 }).toBeGreaterThan(0);
      before = (await summary()).bounding_box;
      await shot("whiteboard-tidy-1-drawn");
    }), 240_000);

  it("Tidy asks the agent; its layout is shown as a proposal and nothing moves yet", () =>
    step(async () => {
      await board().getByRole("button", { name: "Ask the agent to tidy this board" }).click();
      const panel = board().getByRole("region", { name: "Tidy with the agent" });
      await expect.poll(() => panel.locator(".wb-tidy-moves").textContent().catch(() => ""), { timeout: 30_000 }).toBe("Move 3 items");
      expect(await panel.locator(".wb-tidy-summary").textContent()).toBe("Arranged 3 items in a 2×2 grid.");
      expect(await panel.getByRole("img", { name: "Preview of the tidied board" }).isVisible()).toBe(true);
      await shot("whiteboard-tidy-2-proposal");

      // What the task asked and what the agent answered, as the session's log has them.
      const started = events.find((e) => e.kind === "turn.started" && taskOptionsOf((e.data as { turn: { options?: unknown } }).turn.options)?.entry === "tidy_board")!;
      const turn = (started.data as { turn: { turn_id: string; options?: unknown } }).turn;
      const options = taskOptionsOf(turn.options)!;
      expect(options.provenance.app_scope).toBe("whiteboard");
      placed = (options.context as { board: { items: Placed[] } }).board.items;
      expect(placed).toHaveLength(3);
      expect(boxOf(placed)).toEqual(before);
      await expect.poll(() => events.some((e) => e.kind === "turn.completed" && (e.data as { turn_id: string }).turn_id === turn.turn_id), { timeout: 15_000 }).toBe(true);
      const completed = events.find((e) => e.kind === "turn.completed" && (e.data as { turn_id: string }).turn_id === turn.turn_id)!;
      layout = (completed.data as { output: { layout: { id: string; x: number; y: number }[] } }).output.layout;
      expect(layout.map((p) => p.id).sort()).toEqual(placed.map((p) => p.id).sort());
      // A proposal only: the board is as the person drew it.
      expect((await summary()).bounding_box).toEqual(before);
    }), 120_000);

  it("Accept moves each shape where the layout says, as one change: one undo puts them all back", () =>
    step(async () => {
      const panel = board().getByRole("region", { name: "Tidy with the agent" });
      await panel.getByRole("button", { name: "Accept" }).click();
      await expect.poll(() => panel.getByRole("status").textContent(), { timeout: 15_000 }).toBe("Moved 3 items. Undo puts them back.");
      const size = new Map(placed.map((p) => [p.id, p]));
      const tidied = boxOf(layout.map((p) => ({ ...size.get(p.id)!, x: p.x, y: p.y })));
      expect(tidied).not.toEqual(before);
      expect((await summary()).bounding_box).toEqual(tidied);
      // The agent hears the decision in the conversation.
      await expect.poll(() => events.some((e) => e.kind === "envelope" && JSON.stringify(e.data).includes('"lineup.task.decision"') && JSON.stringify(e.data).includes('"accepted"')), { timeout: 15_000 }).toBe(true);
      await shot("whiteboard-tidy-3-accepted");

      await board().getByRole("button", { name: "Undo" }).click();
      await expect.poll(async () => (await summary()).bounding_box, { timeout: 10_000 }).toEqual(before);
      expect((await summary()).item_count).toBe(3);
      await board().getByRole("button", { name: "Redo" }).click();
      await expect.poll(async () => (await summary()).bounding_box, { timeout: 10_000 }).toEqual(tidied);
      await panel.getByRole("button", { name: "Close" }).click();
      expect(await panel.count()).toBe(0);
      expect(product.pageErrors).toEqual([]);
    }), 120_000);
});
