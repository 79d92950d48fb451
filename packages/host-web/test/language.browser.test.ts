/**
 * Language (issue 21) in real Chromium through the whole product, with the browser's language zh-CN: the
 * main screens — Apps with an install review, chat with the demo agent, the launcher, the Task Dashboard (an
 * app, told the locale by the Host Bridge snapshot), a notice with the Runtime's reason, Settings — speak Chinese, and a walk over every visible text node (and the names and hints a screen reader or a mouse
 * reads: aria-label, title, placeholder) finds no English left, apart from a short list of proper names.
 * Text the host does not write — code, keys and what an app or a person wrote (`translate="no"`) — is not
 * the host's to translate and is not read. Then English chosen in Settings turns the host English, also
 * after a reload (the Runtime keeps the choice), and "Follow the browser" brings Chinese back. Last, with the
 * AppServer gone, the Task Dashboard's own store refusal (an evidence export) reads in Chinese.
 */
import { join } from "node:path";
import type { Frame, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { explained, productForFile, SCREENSHOTS } from "./support.js";

const the = productForFile({ locale: "zh-CN" });
const step = <T>(run: () => Promise<T>) => explained(the.page, the.product.consoleLines, the.product.world, run);

/** Words that are the same in every language: the product's name, key names, units, a language's own name. */
const PROPER_NAMES = new Set(["LineUp", "AppServer", "Ctrl", "Esc", "Enter", "Shift", "English", "KB", "MB", "PNG", "UTC"]);

/**
 * What a person or a configuration wrote, which the host shows as given: the label `npm start` gives its
 * development key (a trusted publisher's label is the person's own words). Taken out before the check.
 */
const NOT_THE_HOSTS = ["Local dev key (npm start)"];

/** Every run of Latin letters a person can see or hear on the page outside code and untranslatable text, with where it is. */
function englishOnScreen(page: Page | Frame): Promise<string[]> {
  return page.evaluate(([allowed, data]) => {
    const found: string[] = [];
    const visible = (element: Element) => element.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
    const own = (element: Element) => element.closest("code, kbd, script, style, iframe") === null && (element as HTMLElement).translate !== false;
    const check = (given: string, where: Element, what: string) => {
      const text = data.reduce((rest, words) => rest.split(words).join(" "), given);
      for (const word of text.match(/[A-Za-z][A-Za-z'’-]*[A-Za-z]/g) ?? []) {
        if (!allowed.includes(word)) found.push(`${word} (${what} in <${where.tagName.toLowerCase()} class="${where.getAttribute("class") ?? ""}">: ${text.trim().slice(0, 80)})`);
      }
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (parent === null || !own(parent) || !visible(parent)) continue;
      check(node.textContent ?? "", parent, "text");
    }
    for (const element of document.body.querySelectorAll("[aria-label], [title], [placeholder]")) {
      if (!own(element) || !visible(element)) continue;
      for (const attribute of ["aria-label", "title", "placeholder"]) {
        const value = element.getAttribute(attribute);
        if (value !== null) check(value, element, attribute);
      }
    }
    return found;
  }, [[...PROPER_NAMES], NOT_THE_HOSTS] as const);
}

async function screen(name: string): Promise<void> {
  await the.page.screenshot({ path: join(SCREENSHOTS, `language-${name}.png`) });
  expect((await englishOnScreen(the.page)).join("\n"), `English left on the ${name} screen`).toBe("");
}

const tab = (name: string) => the.page.getByRole("tab", { name, exact: true });

describe("the host in Simplified Chinese (Chromium, browser language zh-CN)", () => {
  it("follows the browser's language: the page says zh-CN and the shell is Chinese", () =>
    step(async () => {
      await the.page.goto(the.product.world.host.url);
      expect(await the.page.evaluate(() => navigator.languages[0])).toBe("zh-CN");
      await expect.poll(() => the.page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 30_000 }).toBe("online");
      expect(await the.page.evaluate(() => document.documentElement.lang)).toBe("zh-CN");
      expect(await the.page.locator(".connection").textContent()).toBe("在线");
      await tab("聊天").waitFor();
    }), 120_000);

  it("Apps and an install review: the app's Chinese name and description, the review in Chinese", () =>
    step(async () => {
      await tab("应用").click();
      await the.page.getByRole("heading", { name: "安装应用" }).waitFor();
      await the.page.getByRole("button", { name: "安装白板…" }).click();
      const review = the.page.getByRole("region", { name: "安装前查看" });
      await review.waitFor({ timeout: 30_000 });
      expect(await review.getByRole("heading", { level: 3 }).textContent()).toMatch(/^白板 版本 \d+\.\d+\.\d+$/);
      expect(await review.locator(".projection-description").textContent()).toMatch(/^你和智能体一起画画的白板/);
      expect(await review.textContent()).toContain("智能体可以让它做什么");
      await screen("install-review");
      await review.getByRole("button", { name: "安装并启用" }).click();
      await expect.poll(() => the.page.locator(".install-live").textContent(), { timeout: 30_000 }).toMatch(/^已安装白板 \S+并启用。$/);
      await the.page.locator(".app-card[data-app='whiteboard']").waitFor();
      await screen("apps");
    }), 120_000);

  it("chat: a conversation with the demo agent, which answers in Chinese", () =>
    step(async () => {
      await tab("聊天").click();
      await screen("chat-welcome");
      await the.page.getByRole("button", { name: "与演示智能体开始新对话" }).click();
      const box = the.page.getByRole("textbox", { name: "消息" });
      await box.fill("你好");
      await box.press("Enter");
      await expect.poll(() => the.page.getByRole("log").textContent(), { timeout: 30_000 }).toMatch(/你好！.*LineUp 演示智能体/s);
      await expect.poll(() => the.page.locator(".status-line").getAttribute("data-status"), { timeout: 30_000 }).toBe("idle");
      await screen("chat");
    }), 120_000);

  it("the launcher lists the apps by their Chinese names", () =>
    step(async () => {
      await the.page.keyboard.press("Control+k");
      const launcher = the.page.getByRole("dialog", { name: "打开应用" });
      await launcher.waitFor();
      const rows = await launcher.getByRole("option").evaluateAll((r) => r.map((row) => row.getAttribute("aria-label")));
      expect(rows).toEqual(["白板", "聊天", "应用", "设置"]);
      await screen("launcher");
      // A search in Chinese finds the app.
      await the.page.keyboard.type("白");
      await expect.poll(() => launcher.getByRole("option").count()).toBe(1);
      await the.page.keyboard.press("Escape");
      await launcher.waitFor({ state: "hidden" });
    }), 60_000);

  it("the Task Dashboard, installed and opened from the launcher, speaks Chinese; so does a notice with the Runtime's reason", () =>
    step(async () => {
      await tab("应用").click();
      await the.page.getByRole("button", { name: "安装任务面板…" }).click();
      const review = the.page.getByRole("region", { name: "安装前查看" });
      await review.waitFor({ timeout: 30_000 });
      await review.getByRole("button", { name: "安装并启用" }).click();
      await expect.poll(() => the.page.locator(".install-live").textContent(), { timeout: 30_000 }).toMatch(/^已安装任务面板/);
      await tab("聊天").click();
      await the.page.keyboard.press("Control+k");
      const launcher = the.page.getByRole("dialog", { name: "打开应用" });
      await launcher.waitFor();
      await the.page.keyboard.type("任务");
      await expect.poll(() => launcher.getByRole("option").count()).toBe(1);
      await the.page.keyboard.press("Enter");
      await expect.poll(() => the.page.locator("#app-area").getAttribute("data-app"), { timeout: 60_000 }).toBe("task-dashboard");
      const surface = the.page.locator('.instance-surface.placement-foreground[data-app="task-dashboard"] iframe');
      const dashboard = the.page.frameLocator('.instance-surface.placement-foreground[data-app="task-dashboard"] iframe');
      await dashboard.getByRole("heading", { name: "任务面板", level: 1 }).waitFor({ timeout: 60_000 });
      await expect.poll(() => dashboard.locator(".td-list .td-hint").textContent(), { timeout: 30_000 }).toBe("还没有任务。用其中一个表单请智能体做事。");
      const frame = (await (await surface.elementHandle())!.contentFrame())!;
      expect(await frame.evaluate(() => document.querySelector(".td-app")?.getAttribute("lang"))).toBe("zh-CN");
      expect((await englishOnScreen(frame)).join("\n"), "English left on the Task Dashboard").toBe("");
      await the.page.screenshot({ path: join(SCREENSHOTS, "language-task-dashboard.png") });

      // A link to a page the whiteboard does not have: the Runtime's reason, in Chinese.
      await the.page.evaluate(() => (location.hash = "#/open/whiteboard?entry=lobby"));
      const notice = the.page.locator(".toasts .toast").last();
      await expect.poll(() => notice.textContent(), { timeout: 15_000 }).toContain("无法打开白板：它没有这个可打开的页面。");
      await screen("notice");
    }), 180_000);

  it("Settings: in Chinese; English chosen there turns the host English, also after a reload; following the browser brings Chinese back", () =>
    step(async () => {
      await tab("设置").click();
      const language = the.page.getByRole("combobox", { name: "语言" });
      await language.waitFor();
      expect(await language.locator("option:checked").textContent()).toBe("跟随浏览器（简体中文）");
      await screen("settings");

      await language.selectOption("en");
      await tab("Settings").waitFor({ timeout: 15_000 });
      expect(await the.page.evaluate(() => document.documentElement.lang)).toBe("en");
      expect(await the.page.getByRole("combobox", { name: "Language" }).locator("option:checked").textContent()).toBe("English");
      await the.page.screenshot({ path: join(SCREENSHOTS, "language-settings-english.png") });

      await the.page.reload();
      await tab("Chat").waitFor({ timeout: 30_000 });
      expect(await the.page.evaluate(() => document.documentElement.lang)).toBe("en");
      await tab("Apps").click();
      await the.page.getByRole("heading", { name: "Install an app" }).waitFor();
      // The app's own name in English now.
      expect(await the.page.locator(".app-card[data-app='whiteboard'] .app-name").textContent()).toBe("Whiteboard");

      await tab("Settings").click();
      await the.page.getByRole("combobox", { name: "Language" }).selectOption("");
      await tab("设置").waitFor({ timeout: 15_000 });
      expect(await the.page.evaluate(() => document.documentElement.lang)).toBe("zh-CN");
      await screen("settings-again");
    }), 120_000);

  it("refusals in Settings and in Apps read in Chinese, worded by their codes", () =>
    step(async () => {
      // Settings: a publisher key that is not one.
      const form = the.page.getByRole("form", { name: "添加受信任的发布者" });
      await form.locator("textarea").fill("not a key");
      await form.getByRole("button").last().click();
      const refusal = the.page.locator("#publisher-error");
      await expect.poll(() => refusal.textContent(), { timeout: 10_000 }).toMatch(/^未添加：/);
      await screen("settings-refusal");

      // Apps: a file that is not a bundle.
      await tab("应用").click();
      await the.page.locator(".install-panel input[type=file], input.file-input").first().setInputFiles({ name: "broken.lineup", mimeType: "application/octet-stream", buffer: Buffer.from("not a bundle") });
      const failed = the.page.locator(".operation-failed").first();
      await failed.waitFor({ timeout: 30_000 });
      expect(await failed.locator(".failure-head").textContent()).toMatch(/^已拒绝。|^停在：/);
      // Worded by its code (bundle_not_archive): what is wrong with the file, not a bare refusal.
      expect(await failed.getAttribute("data-code")).toBe("bundle_not_archive");
      expect(await failed.locator(".failure-head").textContent()).toContain("这个文件不是应用包");
      await screen("apps-refusal");
    }), 120_000);

  it("with the AppServer gone, the Task Dashboard's own refusal reads in Chinese", () =>
    step(async () => {
      await tab("任务面板").click();
      const dashboard = the.page.frameLocator('.instance-surface.placement-foreground[data-app="task-dashboard"] iframe');
      await dashboard.getByRole("textbox", { name: "笔记" }).fill("给水管工打电话\n起草预算");
      await dashboard.getByRole("button", { name: "规划这一周" }).click();
      const plan = dashboard.locator('.td-task[data-entry="plan_week"]');
      await expect.poll(() => plan.locator(".td-badge").textContent(), { timeout: 60_000 }).toBe("完成");
      // Online, the evidence is exported.
      await plan.getByRole("button", { name: "导出证据", exact: true }).click();
      await expect.poll(() => plan.locator(".td-digest code").textContent().catch(() => ""), { timeout: 30_000 }).toMatch(/^[0-9a-f]{64}$/);
      // The pack's file name (the AppServer names it, the card's tooltip) is not the app's to translate: the only Latin text allowed below.
      const packName = (await plan.locator(".td-digest").getAttribute("title")) ?? "";
      expect(packName).not.toBe("");
      const englishBesidesPack = async (page: Page | Frame) => (await englishOnScreen(page)).filter((found) => !packName.includes(found.split(" ")[0]!)).join("\n");

      await the.product.world.server.close();
      await expect.poll(() => the.page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 30_000 }).not.toBe("online");
      // The dashboard's own store refusal (an export while offline), worded by its code in the app's language.
      await plan.getByRole("button", { name: "导出证据", exact: true }).click();
      await expect.poll(() => plan.locator(".td-problem").textContent().catch(() => ""), { timeout: 30_000 }).toBe("无法导出证据：连接已中断");
      const surface = the.page.locator('.instance-surface.placement-foreground[data-app="task-dashboard"] iframe');
      const frame = (await (await surface.elementHandle())!.contentFrame())!;
      expect(await englishBesidesPack(frame), "English left on the Task Dashboard").toBe("");
      await the.page.screenshot({ path: join(SCREENSHOTS, "language-task-dashboard-offline.png") });
    }), 180_000);
});

