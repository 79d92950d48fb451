/**
 * The App Registry and Settings apps in real Chromium, under the host's CSP (no inline script, no
 * eval), over in-memory fakes of `RuntimeAppManager` and `RuntimeSettings` that run the Runtime's own
 * bundle verifier and App Manager decisions (test/fakes/). Real signed bundles are made here with
 * the Runtime's packer and a fresh publisher key, and picked through the file input as a user would:
 * a file that is not a bundle and a bundle from an untrusted publisher stop at "verify" with their
 * codes; the publisher is trusted by pasting its key in Settings; the install shows what the app adds
 * and installs only after approval; disable/enable (chat refuses); an update that asks for a new
 * capability waits with its diff; rollback needs a reason; remove asks first; grants change.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { generatePublisherKey, packBundle, signBundle, type PublisherKey } from "@lineup/runtime";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriousAxeViolations } from "../../../test/support/axe.js";
import { launchChromium } from "../../../test/support/chromium.js";
import { serveHarnessPage, type HarnessPage } from "./harness-page.js";

const HOST_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";
const OUTPUT = resolve(import.meta.dirname, "..", "..", "..", "test-output");

const text = (s: string) => new TextEncoder().encode(s);

function whiteboardManifest(version: string, withClipboard: boolean): Record<string, unknown> {
  return {
    format: "lineup.app.v1",
    app_scope: "whiteboard",
    version,
    name: "Whiteboard",
    description: "A whiteboard you and the agent draw on together: pen, shapes, text, undo.",
    runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", "capability.request.v1"] },
    entrypoints: [{ id: "canvas", kind: "primary", path: "index.html", title: "Whiteboard", default_eligible: true }],
    tools: [
      {
        method: "board.add_shapes",
        contract_version: "1",
        title: "Draw shapes on the board",
        input_schema: { type: "object" },
        output_schema: { type: "object" },
        call_model: "command",
        capabilities: [],
      },
      { method: "board.summary", contract_version: "1", title: "Read the board back", input_schema: { type: "object" }, output_schema: { type: "object" }, call_model: "query" },
      ...(withClipboard
        ? [{ method: "board.copy_link", contract_version: "1", title: "Copy a link to the board", input_schema: { type: "object" }, output_schema: { type: "object" }, call_model: "command", capabilities: ["clipboard.write"] }]
        : []),
    ],
    capabilities: [{ name: "file.save", purpose: "Save the board as a PNG where you choose." }, ...(withClipboard ? [{ name: "clipboard.write", purpose: "Copy the board's link for you to share." }] : [])],
    agent_subscriptions: [{ type: "lineup.tool.invoke", scope: "conversation" }],
    storage: { session_data_quota_bytes: 262144 },
  };
}

async function signed(manifest: Record<string, unknown>, key: PublisherKey): Promise<Buffer> {
  const packed = await packBundle({ manifest, files: new Map([["index.html", text("<!doctype html><title>Whiteboard</title>\n")]]) });
  if (!packed.ok) throw new Error(`pack: ${packed.error.code} ${packed.error.message}`);
  const bundle = await signBundle(packed.value, key.privateKey);
  if (!bundle.ok) throw new Error(`sign: ${bundle.error.code} ${bundle.error.message}`);
  return Buffer.from(bundle.value);
}

let harness: HarnessPage | undefined;
let browser: Browser;
let page: Page;
let publisher: PublisherKey;
let v1: Buffer;
let v11: Buffer;
let untrusted: Buffer;
const errors: string[] = [];
const cspViolations: string[] = [];

type Fakes = { manager: { calls: string[]; listApps(): { app_scope: string; enabled: boolean }[]; launch(r: { app_scope: string }): Promise<unknown>; disable(scope: string): Promise<{ error?: { code: string } }> }; settings: { calls: string[] } };
const fakes = <T>(fn: (f: Fakes) => T | Promise<T>): Promise<T> =>
  page.evaluate(`(${fn.toString()})(window.__registry)`) as Promise<T>;
const managerCalls = () => fakes((f) => f.manager.calls);
const installedScopes = () => fakes((f) => f.manager.listApps().map((a) => a.app_scope));

const card = (name: string) => page.locator(".app-card", { has: page.locator(".app-name", { hasText: new RegExp(`^${name}$`) }) });
const pick = (label: string, file: { name: string; bytes: Buffer; mimeType?: string }) =>
  page.getByLabel(label, { exact: true }).setInputFiles({ name: file.name, mimeType: file.mimeType ?? "application/zip", buffer: file.bytes });
const view = async (name: "registry" | "settings") => {
  await page.evaluate((hash) => (location.hash = hash), `#${name}`);
  await page.locator(`main[data-app="${name}"]`).waitFor();
};

/** Grows the viewport to the page's content so the screenshot shows all of it, then restores it. */
async function shot(name: string): Promise<void> {
  const height = await page.evaluate(() => Math.ceil((document.querySelector(".page")?.scrollHeight ?? 800) + (document.querySelector(".shell-bar")?.getBoundingClientRect().height ?? 0)));
  await page.setViewportSize({ width: 1000, height: Math.max(700, Math.min(height + 8, 4000)) });
  await page.screenshot({ path: join(OUTPUT, `${name}.png`) });
  await page.setViewportSize({ width: 1000, height: 800 });
}

