/**
 * Voice Notes through the whole product in real Chromium with a fake microphone: the app `npm start`
 * offers (built, packed, signed with the dev key the host trusts) installed from Apps → "record a voice
 * note" in the chat → the Runtime brings Voice Notes to the front with the demo agent's interactive call
 * → Record → the shell's dialog asks for the microphone → Allow → the shell's recording bar → Stop → the
 * app saves the recording as an artifact and the agent gets `{ outcome: "recorded", artifact_id, … }`
 * and says what it got; the call over, the chat comes back to the front by itself (`restore_focus`). A second request is discarded in the bar, and the agent hears `cancelled_by_user`.
 */
import { join } from "node:path";
import type { FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_MEDIA_ARGS } from "../../../test/support/chromium.js";
import { explained, installAndAsk, openProduct, say, SCREENSHOTS, type ProductPage } from "./support.js";

let product: ProductPage;
let page: Page;

beforeAll(async () => {
  product = await openProduct({ chromiumArgs: FAKE_MEDIA_ARGS });
  page = product.page;
}, 180_000);

afterAll(async () => {
  await product?.close();
});

const voice = (): FrameLocator => page.frameLocator('.instance-surface[data-app="voice"] iframe');
const tab = (name: string) => page.getByRole("tab", { name });
const bar = () => page.getByRole("group", { name: "Recording for Voice Notes" });

describe("Voice Notes through the whole product (fake microphone)", () => {
  it("the agent asks for a voice note; the person records it, stops it in LineUp's bar, and the agent gets the artifact", () => explained(page, product.consoleLines, product.world, async () => {
    await installAndAsk(product, "Voice Notes", "voice.request_recording", "record a voice note");

    // Interactive: the Runtime brings Voice Notes to the front, and the call waits for the person.
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 60_000 }).toBe("voice");
    const request = voice().getByRole("region", { name: "The agent's request" });
    await request.waitFor({ timeout: 60_000 });
    await request.getByRole("button", { name: "Record" }).click();

    const dialog = page.getByRole("dialog", { name: "Voice Notes wants to use microphone.record" });
    await dialog.waitFor({ timeout: 30_000 });
    expect(await dialog.getByTestId("capability-purpose").textContent()).toContain("The agent asked you for a voice note.");
    await dialog.getByRole("button", { name: "Allow", exact: true }).click();

    await bar().waitFor({ timeout: 30_000 });
    await expect.poll(() => bar().getByRole("timer").textContent(), { timeout: 10_000 }).toMatch(/^0:0[1-9] \/ 1:00$/);
    await page.screenshot({ path: join(SCREENSHOTS, "voice-01-recording.png") });
    await bar().getByRole("button", { name: "Stop" }).click();
    await expect.poll(() => bar().count()).toBe(0);
    // The call is over: an interactive tool gives the front back (restore_focus), so the chat returns by itself.
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 30_000 }).toBe("chat");

    await tab("Voice Notes").click();
    await expect.poll(() => voice().locator(".voice-note").count(), { timeout: 30_000 }).toBe(1);
    expect(await voice().locator(".voice-note-length").textContent()).toMatch(/^0:0[1-9]$/);
    await page.screenshot({ path: join(SCREENSHOTS, "voice-02-saved.png") });

    await tab("Chat").click();
    await expect.poll(() => page.getByRole("log").textContent(), { timeout: 60_000 }).toMatch(/Got your voice note: \d+ seconds? of audio \([\d.]+ KB, audio\/(webm|ogg|mp4)\), saved in this conversation as art-/);
    // The agent's turn ended once the request was on screen (the person could talk about anything else
    // meanwhile); the note came after, outside the turn.
    const log = (await page.getByRole("log").textContent()) ?? "";
    const asked = log.indexOf("I've asked for it in the Voice Notes app");
    expect(asked).toBeGreaterThanOrEqual(0);
    expect(log.indexOf("Got your voice note")).toBeGreaterThan(asked);
    // The note plays in the chat: the chat's own player over the device's bytes.
    const player = page.locator('[data-kind="artifact"] audio.artifact-audio').first();
    await expect.poll(() => player.evaluate((audio: HTMLAudioElement) => audio.readyState), { timeout: 15_000, message: "the note's player has its metadata" }).toBeGreaterThanOrEqual(1);
    expect(await player.getAttribute("src")).toMatch(/^blob:/);
    expect(await player.evaluate((audio: HTMLAudioElement) => audio.error)).toBeNull();
    await page.screenshot({ path: join(SCREENSHOTS, "voice-03-agent-heard.png") });
    expect(product.pageErrors).toEqual([]);
  }), 240_000);

  it("a recording discarded in LineUp's bar ends the agent's call cancelled_by_user", () => explained(page, product.consoleLines, product.world, async () => {
    await say(page, "record a voice note");
    await expect.poll(() => page.locator("#app-area").getAttribute("data-app"), { timeout: 60_000 }).toBe("voice");
    const request = voice().getByRole("region", { name: "The agent's request" });
    await request.waitFor({ timeout: 60_000 });
    await request.getByRole("button", { name: "Record" }).click();
    // The first answer was Allow: the Runtime remembers it and does not ask again.
    await bar().waitFor({ timeout: 30_000 });
    await bar().getByRole("button", { name: "Discard" }).click();
    await expect.poll(() => bar().count()).toBe(0);
    await tab("Chat").click();
    await expect.poll(() => page.getByRole("log").textContent(), { timeout: 60_000 }).toContain("you cancelled, so I left the voice recorder closed");
    await tab("Voice Notes").click();
    await expect.poll(() => voice().locator(".voice-note").count()).toBe(1);
    expect(product.pageErrors).toEqual([]);
  }), 180_000);

  it("a note the person records on their own reaches the agent as the app's declared event, and the agent says so", () => explained(page, product.consoleLines, product.world, async () => {
    await voice().getByRole("button", { name: "Record a note" }).click();
    await bar().waitFor({ timeout: 30_000 });
    await expect.poll(() => bar().getByRole("timer").textContent(), { timeout: 10_000 }).toMatch(/^0:0[1-9] \/ 1:00$/);
    await bar().getByRole("button", { name: "Stop" }).click();
    await expect.poll(() => voice().locator(".voice-note").count(), { timeout: 30_000 }).toBe(2);
    await tab("Chat").click();
    await expect.poll(() => page.getByRole("log").textContent(), { timeout: 60_000 }).toMatch(/I see you recorded a voice note of your own: \d+ seconds? \([\d.]+ KB, audio\/(webm|ogg|mp4)\), kept in this conversation as voice-note-\d{8}-\d{6}\.(webm|ogg|m4a|mp4)/);
    // It came as the app's event, not a turn: the person said nothing, and the agent's reply is the last row.
    const events = product.world.serverEvents(200).filter((line) => line.includes("lineup.app.event"));
    expect(events).toHaveLength(1);
    // The log keeps each envelope's keys in canonical (sorted) order.
    expect(events[0]).toContain('"sender":{"id":"voice","kind":"app"}');
    await page.screenshot({ path: join(SCREENSHOTS, "voice-04-own-note.png") });
    expect(product.pageErrors).toEqual([]);
  }), 180_000);
});

