/**
 * The built Draw and Guess in real Chromium, sandboxed as the host runs it: the agent's
 * `game.start_round` shows the secret word, the person draws with the mouse, the agent looks at the
 * drawing and guesses (each guess a bubble over the canvas, then the round's end), and a reload
 * shows the same round. Needs Debian's Chromium (`npm test` installs it; LINEUP_CHROMIUM overrides the path).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBuiltApp, type BuiltAppPage } from "../../../test/support/built-app-page.js";
import { testSnapshot, TOOL_APP_FEATURES } from "../../../test/support/bridge-snapshot.js";
import { checkToolArguments } from "../../../test/support/tool-arguments.js";
import { tools } from "../src/tools.js";

const OUTPUT = join(import.meta.dirname, "..", "..", "..", "test-output", "draw-and-guess");

const snapshot = testSnapshot({ app_scope: "draw-and-guess", instance_id: "dg-browser-1", entrypoint: "game", sdk: { api_version: "1", features: TOOL_APP_FEATURES } });

type StoredRound = { round_id: string; word: string; strokes: number[][]; finished: boolean; guesses: { text: string; correct: boolean }[]; outcome?: string };
type Host = { session(): { data: { round: StoredRound | null; played: number; won: number } | null; revision: number }; requests(m: string): { params: Record<string, unknown> }[]; reload(): void };
type Outcome = { outcome: string; result?: Record<string, unknown>; code?: string; message?: string };

describe("draw and guess in a sandboxed iframe (Chromium)", () => {
  let app: BuiltAppPage;
  let page: Page;
  let errors: string[];
  let roundId = "";
  let word = "";

  const host = <T>(fn: (h: Host) => T): Promise<T> => app.host(fn);
  const invoke = (params: object) => app.invoke(params) as Promise<Outcome>;
  const frame = () => app.frame();
  const round = () => host((h) => h.session().data?.round ?? null);

  beforeAll(async () => {
    app = await openBuiltApp(join(import.meta.dirname, ".."), snapshot);
    ({ page, errors } = app);
    await mkdir(OUTPUT, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it("waits for a round: says how to start one, with no errors", async () => {
    await expect.poll(() => frame().getByText("No round yet").isVisible()).toBe(true);
    expect(await host((h) => h.requests("session_data.subscribe").length)).toBe(1);
    expect(errors).toEqual([]);
  });

  it("speaks the language LineUp tells it, and follows a change of it", async () => {
    await app.event("locale.changed", { locale: "zh-CN", timezone: "UTC" });
    await expect.poll(() => frame().locator(".dg-idle-title").textContent()).toBe("还没有开始");
    expect(await frame().getByRole("button", { name: "开始一轮" }).isVisible()).toBe(true);
    await app.event("locale.changed", { locale: "en", timezone: "UTC" });
    await expect.poll(() => frame().locator(".dg-idle-title").textContent()).toBe("No round yet");
  });

  it("game.start_round shows the word to the person and tells the agent everything but the word", async () => {
    const started = await invoke({ call_id: "g1", method: "game.start_round", arguments: { category: "animals" } });
    expect(started.outcome).toBe("completed");
    const result = started.result as { round_id: string; round: number; category: string; letters: number; candidates: string[] };
    expect(result).toMatchObject({ round: 1, category: "animals" });
    expect(Object.keys(result).sort()).toEqual(["candidates", "category", "letters", "round", "round_id"]);
    roundId = result.round_id;
    word = (await frame().locator(".dg-word").textContent()) ?? "";
    expect(result.candidates).toContain(word);
    expect(result.letters).toBe(word.length);
    expect((await round())?.word).toBe(word);
    expect(await frame().locator(".dg-status").textContent()).toMatch(/^Try to draw it in 1:[0-3][0-9]$/);
    expect(await frame().getByRole("button", { name: "I'm done drawing" }).isVisible()).toBe(true);
    // Arguments outside the schema never reach the page: the Runtime refuses them.
    expect(checkToolArguments(tools, "game.start_round", { category: "planets" })).toMatchObject({ ok: false, error: { code: "invalid_arguments" } });
  });

  it("the person draws with the mouse; the stroke is stored and the agent can look at it", async () => {
    const canvas = (await frame().locator("canvas").boundingBox())!;
    const x0 = canvas.x + canvas.width * 0.3;
    const y0 = canvas.y + canvas.height * 0.5;
    await page.mouse.move(x0, y0);
    await page.mouse.down();
    for (let i = 1; i <= 30; i++) await page.mouse.move(x0 + i * 8, y0 + Math.sin(i / 4) * 60);
    await page.mouse.up();
    await expect.poll(async () => (await round())?.strokes.length).toBe(1);
    const stroke = (await round())!.strokes[0]!;
    expect(stroke.length / 2).toBeGreaterThan(10);
    expect(stroke.every((v) => Number.isInteger(v) && v >= 0 && v <= 400)).toBe(true);
    expect(await frame().getByRole("img").getAttribute("aria-label")).toBe("Drawing: 1 stroke");

    const look = await invoke({ call_id: "g3", method: "game.get_drawing", arguments: { round_id: roundId } });
    expect(look).toMatchObject({ outcome: "completed", result: { round_id: roundId, strokes: 1, finished: false } });
    const png = Buffer.from(look.result!["png_base64"] as string, "base64");
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect(png.length).toBeLessThanOrEqual(65_536);
    await writeFile(join(OUTPUT, "drawing.png"), png);
    await page.screenshot({ path: join(OUTPUT, "drawing-screen.png") });
  });

  it("I'm done drawing stops the drawing and tells the agent", async () => {
    // The agent waits for the person (game.await_drawing): nothing comes back until they press the button.
    let answered = false;
    const awaited = invoke({ call_id: "g3", method: "game.await_drawing", arguments: { round_id: roundId } }).finally(() => (answered = true));
    await page.waitForTimeout(300);
    expect(answered).toBe(false);
    await frame().getByRole("button", { name: "I'm done drawing" }).click();
    expect(await awaited).toMatchObject({ outcome: "completed", result: { round_id: roundId, strokes: 1, finished: true } });
    // Asked again once done, it answers at once.
    expect(await invoke({ call_id: "g3b", method: "game.await_drawing", arguments: { round_id: roundId } })).toMatchObject({ outcome: "completed", result: { finished: true } });
    await expect.poll(async () => (await round())?.finished).toBe(true);
    expect(await frame().locator(".dg-status").textContent()).toBe("Waiting for the agent's guess — 3 guesses left.");
    expect(await invoke({ call_id: "g4", method: "game.get_drawing", arguments: { round_id: roundId } })).toMatchObject({ result: { strokes: 1, finished: true } });
  });

  it("each guess shows as a bubble over the canvas; the right one ends the round and reveals the word", async () => {
    const wrong = word === "dog" ? "cat" : "dog";
    expect(await invoke({ call_id: "g5", method: "game.guess", arguments: { round_id: roundId, guess: wrong } })).toEqual({ outcome: "completed", result: { correct: false, guesses_left: 2 } });
    await expect.poll(() => frame().locator(".dg-bubble").allTextContents()).toEqual([`${wrong}? ✗`]);
    expect(await invoke({ call_id: "g6", method: "game.guess", arguments: { round_id: roundId, guess: ` The ${word.toUpperCase()}S ` } })).toEqual({
      outcome: "completed",
      result: { correct: true, guesses_left: 1, word },
    });
    await expect.poll(() => frame().locator(".dg-bubble").allTextContents()).toEqual([`${wrong}? ✗`, `The ${word.toUpperCase()}S? ✓`]);
    expect(await frame().getByRole("status").textContent()).toBe(`Guessed it: ${word}!`);
    expect(await frame().locator(".dg-score").textContent()).toBe("Guessed 1 of 1");
    await page.screenshot({ path: join(OUTPUT, "guessed.png") });

    expect(await invoke({ call_id: "g7", method: "game.guess", arguments: { round_id: roundId, guess: "cat" } })).toMatchObject({ outcome: "failed", code: "invalid_arguments", message: expect.stringContaining("has ended") });
    expect(await invoke({ call_id: "g8", method: "game.guess", arguments: { round_id: "r-nope", guess: "cat" } })).toMatchObject({ outcome: "failed", code: "invalid_arguments", message: "there is no round r-nope" });
  });

  it("in picture-in-picture it shows the round, where it is and the last guess, without the canvas or buttons", async () => {
    await app.event("display_mode.changed", { display_mode: "pip" });
    await expect.poll(() => frame().locator("main.dg-pip").count()).toBe(1);
    expect(await frame().locator("main.dg-pip p").allTextContents()).toEqual([`Round 1 · Draw: ${word}`, `Guessed it: ${word}!`, `Last guess: The ${word.toUpperCase()}S? ✓`]);
    expect(await frame().getByRole("img").count()).toBe(0);
    expect(await frame().getByRole("button").count()).toBe(0);
    // Every line fits the small frame's width (cut with an ellipsis, never spilling over).
    const overflow = await frame().locator("main.dg-pip").evaluate((main) => main.scrollWidth - main.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(OUTPUT, "pip.png") });
    await app.event("display_mode.changed", { display_mode: "foreground" });
    await expect.poll(() => frame().getByRole("img").count()).toBe(1);
    expect(await frame().getByRole("button", { name: "New word" }).count()).toBe(1);
  });

  it("a reload shows the same round: word, drawing, guesses and its end", async () => {
    await host((h) => h.reload());
    await app.ready(1);
    await expect.poll(() => frame().locator(".dg-word").textContent()).toBe(word);
    expect(await frame().getByRole("img").getAttribute("aria-label")).toBe("Drawing: 1 stroke");
    expect(await frame().locator(".dg-bubble").count()).toBe(2);
    expect(await frame().getByRole("status").textContent()).toBe(`Guessed it: ${word}!`);
    expect(errors).toEqual([]);
  });

  it("New word starts another round; the agent is told the old one ended", async () => {
    await frame().getByRole("button", { name: "New word" }).click();
    await expect.poll(async () => (await round())?.round_id).not.toBe(roundId);
    const next = (await round())!;
    expect(next).toMatchObject({ strokes: [], finished: false, guesses: [] });
    expect(next.word).not.toBe(word);
    await expect.poll(() => frame().locator(".dg-word").textContent()).toBe(next.word);
    expect(await frame().locator(".dg-bubble").count()).toBe(0);
    expect(await invoke({ call_id: "g9", method: "game.get_drawing", arguments: { round_id: roundId } })).toMatchObject({ outcome: "failed", code: "invalid_arguments" });
    expect(await invoke({ call_id: "g10", method: "game.get_drawing", arguments: { round_id: next.round_id } })).toMatchObject({ outcome: "completed", result: { strokes: 0, finished: false } });
    // Nothing drawn yet: nothing to be done with.
    expect(await frame().getByRole("button", { name: "I'm done drawing" }).isDisabled()).toBe(true);
    // An agent waiting on a round that ends first (another new word) hears that it ended.
    const waiting = invoke({ call_id: "g11", method: "game.await_drawing", arguments: { round_id: next.round_id } });
    await page.waitForTimeout(200);
    await frame().getByRole("button", { name: "New word" }).click();
    expect(await waiting).toMatchObject({ outcome: "failed", code: "invalid_arguments" });
    expect(errors).toEqual([]);
  });
});