beforeAll(async () => {
  publisher = await generatePublisherKey();
  const stranger = await generatePublisherKey();
  [v1, v11, untrusted] = await Promise.all([signed(whiteboardManifest("1.0.0", false), publisher), signed(whiteboardManifest("1.1.0", true), publisher), signed(whiteboardManifest("1.0.0", false), stranger)]);
  harness = await serveHarnessPage({ entry: resolve(import.meta.dirname, "fakes/registry-harness.entry.tsx"), csp: HOST_CSP, title: "Registry test", body: '<div id="app"></div>' });
  mkdirSync(OUTPUT, { recursive: true });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) cspViolations.push(m.text());
  });
  await page.goto(`${harness.origin}/#registry`);
  await page.getByRole("heading", { name: "Apps", level: 1 }).waitFor();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

describe("App Registry and Settings (Chromium, host CSP, fake Runtime)", () => {
  it("lists the core apps: chat is the default, none can be removed or updated", async () => {
    for (const name of ["Chat", "Apps", "Settings"]) {
      await expect.poll(() => card(name).count()).toBe(1);
      expect(await card(name).getByRole("button", { name: /^Remove/ }).count()).toBe(0);
      expect(await card(name).getByLabel(/^Update .* from file/).count()).toBe(0);
      // Only chat (already the default) could be the default among the core apps.
      expect(await card(name).getByRole("button", { name: /the default app$/ }).count()).toBe(0);
      expect(await card(name).locator(".state").textContent()).toBe("Enabled");
      expect(await card(name).textContent()).toContain("Built in");
    }
    expect(await card("Chat").locator(".badge").textContent()).toBe("default");
  });

  it("keyboard: Tab reaches the install picker, and its button shows the focus", async () => {
    await page.locator("body").focus();
    let reached = false;
    for (let i = 0; i < 6 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type === "file");
    }
    expect(reached).toBe(true);
    const outline = await page.locator(".install .file-button").evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(outline).toBe("solid");
  });

  it("a file that is not a bundle stops at verify with its code, and nothing is installed", async () => {
    await pick("Install from file…", { name: "notes.txt", bytes: Buffer.from("just some text"), mimeType: "text/plain" });
    const failure = page.locator(".install .operation-failed");
    await failure.waitFor();
    expect(await failure.getAttribute("data-code")).toBe("bundle_not_archive");
    expect(await failure.locator(".failure-head").textContent()).toContain("Stopped at: Check the bundle and its signature.");
    expect(await failure.locator('.step[data-step="verify"]').getAttribute("data-status")).toBe("failed");
    expect(await failure.locator('.step[data-step="projection"]').getAttribute("data-status")).toBe("not_reached");
    expect(await page.locator(".install").textContent()).toContain("notes.txt was not installed");
    expect(await installedScopes()).toEqual(["app-registry", "chat", "settings"]);
    await shot("registry-install-refused");
  });

  it("a bundle signed by an untrusted publisher is refused with bundle_untrusted_key", async () => {
    await pick("Install from file…", { name: "whiteboard-stranger.lineup", bytes: untrusted });
    await expect.poll(() => page.locator(".install .operation-failed").getAttribute("data-code")).toBe("bundle_untrusted_key");
    expect(await page.locator(".install .operation-failed").textContent()).toContain("not one of the publisher keys this Runtime trusts");
    expect(await managerCalls()).not.toContain("install:true");
  });

  it("Settings: a pasted key that is not JSON is refused with its code; a real one is trusted and listed", async () => {
    await view("settings");
    const keyBox = page.getByLabel("Publisher key (paste publisher.pub.json)");
    await keyBox.fill("{ key_id: nope");
    await page.getByRole("button", { name: "Trust this publisher" }).click();
    await expect.poll(() => page.locator("#publisher-error").getAttribute("data-code")).toBe("json_malformed");
    await keyBox.fill(JSON.stringify({ key_id: "ab".repeat(32), public_key: publisher.trustedKey.public_key }));
    await page.getByRole("button", { name: "Trust this publisher" }).click();
    // The shape is fine, but the key id is not the key's SHA-256: the Runtime refuses it.
    await expect.poll(() => page.locator("#publisher-error").getAttribute("data-code")).toBe("bundle_untrusted_key");
    expect(await page.locator("#publisher-error").textContent()).toContain("the key id is not the SHA-256 of the public key");
    await keyBox.fill(JSON.stringify(publisher.trustedKey, null, 2));
    await page.getByLabel("Label (optional)").fill("Example Apps Ltd");
    await page.getByRole("button", { name: "Trust this publisher" }).click();
    const row = page.locator(`.settings-row[data-key-id="${publisher.keyId}"]`);
    await row.waitFor();
    expect(await row.locator("strong").textContent()).toBe("Example Apps Ltd");
    expect(await row.locator("code").textContent()).toBe(`${publisher.keyId.slice(0, 8)}…${publisher.keyId.slice(-4)}`);
    expect(await page.locator("#publisher-error").count()).toBe(0);
    expect(await keyBox.inputValue()).toBe("");
  });

  it("install shows what the app adds first, installs nothing on Cancel, and installs only after approval", async () => {
    await view("registry");
    await pick("Install from file…", { name: "whiteboard-1.0.0.lineup", bytes: v1 });
    const review = page.getByRole("region", { name: "Review before installing" });
    await review.waitFor();
    // Keyboard users land on the projection.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("install-review-title");
    expect(await review.getByRole("heading", { level: 3 }).textContent()).toBe("Whiteboard version 1.0.0");
    expect(await seriousAxeViolations(page), "install review").toEqual([]);
    expect(await review.textContent()).toContain("A whiteboard you and the agent draw on together");
    expect(await review.locator(".projection-head .risk").getAttribute("data-risk")).toBe("medium");
    const tool = review.locator('[data-tool="board.add_shapes"]');
    expect(await tool.textContent()).toContain("Draw shapes on the board");
    expect(await tool.textContent()).toContain("makes a change (command)");
    expect(await review.locator('[data-tool="board.summary"]').textContent()).toContain("reads only (query)");
    const capability = review.locator('[data-capability="file.save"]');
    expect(await capability.textContent()).toContain("Save the board as a PNG where you choose.");
    expect(await capability.textContent()).toContain("Let the user save data the app provides");
    expect(await capability.locator(".risk").getAttribute("data-risk")).toBe("medium");
    expect(await review.textContent()).toContain("lineup.tool.invoke");
    expect(await review.textContent()).toContain("Up to 256 KB of session data.");
    // Shown, not installed.
    expect(await installedScopes()).toEqual(["app-registry", "chat", "settings"]);
    expect((await managerCalls()).filter((c) => c.startsWith("install"))).toEqual([]);
    await shot("registry-install-projection");

    await review.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => review.count()).toBe(0);
    expect(await installedScopes()).toEqual(["app-registry", "chat", "settings"]);

    await pick("Install from file…", { name: "whiteboard-1.0.0.lineup", bytes: v1 });
    await review.getByRole("button", { name: "Install & enable" }).click();
    await expect.poll(() => page.locator(".install .operation-ok").textContent()).toBe("Installed Whiteboard 1.0.0 and turned it on.");
    expect((await managerCalls()).filter((c) => c.startsWith("install"))).toEqual(["install:true"]);
    await card("Whiteboard").waitFor();
    expect(await card("Whiteboard").locator(".state").textContent()).toBe("Enabled");
    expect(await card("Whiteboard").locator(".app-meta").textContent()).toContain("version 1.0.0 · Installed · not running");
    // A core app is part of the shell: no running count (it would say "not running" while on screen).
    expect(await card("Apps").locator(".app-meta").textContent()).toBe("app-registry · version 1.0.0 · Built in");
    expect(await installedScopes()).toContain("whiteboard");
  });

  it("disables and enables an app; chat cannot be disabled and says why", async () => {
    await fakes((f) => f.manager.launch({ app_scope: "whiteboard" }));
    await expect.poll(() => card("Whiteboard").locator(".app-meta").textContent()).toContain("1 running");
    await card("Whiteboard").getByRole("button", { name: "Disable Whiteboard" }).click();
    await expect.poll(() => card("Whiteboard").locator(".state").textContent()).toBe("Disabled");
    // Disabling closed its instance.
    expect(await card("Whiteboard").locator(".app-meta").textContent()).toContain("not running");
    expect(await card("Whiteboard").locator(".operation-ok").textContent()).toBe("Whiteboard is turned off.");
    await card("Whiteboard").getByRole("button", { name: "Enable Whiteboard" }).click();
    await expect.poll(() => card("Whiteboard").locator(".state").textContent()).toBe("Enabled");

    // Core apps are always on: no Disable is offered, and the manager refuses one asked anyway.
    for (const name of ["Chat", "Apps", "Settings"]) {
      expect(await card(name).locator(".state").textContent()).toBe("Enabled");
      expect(await card(name).getByRole("button", { name: `Disable ${name}` }).count()).toBe(0);
    }
    expect(await fakes(async (f) => (await f.manager.disable("settings")).error?.code)).toBe("app_protected");
    await expect.poll(() => page.locator('.activity-list > li[data-kind="disable"][data-status="failed"]').count()).toBe(1);
    expect(await card("Settings").locator(".state").textContent()).toBe("Enabled");
  });

  it("makes an installed app the default, and chat again", async () => {
    await card("Whiteboard").getByRole("button", { name: "Make Whiteboard the default app" }).click();
    await expect.poll(() => card("Whiteboard").locator(".badge").textContent()).toBe("default");
    expect(await card("Chat").locator(".badge").count()).toBe(0);
    await card("Chat").getByRole("button", { name: "Make Chat the default app" }).click();
    await expect.poll(() => card("Chat").locator(".badge").textContent()).toBe("default");
    expect(await card("Whiteboard").locator(".badge").count()).toBe(0);
  });

  it("an update that asks for a new capability waits with the diff; Keep current keeps it, Approve applies it; rollback needs a reason", async () => {
    const pending = card("Whiteboard").getByRole("region", { name: /waiting for approval/ });
    await pick("Update Whiteboard from file…", { name: "whiteboard-1.1.0.lineup", bytes: v11 });
    await pending.waitFor();
    expect(await card("Whiteboard").locator(".badge").textContent()).toBe("update waiting");
    await pending.getByRole("button", { name: "Keep current (1.0.0)" }).click();
    await expect.poll(() => pending.count()).toBe(0);
    expect(await card("Whiteboard").locator(".operation-ok").textContent()).toBe("Kept Whiteboard 1.0.0; the update was discarded.");
    expect(await card("Whiteboard").locator(".app-meta").textContent()).toContain("version 1.0.0");

    await pick("Update Whiteboard from file…", { name: "whiteboard-1.1.0.lineup", bytes: v11 });
    await pending.waitFor();
    await shot("registry-update-pending");
    // The new capability is listed first.
    const firstSection = pending.locator(".diff > section").first();
    expect(await firstSection.getAttribute("aria-label")).toBe("New capabilities");
    expect(await firstSection.locator("[data-capability]").getAttribute("data-capability")).toBe("clipboard.write");
    expect(await pending.textContent()).toContain("Copy a link to the board");
    expect(await card("Whiteboard").locator(".app-meta").textContent()).toContain("version 1.0.0");
    await pending.getByRole("button", { name: "Approve update to 1.1.0" }).click();
    await expect.poll(() => card("Whiteboard").locator(".app-meta").textContent()).toContain("version 1.1.0");
    expect(await pending.count()).toBe(0);

    await card("Whiteboard").getByRole("button", { name: "Roll back Whiteboard…" }).click();
    const form = page.getByRole("form", { name: "Roll back Whiteboard" });
    await form.getByRole("button", { name: "Roll back to 1.0.0" }).click();
    await form.getByRole("alert").waitFor();
    expect(await form.getByRole("alert").textContent()).toContain("needs a reason");
    expect(await managerCalls()).not.toContain("rollback:whiteboard");
    await form.getByLabel("Reason (required, kept in the audit log)").fill("1.1.0 copies the wrong link");
    await form.getByRole("button", { name: "Roll back to 1.0.0" }).click();
    await expect.poll(() => card("Whiteboard").locator(".app-meta").textContent()).toContain("version 1.0.0");
    const latest = page.locator(".activity-list > li").first();
    expect(await latest.getAttribute("data-kind")).toBe("rollback");
    expect(await latest.textContent()).toContain("1.1.0 copies the wrong link");
    await shot("registry-list");
  });

  it("a newer version this host bundles is offered on the app's card, and goes through the same update and approval", async () => {
    expect(await card("Whiteboard").getByRole("button", { name: /^Update Whiteboard to/ }).count()).toBe(0);
    // The host bundles 1.1.0 (and an older Whiteboard is never offered as an update).
    await page.evaluate((base64) => {
      const registry = (window as unknown as { __registry: { offer(b: object): void } }).__registry;
      registry.offer({ name: "Whiteboard", file: "whiteboard-old.lineup", app_scope: "whiteboard", version: "0.9.0", base64 });
      registry.offer({ name: "Whiteboard", file: "whiteboard.lineup", app_scope: "whiteboard", version: "1.1.0", base64 });
    }, Buffer.from(v11).toString("base64"));
    const offer = card("Whiteboard").getByRole("button", { name: /^Update Whiteboard to/ });
    await expect.poll(() => offer.allTextContents()).toEqual(["Update to 1.1.0"]);
    expect(await offer.getAttribute("aria-label")).toBe("Update Whiteboard to 1.1.0");
    // It is installed (not offered in "Bundled with this host"): the offer is on its card.
    expect(await page.getByRole("button", { name: "Install Whiteboard…" }).count()).toBe(0);
    await offer.click();
    const pending = card("Whiteboard").getByRole("region", { name: /waiting for approval/ });
    await pending.waitFor();
    expect(await pending.textContent()).toContain("clipboard.write");
    await pending.getByRole("button", { name: "Approve update to 1.1.0" }).click();
    await expect.poll(() => card("Whiteboard").locator(".app-meta").textContent()).toContain("version 1.1.0");
    // Up to date: nothing more to offer.
    expect(await offer.count()).toBe(0);
  });

  it("remove asks for confirmation that says the bundle and data go, Cancel keeps it, confirming removes it", async () => {
    await card("Whiteboard").getByRole("button", { name: "Remove Whiteboard…" }).click();
    const confirm = card("Whiteboard").getByRole("group", { name: "Remove Whiteboard?" });
    await confirm.waitFor();
    expect(await confirm.textContent()).toMatch(/bundle and all of its data .* will be deleted/);
    // Focus moves to the safe choice once the confirmation has rendered.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Cancel");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    expect(await confirm.count()).toBe(0);
    expect(await managerCalls()).not.toContain("remove:whiteboard=true");
    expect(await installedScopes()).toContain("whiteboard");

    await card("Whiteboard").getByRole("button", { name: "Remove Whiteboard…" }).click();
    await confirm.getByRole("button", { name: "Remove Whiteboard and its data" }).click();
    await expect.poll(() => card("Whiteboard").count()).toBe(0);
    expect(await page.locator("section[aria-labelledby=installed-title] > [aria-live] .operation-ok").textContent()).toBe("Removed Whiteboard.");
    expect(await installedScopes()).toEqual(["app-registry", "chat", "settings"]);
    expect(await managerCalls()).toContain("remove:whiteboard=true");
  });

  it("the activity list shows the operations newest first, failures with their code", async () => {
    const kinds = await page.locator(".activity-list > li").evaluateAll((items) => items.map((li) => `${li.getAttribute("data-kind")}:${li.getAttribute("data-status")}`));
    expect(kinds.slice(0, 6)).toEqual(["remove:succeeded", "approve_update:succeeded", "update:awaiting_approval", "rollback:succeeded", "approve_update:succeeded", "update:awaiting_approval"]);
    expect(kinds).toContain("disable:failed");
    expect(await page.locator('.activity-list > li[data-kind="disable"][data-status="failed"] .error-code').textContent()).toBe("app_protected");
  });

  it("Settings: changes a grant, forgets one with Ask next time, removes a publisher, and shows storage per app", async () => {
    await view("settings");
    const select = page.getByLabel("link.open for notes");
    expect(await select.inputValue()).toBe("denied");
    await select.selectOption("granted");
    await expect.poll(() => page.locator('.settings-row[data-capability="link.open"]').getAttribute("data-decision")).toBe("granted");
    await page.getByLabel("clipboard.write for notes").selectOption("ask");
    await expect.poll(() => page.locator('.settings-row[data-app="notes"][data-capability="clipboard.write"]').count()).toBe(0);
    expect(await fakes((f) => f.settings.calls.filter((c) => c.startsWith("setGrant")))).toEqual(["setGrant:notes/link.open=granted", "setGrant:notes/clipboard.write=ask"]);

    const usage = page.getByRole("list", { name: "Storage used per app" });
    await usage.waitFor();
    expect(await usage.locator('[data-app="chat"]').textContent()).toContain("40 KB");
    // Each app by its name, then its scope; an app not installed (notes) by its scope alone.
    expect(await usage.locator('[data-app="chat"] .app-label').textContent()).toBe("Chat chat");
    expect(await page.locator('.settings-row[data-app="notes"] .app-label').count()).toBe(0);
    await shot("settings");

    await page.getByRole("button", { name: "Remove publisher Example Apps Ltd" }).click();
    await expect.poll(() => page.locator(`.settings-row[data-key-id="${publisher.keyId}"]`).count()).toBe(0);
    expect(await page.getByRole("status").filter({ hasText: "No longer trusting Example Apps Ltd" }).count()).toBe(1);
  });

  it("ran without page errors or CSP refusals", () => {
    expect(errors).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
