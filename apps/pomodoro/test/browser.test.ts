/**
 * The built pomodoro in real Chromium, sandboxed as the host runs it: the agent's `pomodoro.start`
 * becomes a Runtime-owned timed operation (`{ duration_ms }`), the screen counts down from session
 * data, Stop asks the host to interrupt the operation and then shows the stop, and a reload shows the
 * same. Needs Debian's Chromium (`npm test` installs it; LINEUP_CHROMIUM overrides the path).
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBuiltApp, type BuiltAppPage } from "../../../test/support/built-app-page.js";
import { testSnapshot, TOOL_APP_FEATURES } from "../../../test/support/bridge-snapshot.js";
import { checkToolArguments } from "../../../test/support/tool-arguments.js";
import { tools } from "../src/tools.js";

const OUTPUT = join(import.meta.dirname, "..", "..", "..", "test-output", "pomodoro");

const snapshot = testSnapshot({ app_scope: "pomodoro", instance_id: "pomo-browser-1", entrypoint: "timer", sdk: { api_version: "1", features: TOOL_APP_FEATURES } });

type Host = { session(): { data: { session?: { title: string; ends_at: number; stopped_at?: number } } | null; revision: number }; requests(m: string): { params: Record<string, unknown> }[]; reload(): void; invokeOnReady(params: object): void; eventOnReady(name: string, data: object): void };

describe("pomodoro in a sandboxed iframe (Chromium)", () => {
  let app: BuiltAppPage;
  let page: Page;
  let errors: string[];

  const host = <T>(fn: (h: Host) => T): Promise<T> => app.host(fn);
  const invoke = (params: object) => app.invoke(params);
  const frame = () => app.frame();
  const ready = (count: number) => app.ready(count);

  beforeAll(async () => {
    app = await openBuiltApp(join(import.meta.dirname, ".."), snapshot);
    ({ page, errors } = app);
    await mkdir(OUTPUT, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it("waits for the agent: no session yet, with a hint, and no errors", async () => {
    await expect.poll(() => frame().getByText("No focus session yet").isVisible()).toBe(true);
    expect(await host((h) => h.requests("session_data.subscribe").length)).toBe(1);
    expect(errors).toEqual([]);
  });

  it("speaks the language LineUp tells it, and follows a change of it", async () => {
    await app.event("locale.changed", { locale: "zh-CN", timezone: "UTC" });
    await expect.poll(() => frame().locator(".pomo-idle-title").textContent()).toBe("还没有专注时段");
    expect(await frame().locator(".pomo-hint").textContent()).toMatch(/^在聊天中请智能体开始/);
    await app.event("locale.changed", { locale: "en", timezone: "UTC" });
    await expect.poll(() => frame().locator(".pomo-idle-title").textContent()).toBe("No focus session yet");
  });

  it("pomodoro.start hands the call to LineUp as a timed operation and shows the countdown from session data", async () => {
    expect(await invoke({ call_id: "p1", method: "pomodoro.start", arguments: { minutes: 25, title: "Write the report" } })).toEqual({ outcome: "completed", result: { duration_ms: 1_500_000 } });
    await expect.poll(() => frame().locator(".pomo-title").textContent()).toBe("Write the report");
    const clock = await frame().locator(".pomo-clock").textContent();
    expect(clock === "25:00" || clock === "24:59").toBe(true);
    await expect.poll(() => host((h) => h.session().data?.session?.title)).toBe("Write the report");
    expect(await frame().getByRole("timer").getAttribute("aria-label")).toMatch(/^2[45]:[0-9]{2} left$/);
    // When it ends, on the person's clock: 25 minutes from now.
    const endsAt = new Date(Date.now() + 25 * 60_000).toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit" });
    const endsBefore = new Date(Date.now() + 25 * 60_000 - 60_000).toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit" });
    expect([`Ends at ${endsAt}`, `Ends at ${endsBefore}`]).toContain(await frame().locator(".pomo-status").textContent());
    await page.screenshot({ path: join(OUTPUT, "running.png") });
    // The app never reports a result for a timed operation: LineUp does.
    expect(await host((h) => [...h.requests("tool.complete"), ...h.requests("tool.fail")].length)).toBe(0);
    // Arguments outside the schema never reach the page: the Runtime refuses them.
    expect(checkToolArguments(tools, "pomodoro.start", { minutes: 0 })).toMatchObject({ ok: false, error: { code: "invalid_arguments" } });
  });

  it("Stop asks the host to interrupt the operation, then shows the time that was left; a reload shows the same", async () => {
    await frame().getByRole("button", { name: "Stop" }).click();
    await expect.poll(() => host((h) => h.requests("operation.interrupt").map((r) => r.params))).toEqual([{ reason: "stopped by the user in the app" }]);
    await expect.poll(() => frame().locator(".pomo-status").textContent()).toMatch(/^Stopped with 2[45]:[0-9]{2} left$/);
    await expect.poll(() => host((h) => typeof h.session().data?.session?.stopped_at)).toBe("number");
    expect(await frame().getByRole("button", { name: "Stop" }).count()).toBe(0);
    await page.screenshot({ path: join(OUTPUT, "stopped.png") });

    await host((h) => h.reload());
    await ready(1);
    await expect.poll(() => frame().locator(".pomo-status").textContent()).toMatch(/^Stopped with 2[45]:[0-9]{2} left$/);
    expect(await frame().locator(".pomo-title").textContent()).toBe("Write the report");
    expect(errors).toEqual([]);
  });

  it("the agent's pomodoro.interrupt stops a running session as Stop does, with the agent's reason; with none running it says so", async () => {
    expect(await invoke({ call_id: "p4", method: "pomodoro.start", arguments: { minutes: 5, title: "Inbox" } })).toEqual({ outcome: "completed", result: { duration_ms: 300_000 } });
    await expect.poll(() => frame().locator(".pomo-title").textContent()).toBe("Inbox");
    const before = await host((h) => h.requests("operation.interrupt").length);
    expect(await invoke({ call_id: "i1", method: "pomodoro.interrupt", arguments: { reason: "the meeting started" } })).toEqual({ outcome: "completed", result: { interrupted: true } });
    // (The host function runs in the page: it reads all requests, the new ones are cut here.)
    expect((await host((h) => h.requests("operation.interrupt").map((r) => r.params))).slice(before)).toEqual([{ reason: "the meeting started" }]);
    await expect.poll(() => frame().locator(".pomo-status").textContent()).toMatch(/^Stopped with 0[45]:[0-9]{2} left$/);
    expect(await invoke({ call_id: "i2", method: "pomodoro.interrupt", arguments: {} })).toEqual({ outcome: "completed", result: { interrupted: false } });
    expect(await host((h) => h.requests("operation.interrupt").length)).toBe(before + 1);
    expect(errors).toEqual([]);
  });

  it("shows a session the agent started the moment the app said it was ready (a call that waited for it to start)", async () => {
    await host((h) => {
      h.invokeOnReady({ call_id: "p3", method: "pomodoro.start", arguments: { minutes: 10, title: "Straight away" } });
      h.reload();
    });
    await ready(1);
    await expect.poll(() => host((h) => h.session().data?.session?.title)).toBe("Straight away");
    await expect.poll(() => frame().locator(".pomo-title").textContent(), { timeout: 5_000 }).toBe("Straight away");
    expect(await frame().locator(".pomo-clock").textContent()).toMatch(/^(10:00|9:5[0-9])$/);
    expect(errors).toEqual([]);
  });

  it("follows a display mode change the host sent the moment the app said it was ready", async () => {
    await host((h) => {
      h.eventOnReady("display_mode.changed", { display_mode: "pip" });
      h.reload();
    });
    await ready(1);
    // Picture-in-picture shows the clock alone: no title, no Stop button.
    await expect.poll(() => frame().locator("main.pomo-pip").count(), { timeout: 5_000 }).toBe(1);
    expect(await frame().locator(".pomo-title").count()).toBe(0);
    await app.event("display_mode.changed", { display_mode: "foreground" });
    await expect.poll(() => frame().locator(".pomo-title").textContent()).toBe("Straight away");
    expect(errors).toEqual([]);
  });
});
