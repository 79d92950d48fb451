/**
 * Opening and switching (issue 21) in real Chromium through the whole product — the Vite-built host, the real
 * AppServer and demo agent, the built-in apps installed from Apps as a person does — without asking the agent:
 *
 * - the launcher by keyboard only: Ctrl+K, a search, the arrows, Enter, Escape; the whiteboard opens in the
 *   conversation on screen;
 * - the pomodoro by mouse in a new conversation; the journal with Shift+Enter in a new one, where its
 *   "Summarize my week" runs (it asks the conversation's agent); every other shipped app too;
 * - Ctrl+K pressed inside an app's frame opens the launcher (the surface SDK forwards it), and a key press an app
 *   makes up while the focus is elsewhere does not;
 * - a deep link after a cold start opens its app in the conversation it names; one followed while running (a
 *   notification's click sets one) brings the app's live instance forward;
 * - a deep link to an app that is not installed, and a default app that was disabled, land in chat with a
 *   notice that says why.
 */
import { join } from "node:path";
import type { FrameLocator } from "playwright-core";
import { describe, expect, it } from "vitest";
import { explained, installBuiltinApp, productForFile, say, SCREENSHOTS } from "./support.js";

const the = productForFile();

const step = <T>(run: () => Promise<T>) => explained(the.page, the.product.consoleLines, the.product.world, run);
const launcher = () => the.page.getByRole("dialog", { name: "Open an app" });
const search = () => launcher().getByRole("combobox", { name: "Search apps" });
const chosen = () => launcher().locator('[role="option"][aria-selected="true"]').getAttribute("aria-label");
const shown = () => the.page.locator("#app-area").getAttribute("data-app");
/** The app's surface on screen (another instance of it may be mounted behind). */
const frame = (app: string): FrameLocator => the.page.frameLocator(`.instance-surface.placement-foreground[data-app="${app}"] iframe`);
const toasts = () => the.page.locator(".toasts .toast").allTextContents();
const selectedConversation = () => the.page.evaluate(() => localStorage.getItem("lineup.chat.selected"));

async function online(): Promise<void> {
  await expect.poll(() => the.page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 30_000, message: "online" }).toBe("online");
}

/** The launcher's rows for what is open now, as a screen reader names them. */
async function openNow(): Promise<string[]> {
  await the.page.keyboard.press("Control+k");
  await launcher().waitFor();
  const names = await launcher().getByRole("group", { name: "Open now" }).getByRole("option").evaluateAll((rows) => rows.map((r) => r.getAttribute("aria-label") ?? ""));
  await the.page.keyboard.press("Escape");
  await launcher().waitFor({ state: "hidden" });
  return names;
}

