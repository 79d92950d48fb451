/**
 * The built whiteboard in real Chromium, sandboxed as the host will run it: handover, tools,
 * drawing with the pointer, undo, export, theme and display-mode changes, closing. Needs Debian's
 * Chromium (`npm test` installs it; LINEUP_CHROMIUM overrides the path).
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testSnapshot, TOOL_APP_FEATURES } from "../../../test/support/bridge-snapshot.js";
import { openBuiltApp, type BuiltAppPage } from "../../../test/support/built-app-page.js";

const OUTPUT = join(import.meta.dirname, "..", "..", "..", "test-output", "whiteboard");

const snapshot = testSnapshot({
  app_scope: "whiteboard",
  instance_id: "wb-browser-1",
  entrypoint: "canvas",
  theme: { mode: "dark", effective_mode: "dark", color_scheme_id: "lineup-default", css_variables: { "--lineup-color-bg": "#101418", "--lineup-color-fg": "#e6edf3", "--lineup-color-accent": "#4f8cff" } },
  sdk: { api_version: "1", features: TOOL_APP_FEATURES },
});

type Host = { session(): { data: { title: string; items: { type: string }[] } | null; revision: number }; requests(m: string): { params: Record<string, unknown> }[]; artifacts: { data: string }[] };

describe("whiteboard in a sandboxed iframe (Chromium)", () => {
  let app: BuiltAppPage;
  let page: Page;
  let errors: string[];

  const host = <T>(fn: (h: Host) => T): Promise<T> => app.host(fn);
  const invoke = (params: object) => app.invoke(params);
  const event = (name: string, data: object) => app.event(name, data);
  const frame = () => app.frame();

  beforeAll(async () => {
    app = await openBuiltApp(join(import.meta.dirname, ".."), snapshot);
    ({ page, errors } = app);
    await mkdir(OUTPUT, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it("loads, subscribes to session data and says ready, with no errors", async () => {
    expect(await host((h) => h.requests("session_data.subscribe").length)).toBe(1);
    expect(await frame().locator("[role=toolbar]").isVisible()).toBe(true);
    expect(await frame().locator("html").getAttribute("data-theme")).toBe("dark");
    // This host negotiated no agent tasks: there is nothing to ask the agent to tidy with.
    expect(await frame().getByRole("button", { name: "Ask the agent to tidy this board" }).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("serves the agent's tools: create a board and draw a diagram", async () => {
    expect(await invoke({ call_id: "c1", method: "board.create", arguments: { title: "Launch plan" } })).toEqual({ outcome: "completed", result: { title: "Launch plan", item_count: 0 } });
    const drawn = (await invoke({
      call_id: "c2",
      method: "board.add_shapes",
      arguments: {
        shapes: [
          { type: "rect", x: 40, y: 60, width: 160, height: 70, label: "Design", fill: "#fff8c5", color: "orange" },
          { type: "arrow", x1: 200, y1: 95, x2: 300, y2: 95, color: "blue" },
          { type: "ellipse", x: 300, y: 55, width: 160, height: 80, label: "Build", color: "green" },
          { type: "text", x: 40, y: 170, text: "Ship by Friday", color: "red" },
        ],
      },
    })) as { outcome: string; result: { added: number } };
    expect(drawn).toMatchObject({ outcome: "completed", result: { added: 4 } });
    const session = await host((h) => h.session());
    expect(session.data?.title).toBe("Launch plan");
    expect(session.data?.items).toHaveLength(4);
    expect(await frame().locator(".wb-title").textContent()).toBe("Launch plan");
  });

  it("draws a smooth stroke with the pointer and stores it in session data; undo removes it", async () => {
    const box = (await page.locator("#app-frame").boundingBox())!;
    const canvas = (await frame().locator("canvas").boundingBox())!;
    const x0 = box.x + canvas.x - box.x + 100;
    const y0 = canvas.y + 300;
    await page.mouse.move(x0, y0);
    await page.mouse.down();
    for (let i = 1; i <= 30; i++) await page.mouse.move(x0 + i * 10, y0 + Math.sin(i / 4) * 40);
    await page.mouse.up();
    await page.waitForFunction(() => ((window as unknown as { __host: Host }).__host.session().data?.items.length ?? 0) === 5, undefined, { timeout: 5_000 });
    const items = (await host((h) => h.session().data!.items)) as { type: string; points?: number[] }[];
    const stroke = items[4]!;
    expect(stroke.type).toBe("stroke");
    expect(stroke.points!.length / 3).toBeGreaterThan(5);
    await page.screenshot({ path: join(OUTPUT, "foreground-dark.png") });

    await frame().getByRole("button", { name: "Undo" }).click();
    await page.waitForFunction(() => (window as unknown as { __host: Host }).__host.session().data?.items.length === 4, undefined, { timeout: 5_000 });
    await frame().getByRole("button", { name: "Redo" }).click();
    await page.waitForFunction(() => (window as unknown as { __host: Host }).__host.session().data?.items.length === 5, undefined, { timeout: 5_000 });
  });

  it("summarises the board for the agent", async () => {
    const summary = (await invoke({ call_id: "c3", method: "board.summary", arguments: {} })) as { outcome: string; result: { counts: Record<string, number>; texts: string[] } };
    expect(summary.outcome).toBe("completed");
    expect(summary.result.counts).toMatchObject({ rect: 1, arrow: 1, ellipse: 1, text: 1, stroke: 1 });
    expect(summary.result.texts).toEqual(["Design", "Build", "Ship by Friday"]);
  });

  it("exports a PNG artifact as an operation with progress", async () => {
    expect(await invoke({ call_id: "c4", method: "board.export", arguments: { scale: 1 } })).toEqual({ outcome: "pending" });
    await page.waitForFunction(() => (window as unknown as { __host: Host }).__host.requests("tool.complete").length === 1, undefined, { timeout: 10_000 });
    const complete = (await host((h) => h.requests("tool.complete")[0]!.params)) as { call_id: string; result: { artifact: { mime_type: string; size: number }; width: number } };
    expect(complete.call_id).toBe("c4");
    expect(complete.result.artifact.mime_type).toBe("image/png");
    expect(complete.result.width).toBeGreaterThan(100);
    expect(await host((h) => h.requests("tool.progress").length)).toBeGreaterThanOrEqual(3);
    const png = Buffer.from((await host((h) => h.artifacts[0]!.data)) as string, "base64");
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    const { writeFile } = await import("node:fs/promises");
    await writeFile(join(OUTPUT, "export.png"), png);
  });

  it("places text with the keyboard, moves it with the select tool and deletes it", async () => {
    const canvas = (await frame().locator("canvas").boundingBox())!;
    const items = () => host((h) => h.session().data!.items) as Promise<{ type: string; text?: string; x?: number; y?: number; id: string }[]>;
    const before = (await items()).length;
    await frame().getByRole("radio", { name: "Text" }).click();
    await page.mouse.click(canvas.x + 500, canvas.y + 200);
    await frame().locator("textarea").waitFor();
    await page.keyboard.type("Hello board");
    await page.keyboard.press("Enter");
    await page.waitForFunction((n) => ((window as unknown as { __host: Host }).__host.session().data?.items.length ?? 0) === n + 1, before, { timeout: 5_000 });
    const placed = (await items()).at(-1)!;
    expect(placed).toMatchObject({ type: "text", text: "Hello board" });

    await frame().getByRole("radio", { name: "Select and move" }).click();
    await page.mouse.move(canvas.x + 510, canvas.y + 210);
    await page.mouse.down();
    await page.mouse.move(canvas.x + 540, canvas.y + 250, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction((x) => ((window as unknown as { __host: Host }).__host.session().data?.items.at(-1) as { x?: number } | undefined)?.x === x, placed.x! + 30, { timeout: 5_000 });
    expect((await items()).at(-1)).toMatchObject({ id: placed.id, x: placed.x! + 30, y: placed.y! + 40 });

    await page.keyboard.press("Delete");
    await page.waitForFunction((n) => (window as unknown as { __host: Host }).__host.session().data?.items.length === n, before, { timeout: 5_000 });
    await frame().getByRole("radio", { name: "Pen" }).click();
  });

  it("follows theme and display mode changes", async () => {
    await event("theme.changed", { theme: { ...snapshot.theme, mode: "light", effective_mode: "light", css_variables: { "--lineup-color-bg": "#ffffff", "--lineup-color-fg": "#1f2328" } } });
    await frame().locator("html[data-theme=light]").waitFor();
    await page.screenshot({ path: join(OUTPUT, "foreground-light.png") });
    await event("display_mode.changed", { display_mode: "pip" });
    await frame().locator(".wb-mode-pip").waitFor();
    expect(await frame().locator("[role=toolbar]").count()).toBe(0);
    await page.setViewportSize({ width: 800, height: 600 });
    await page.locator("#app-frame").evaluate((el) => {
      (el as HTMLIFrameElement).style.width = "320px";
      (el as HTMLIFrameElement).style.height = "200px";
    });
    await page.waitForTimeout(200);
    await page.locator("#app-frame").screenshot({ path: join(OUTPUT, "pip.png") });
    // As a card in the chat the board sizes the frame to its content.
    await event("display_mode.changed", { display_mode: "inline_card" });
    await page.waitForFunction(() => (window as unknown as { __host: Host }).__host.requests("surface.resize").some((r) => r.params["height"] === 240), undefined, { timeout: 5_000 });
    // A narrow foreground frame: the toolbar wraps and stays usable.
    await event("display_mode.changed", { display_mode: "foreground" });
    await page.locator("#app-frame").evaluate((el) => {
      (el as HTMLIFrameElement).style.width = "360px";
      (el as HTMLIFrameElement).style.height = "420px";
    });
    await frame().locator("[role=toolbar]").waitFor();
    await page.waitForTimeout(200);
    const toolbar = (await frame().locator("[role=toolbar]").boundingBox())!;
    expect(toolbar.width).toBeLessThanOrEqual(360);
    expect(await frame().getByRole("button", { name: "Undo" }).isVisible()).toBe(true);
    await page.locator("#app-frame").screenshot({ path: join(OUTPUT, "foreground-narrow.png") });
  });

  it("speaks the language LineUp tells it: the toolbar and the header in Chinese, then English again", async () => {
    await event("locale.changed", { locale: "zh-CN", timezone: "UTC" });
    await frame().getByRole("toolbar", { name: "绘图工具" }).waitFor();
    expect(await frame().getByRole("button", { name: "撤销" }).isVisible()).toBe(true);
    expect(await frame().getByRole("radio", { name: "画笔" }).getAttribute("title")).toBe("画笔 (P)");
    expect(await frame().locator(".wb-status").textContent()).toMatch(/^(已保存|正在保存…)$/);
    await page.screenshot({ path: join(OUTPUT, "foreground-zh-CN.png") });
    await event("locale.changed", { locale: "en", timezone: "UTC" });
    await frame().getByRole("toolbar", { name: "Drawing tools" }).waitFor();
  });

  it("survives a reload: the board comes back from session data", async () => {
    const before = await host((h) => h.session());
    await page.evaluate(() => (window as unknown as { __host: { reload(): void } }).__host.reload());
    await page.waitForFunction(() => (window as unknown as { __host: Host }).__host.requests("lifecycle.ready").length === 1, undefined, { timeout: 15_000 });
    const summary = (await invoke({ call_id: "c5", method: "board.summary", arguments: {} })) as { result: { title: string; item_count: number } };
    expect(summary.result).toMatchObject({ title: "Launch plan", item_count: before.data!.items.length });
    expect(await frame().locator(".wb-title").textContent()).toBe("Launch plan");
    expect(await host((h) => h.session().revision)).toBe(before.revision);
  });

  it("redraws a zoomed-out picture-in-picture whole: nothing of the previous frame is left", async () => {
    await event("display_mode.changed", { display_mode: "pip" });
    await frame().locator(".wb-mode-pip").waitFor();
    // Non-transparent pixels on the board's canvas.
    const painted = () => frame().locator("canvas").evaluate((c: HTMLCanvasElement) => {
      const data = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) n++;
      return n;
    });
    await invoke({ call_id: "pip-1", method: "board.create", arguments: { title: "Zoom" } });
    // One filled rectangle, far from the origin: the picture-in-picture fits it, nearly filling the frame.
    await invoke({ call_id: "pip-2", method: "board.add_shapes", arguments: { shapes: [{ type: "rect", x: 1000, y: 1000, width: 300, height: 150, fill: "orange" }] } });
    await expect.poll(painted).toBeGreaterThan(20_000);
    const before = await painted();
    // A dot at the origin: the fitted view zooms out, the rectangle becomes small; the big one must be gone.
    await invoke({ call_id: "pip-3", method: "board.add_shapes", arguments: { shapes: [{ type: "rect", x: 0, y: 0, width: 10, height: 10 }] } });
    await expect.poll(painted, { timeout: 5_000 }).toBeLessThan(before / 4);
    await event("display_mode.changed", { display_mode: "foreground" });
    await frame().locator("[role=toolbar]").waitFor();
  });

  it("an agent's state patch brings a region into view and is acknowledged; an unusable one is acknowledged and changes nothing", async () => {
    // The board of the test before: an orange rectangle at (1000, 1000), off screen in the foreground's first view.
    const orange = () => frame().locator("canvas").evaluate((c: HTMLCanvasElement) => {
      const data = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i]! > 200 && data[i + 1]! > 80 && data[i + 1]! < 200 && data[i + 2]! < 80) n++;
      return n;
    });
    expect(await host((h) => h.requests("agent_message.subscribe").map((r) => r.params))).toEqual([{ types: ["lineup.app.state.patch"], include_pending: true }]);
    // The foreground's first view replaces the picture-in-picture's on a later frame.
    await expect.poll(orange).toBe(0);
    await event("state.patch", { message_id: "s-1:40", patch: { focus: "nowhere" } });
    await expect.poll(() => host((h) => h.requests("agent_message.ack").map((r) => r.params))).toEqual([{ message_id: "s-1:40" }]);
    expect(await orange()).toBe(0);
    await event("state.patch", { message_id: "s-1:41", patch: { focus: { x: 1000, y: 1000, width: 300, height: 150 } } });
    await expect.poll(orange, { timeout: 5_000 }).toBeGreaterThan(20_000);
    expect(await host((h) => h.requests("agent_message.ack").map((r) => r.params))).toEqual([{ message_id: "s-1:40" }, { message_id: "s-1:41" }]);
    await page.screenshot({ path: join(OUTPUT, "focused.png") });
  });

  it("shows a board the agent created the moment the app said it was ready (a call that waited for it to start)", async () => {
    await page.evaluate(() => {
      const h = (window as unknown as { __host: { reload(): void; invokeOnReady(p: object): void } }).__host;
      h.invokeOnReady({ call_id: "c6", method: "board.create", arguments: { title: "Straight away" } });
      h.reload();
    });
    await page.waitForFunction(() => (window as unknown as { __host: Host }).__host.requests("lifecycle.ready").length === 1, undefined, { timeout: 15_000 });
    await expect.poll(() => host((h) => h.session().data?.title)).toBe("Straight away");
    await expect.poll(() => frame().locator(".wb-title").textContent(), { timeout: 5_000 }).toBe("Straight away");
  });

  it("flushes and answers closing_done when the host closes it", async () => {
    await event("lifecycle", { state: "closing", flush_deadline_ms: 2_000 });
    await page.waitForFunction(() => (window as unknown as { __host: Host }).__host.requests("lifecycle.closing_done").length === 1, undefined, { timeout: 5_000 });
    expect(errors).toEqual([]);
  });
});