describe("opening and switching apps without the agent (Chromium, whole product)", () => {
  let helpConversation: string;

  it("installs the apps and starts a conversation, as a person would", () =>
    step(async () => {
      await the.page.goto(the.product.world.host.url);
      await online();
      await installBuiltinApp(the.page, "Whiteboard", "board.create");
      await installBuiltinApp(the.page, "Pomodoro", "pomodoro.start");
      await installBuiltinApp(the.page, "Journal", "Summarize my week");
      await the.page.getByRole("tab", { name: "Chat" }).click();
      await the.page.getByRole("button", { name: "New conversation with the demo agent" }).click();
      await say(the.page, "help");
      await expect.poll(selectedConversation, { timeout: 15_000 }).not.toBeNull();
      helpConversation = (await selectedConversation())!;
    }), 180_000);

  it("keyboard only: Ctrl+K, a search, arrows and Enter open the whiteboard in this conversation; Escape closes", () =>
    step(async () => {
      const composer = the.page.getByRole("textbox", { name: "Message" });
      await composer.focus();
      await the.page.keyboard.press("Control+k");
      await launcher().waitFor();
      // Focus is in the search box, the first row chosen; every installed app and the core apps are listed.
      expect(await search().evaluate((el) => el === document.activeElement)).toBe(true);
      const rows = await launcher().getByRole("option").evaluateAll((r) => r.map((row) => row.getAttribute("aria-label")));
      expect(rows).toEqual(["Journal", "Pomodoro", "Whiteboard", "Chat", "Apps", "Settings"]);
      expect(await chosen()).toBe("Journal");
      expect(await launcher().getByRole("radio", { name: /^This conversation:\s+help$/ }).isChecked()).toBe(true);
      await the.page.screenshot({ path: join(SCREENSHOTS, "launcher-1-all-apps.png") });
      // The arrows move the choice (and wrap); Escape closes and gives the focus back to the composer.
      await the.page.keyboard.press("ArrowDown");
      expect(await chosen()).toBe("Pomodoro");
      await the.page.keyboard.press("ArrowUp");
      await the.page.keyboard.press("ArrowUp");
      expect(await chosen()).toBe("Settings");
      await the.page.keyboard.press("Escape");
      await launcher().waitFor({ state: "hidden" });
      expect(await composer.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(await shown()).toBe("chat");
      // Escape and Ctrl+K pressed at once: the launcher closes and opens again, whatever order the dialog's own
      // close event arrives in.
      for (let i = 0; i < 5; i++) {
        await the.page.keyboard.press("Control+k");
        await launcher().waitFor();
        await the.page.keyboard.press("Escape");
        await the.page.keyboard.press("Control+k");
        await launcher().waitFor({ timeout: 5_000 });
        // The first closing's late close event neither closes this opening nor takes its focus.
        await the.page.waitForTimeout(100);
        expect(await launcher().isVisible()).toBe(true);
        expect(await search().evaluate((el) => el === document.activeElement)).toBe(true);
        await the.page.keyboard.press("Escape");
        await launcher().waitFor({ state: "hidden" });
      }
      expect(await composer.evaluate((el) => el === document.activeElement)).toBe(true);

      await the.page.keyboard.press("Control+k");
      await the.page.keyboard.type("draw");
      await expect.poll(chosen).toBe("Whiteboard");
      expect(await launcher().getByRole("option").count()).toBe(1);
      await the.page.screenshot({ path: join(SCREENSHOTS, "launcher-2-search.png") });
      await the.page.keyboard.press("Enter");
      await launcher().waitFor({ state: "hidden" });
      await expect.poll(shown, { timeout: 60_000 }).toBe("whiteboard");
      await frame("whiteboard").getByRole("toolbar", { name: "Drawing tools" }).waitFor({ timeout: 60_000 });
      // It serves the conversation that was on screen.
      expect(await openNow()).toEqual([]);
      await the.page.getByRole("tab", { name: "Chat" }).click();
      expect(await openNow()).toEqual(["Whiteboard, open now in help"]);
    }), 120_000);

  it("the pomodoro opens from the launcher by mouse, in a new conversation", () =>
    step(async () => {
      await the.page.getByRole("button", { name: "Open app" }).click();
      await launcher().getByRole("radio", { name: "A new conversation" }).check();
      await launcher().getByRole("option", { name: "Pomodoro" }).click();
      await expect.poll(shown, { timeout: 60_000 }).toBe("pomodoro");
      await expect.poll(() => frame("pomodoro").locator(".pomo-idle-title").textContent({ timeout: 1_000 }).catch(() => ""), { timeout: 60_000 }).toBe("No focus session yet");
      // The new conversation is named after the app, and Chat shows it next.
      await the.page.getByRole("tab", { name: "Chat" }).click();
      await expect.poll(() => the.page.locator(".conversation-item.active .conversation-title").textContent(), { timeout: 15_000 }).toBe("Pomodoro");
      expect(await selectedConversation()).not.toBe(helpConversation);
      // The apps open now come first, most recent first.
      expect(await openNow()).toEqual(["Pomodoro, open now in Pomodoro", "Whiteboard, open now in help"]);
    }), 120_000);

  it("the journal opens with Shift+Enter in a new conversation, where Summarize my week works", () =>
    step(async () => {
      await the.page.keyboard.press("Control+k");
      await the.page.keyboard.type("journal");
      await expect.poll(chosen).toBe("Journal");
      await the.page.keyboard.press("Shift+Enter");
      await expect.poll(shown, { timeout: 60_000 }).toBe("journal");
      const journal = frame("journal");
      await journal.getByRole("heading", { name: "Journal" }).waitFor({ timeout: 60_000 });
      const today = await the.page.evaluate(() => new Date().toISOString().slice(0, 10));
      const form = journal.getByRole("form", { name: "Write an entry" });
      await form.getByLabel("Day").fill(today);
      await form.getByLabel("Mood").fill("calm");
      await form.getByLabel("Title").fill("Opened from the launcher");
      await form.getByLabel("Entry").fill("No agent needed to open an app.");
      await form.getByRole("button", { name: "Keep entry" }).click();
      await expect.poll(() => journal.getByRole("status").textContent(), { timeout: 15_000 }).toBe(`Kept the entry of ${today}.`);
      await journal.getByRole("button", { name: "Summarize my week" }).click();
      const run = journal.locator(".run").first();
      await expect.poll(() => run.getAttribute("data-status"), { timeout: 60_000 }).toBe("waiting_for_user");
      expect(await run.locator(".summary").textContent()).toBe(`1 entry (${today}), 11 words. Moods: calm.`);
      await the.page.screenshot({ path: join(SCREENSHOTS, "launcher-3-journal-summary.png") });
      await run.getByRole("button", { name: "Keep it", exact: true }).click();
      await expect.poll(() => run.getAttribute("data-status"), { timeout: 30_000 }).toBe("completed");
    }), 150_000);

  it("Ctrl+K with the focus inside an app's frame opens the launcher; an app that is not focused cannot open it", () =>
    step(async () => {
      expect(await shown()).toBe("journal");
      const journal = frame("journal");
      const appFrame = (await the.page.locator('.instance-surface.placement-foreground[data-app="journal"] iframe').elementHandle())!.contentFrame();
      // The focus in the chat's bar: a key press the app makes up itself asks the host in vain.
      await the.page.getByRole("tab", { name: "Chat" }).focus();
      await (await appFrame)!.evaluate(() => window.dispatchEvent(new KeyboardEvent("keydown", { key: "k", ctrlKey: true, bubbles: true, cancelable: true })));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await launcher().isVisible()).toBe(false);
      // The person types in the app, then presses Ctrl+K there: the launcher opens over it, and Escape closes it.
      await journal.getByRole("form", { name: "Write an entry" }).getByLabel("Title").click();
      await the.page.keyboard.press("Control+k");
      await launcher().waitFor({ timeout: 15_000 });
      expect(await search().evaluate((el) => el === document.activeElement)).toBe(true);
      await the.page.keyboard.press("Escape");
      await launcher().waitFor({ state: "hidden" });
      expect(await shown()).toBe("journal");
    }), 60_000);

  it("every other shipped app opens from the launcher too, and says it is ready", () =>
    step(async () => {
      const others = [
        { name: "Draw and Guess", app: "draw-and-guess", tool: "game.start_round" },
        { name: "Voice Notes", app: "voice", tool: "voice.request_recording" },
        { name: "Task Dashboard", app: "task-dashboard", tool: "tasks.open" },
      ];
      for (const other of others) await installBuiltinApp(the.page, other.name, other.tool);
      for (const other of others) {
        await the.page.keyboard.press("Control+k");
        await the.page.keyboard.type(other.name);
        await expect.poll(chosen).toBe(other.name);
        await the.page.keyboard.press("Enter");
        await expect.poll(shown, { timeout: 60_000 }).toBe(other.app);
        const surface = the.page.locator(`.instance-surface.placement-foreground[data-app="${other.app}"]`);
        await expect.poll(() => surface.getAttribute("data-status"), { timeout: 60_000, message: `${other.name} ready` }).toBe("active");
      }
      await the.page.getByRole("tab", { name: "Chat" }).click();
    }), 240_000);

  it("a deep link after a cold start opens its app in the conversation it names", () =>
    step(async () => {
      // The whiteboard runs in "help" only; the link asks for it in the journal's conversation.
      const journalConversation = (await selectedConversation())!;
      expect(journalConversation).not.toBe(helpConversation);
      await the.page.goto("about:blank");
      await the.page.goto(`${the.product.world.host.url}#/open/whiteboard?conversation=${encodeURIComponent(journalConversation)}&entry=canvas`);
      await expect.poll(shown, { timeout: 60_000 }).toBe("whiteboard");
      await frame("whiteboard").getByRole("toolbar", { name: "Drawing tools" }).waitFor({ timeout: 60_000 });
      // Followed once: the address no longer holds it, so a reload restores rather than opens it again.
      expect(the.page.url()).not.toContain("#/open");
      await the.page.getByRole("tab", { name: "Chat" }).click();
      const open = await openNow();
      expect(open[0]).toBe("Whiteboard, open now in Journal");
      expect(open).toContain("Whiteboard, open now in help");
      await the.page.screenshot({ path: join(SCREENSHOTS, "launcher-4-open-now.png") });
      await the.page.keyboard.press("Control+k");
      await launcher().waitFor();
      await the.page.screenshot({ path: join(SCREENSHOTS, "launcher-5-recent-first.png") });
      await the.page.emulateMedia({ colorScheme: "dark" });
      await the.page.screenshot({ path: join(SCREENSHOTS, "launcher-5-recent-first-dark.png") });
      await the.page.emulateMedia({ colorScheme: "light" });
      await the.page.keyboard.press("Escape");
    }), 120_000);

  it("a link followed while running, as a notification's click sets one, brings the app's live instance forward", () =>
    step(async () => {
      expect(await shown()).toBe("chat");
      await the.page.evaluate(() => (location.hash = "#/open/pomodoro"));
      await expect.poll(shown, { timeout: 15_000 }).toBe("pomodoro");
      expect(the.page.url()).not.toContain("#/open");
      // Still the one instance it had: nothing new was launched. (Its frame may be mounting again just now, when
      // the instance had been suspended in the background.)
      await expect.poll(() => the.page.locator('.instance-surface[data-app="pomodoro"]').count(), { timeout: 15_000 }).toBe(1);
      await the.page.getByRole("tab", { name: "Chat" }).click();
    }), 60_000);

  it("a deep link to an app that is not installed lands in chat with a notice saying why", () =>
    step(async () => {
      await the.page.goto("about:blank");
      await the.page.goto(`${the.product.world.host.url}#/open/not-installed`);
      await online();
      await expect.poll(toasts, { timeout: 15_000 }).toContainEqual(expect.stringContaining("Could not open “not-installed”: it is not installed. Here is chat instead."));
      expect(await shown()).toBe("chat");
      // The instances restored from before stay behind, and the person stays in chat.
      await the.page.waitForTimeout(3_000);
      expect(await shown()).toBe("chat");
      await the.page.screenshot({ path: join(SCREENSHOTS, "launcher-6-unknown-link.png") });
    }), 90_000);

  it("a default app that was disabled is passed over before launch: chat, with a notice saying why", () =>
    step(async () => {
      await the.page.getByRole("tab", { name: "Apps" }).click();
      await the.page.getByRole("button", { name: "Make Journal the default app" }).click();
      await expect.poll(() => the.page.locator(".install-live, .operation-live, [role=status]").allTextContents().then((t) => t.join(" ")), { timeout: 15_000 }).toMatch(/Journal now opens when LineUp starts/);
      await the.page.getByRole("button", { name: "Disable Journal" }).click();
      await expect.poll(() => the.page.getByRole("button", { name: "Enable Journal" }).count(), { timeout: 15_000 }).toBe(1);
      // Nothing left to restore, so the default app would be next.
      for (;;) {
        const close = the.page.getByRole("button", { name: /^Close / }).first();
        if ((await close.count()) === 0) break;
        await close.click();
        await the.page.waitForTimeout(300);
      }
      await expect.poll(() => the.page.locator(".instance-surface").count(), { timeout: 30_000 }).toBe(0);
      await the.page.reload();
      await online();
      await expect.poll(toasts, { timeout: 15_000 }).toContainEqual(expect.stringContaining("Your default app Journal did not open: it is disabled (enable it in Apps). Here is chat instead."));
      expect(await shown()).toBe("chat");
      expect(await the.page.locator(".instance-surface").count()).toBe(0);
      expect(the.product.pageErrors).toEqual([]);
    }), 120_000);
});
