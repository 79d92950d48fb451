/**
 * The built Voice Notes app in real Chromium, sandboxed as the host runs it: the agent's
 * `voice.request_recording` goes `pending` and shows what the agent asks; Record asks the host for
 * `microphone.record`, and what LineUp hands back is saved as an artifact, listed, and completes the call;
 * Not now, a discarded or refused recording and a cancelled call end it as the agent should hear; a note
 * plays back from its artifact's bytes; a reload shows the same notes. The test host answers each
 * capability request itself (test/support/app-host-page.ts). Needs Debian's Chromium (`npm test` installs
 * it; LINEUP_CHROMIUM overrides the path).
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBuiltApp, type BuiltAppPage } from "../../../test/support/built-app-page.js";
import { testSnapshot } from "../../../test/support/bridge-snapshot.js";
import { checkToolArguments } from "../../../test/support/tool-arguments.js";
import { tools } from "../src/tools.js";

const OUTPUT = join(import.meta.dirname, "..", "..", "..", "test-output", "voice");

const FEATURES = ["app.lifecycle.v1", "app.tools.v1", "app.session-data.v1", "capability.request.v1", "artifact.create.v1", "artifact.read.v1"];
const snapshot = testSnapshot({
  app_scope: "voice",
  instance_id: "voice-browser-1",
  entrypoint: "notes",
  capabilities: [{ capability: "microphone.record", available: true }],
  sdk: { api_version: "1", features: FEATURES },
});

/** A short mono 16-bit PCM WAV (a 440 Hz tone): real audio the page can decode and play. */
function wav(seconds: number, rate = 8_000): Buffer {
  const samples = Math.round(seconds * rate);
  const out = Buffer.alloc(44 + samples * 2);
  out.write("RIFF", 0);
  out.writeUInt32LE(36 + samples * 2, 4);
  out.write("WAVEfmt ", 8);
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(rate, 24);
  out.writeUInt32LE(rate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write("data", 36);
  out.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) out.writeInt16LE(Math.round(8_000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + i * 2);
  return out;
}

const AUDIO = wav(0.4);
const recorded = (duration_ms: number) => ({ status: "completed", value: { recording: { name: "recording.wav", mime_type: "audio/wav", size: AUDIO.byteLength, data: AUDIO.toString("base64") }, duration_ms } });

type Request = { id: number; params: Record<string, unknown> };
type Host = {
  session(): { data: { notes?: { id: string; name: string; duration_ms: number; size: number; created_at: string }[] } | null; revision: number };
  requests(m: string): Request[];
  answerCapability(result: object): boolean;
  artifacts: { artifact: { artifact_id: string; name: string; size: number }; data: string }[];
  reload(): void;
  invokeOnReady(params: object): void;
};

describe("Voice Notes in a sandboxed iframe (Chromium)", () => {
  let app: BuiltAppPage;
  let page: Page;
  let errors: string[];

  const host = <T>(fn: (h: Host) => T): Promise<T> => app.host(fn);
  const params = (method: string): Promise<Record<string, unknown>[]> => page.evaluate((m) => (window as unknown as { __host: Host }).__host.requests(m).map((r) => r.params), method);
  const answer = (result: object) => page.evaluate((r) => (window as unknown as { __host: Host }).__host.answerCapability(r), result);
  const frame = () => app.frame();
  const request = () => frame().getByRole("region", { name: "The agent's request" });

  beforeAll(async () => {
    app = await openBuiltApp(join(import.meta.dirname, ".."), snapshot);
    ({ page, errors } = app);
    await mkdir(OUTPUT, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it("opens with no notes and a Record button, and no errors", async () => {
    await expect.poll(() => frame().getByText("No notes yet.").isVisible()).toBe(true);
    expect(await frame().getByRole("button", { name: "Record a note" }).isEnabled()).toBe(true);
    expect(await host((h) => h.requests("session_data.subscribe").length)).toBe(1);
    expect(errors).toEqual([]);
  });

  it("speaks the language LineUp tells it, and follows a change of it", async () => {
    await app.event("locale.changed", { locale: "zh-CN", timezone: "UTC" });
    await expect.poll(() => app.frame().locator("h1").textContent()).toBe("语音笔记");
    expect(await app.frame().getByRole("button", { name: "录一段笔记" }).isVisible()).toBe(true);
    await app.event("locale.changed", { locale: "en", timezone: "UTC" });
    await expect.poll(() => app.frame().locator("h1").textContent()).toBe("Voice Notes");
  });

  it("the agent's request waits for the person; Record records through LineUp, saves an artifact and completes the call with it", async () => {
    expect(await app.invoke({ call_id: "v1", method: "voice.request_recording", arguments: { prompt: "Say the order number", max_seconds: 20 } })).toEqual({ outcome: "pending" });
    await expect.poll(() => params("tool.progress")).toEqual([{ call_id: "v1", progress: { stage: "waiting_for_user", message: "Waiting for the user to record a voice note" } }]);
    await request().waitFor();
    expect(await request().locator(".voice-asks").textContent()).toBe("The agent asks: Say the order number");
    expect(await request().getByText("Up to 0:20.", { exact: false }).isVisible()).toBe(true);
    await page.screenshot({ path: join(OUTPUT, "request.png") });

    await request().getByRole("button", { name: "Record" }).click();
    await expect.poll(() => params("capability.request")).toEqual([
      { capability: "microphone.record", purpose: "The agent asked you: “Say the order number” The recording is kept in this conversation for the agent to read.", input: { max_ms: 20_000 } },
    ]);
    await expect.poll(() => frame().getByRole("status").textContent()).toContain("Recording…");
    // LineUp records and the person stops it in LineUp's own bar; the app only waits.
    expect(await request().getByRole("button", { name: "Record" }).count()).toBe(0);
    expect(await frame().getByRole("button", { name: "Record a note" }).isDisabled()).toBe(true);
    expect(await answer(recorded(1_400))).toBe(true);

    await expect.poll(() => params("tool.complete")).toEqual([{ call_id: "v1", result: { outcome: "recorded", artifact_id: "art-1", duration_ms: 1_400, mime_type: "audio/wav", size: AUDIO.byteLength } }]);
    const created = await host((h) => h.artifacts.map((a) => ({ ...a.artifact, data: a.data })));
    expect(created).toEqual([{ artifact_id: "art-1", name: expect.stringMatching(/^voice-note-\d{8}-\d{6}\.wav$/) as unknown as string, mime_type: "audio/wav", size: AUDIO.byteLength, sha256: "0".repeat(64), data: AUDIO.toString("base64") }]);
    expect((await params("tool.progress")).map((p) => (p["progress"] as { stage: string }).stage)).toEqual(["waiting_for_user", "recording", "saving"]);
    expect(await host((h) => [...h.requests("tool.fail")].length)).toBe(0);
    await expect.poll(() => request().count()).toBe(0);
    await expect.poll(() => host((h) => h.session().data?.notes?.map((n) => [n.id, n.duration_ms]))).toEqual([["art-1", 1_400]]);
    await expect.poll(() => frame().locator(".voice-note").count()).toBe(1);
    expect(await frame().locator(".voice-note-length").textContent()).toBe("0:01");
  });

  it("a note plays from its artifact's bytes, read back through LineUp", async () => {
    const play = frame().getByRole("button", { name: /^Play Voice note, / });
    await play.click();
    await expect.poll(() => params("artifact.read")).toEqual([{ artifact_id: "art-1", max_bytes: 16 * 1024 * 1024 }]);
    await expect.poll(() => frame().getByRole("button", { name: /^Stop Voice note, / }).count()).toBe(1);
    await page.screenshot({ path: join(OUTPUT, "playing.png") });
    // The 0.4 s tone ends by itself.
    await expect.poll(() => frame().getByRole("button", { name: /^Play Voice note, / }).count(), { timeout: 5_000 }).toBe(1);
    expect(await frame().getByRole("alert").count()).toBe(0);
  });

  it("Not now ends the call cancelled_by_user; a discarded recording too, and neither keeps a note", async () => {
    expect(await app.invoke({ call_id: "v2", method: "voice.request_recording", arguments: {} })).toEqual({ outcome: "pending" });
    await request().waitFor();
    expect(await request().locator(".voice-asks").textContent()).toBe("The agent asks you to record a voice note.");
    await request().getByRole("button", { name: "Not now" }).click();
    await expect.poll(() => params("tool.fail")).toEqual([{ call_id: "v2", code: "cancelled_by_user", message: "the person chose not to record now" }]);
    await expect.poll(() => request().count()).toBe(0);

    expect(await app.invoke({ call_id: "v3", method: "voice.request_recording", arguments: { prompt: "Describe the bug" } })).toEqual({ outcome: "pending" });
    await request().getByRole("button", { name: "Record" }).click();
    await expect.poll(() => host((h) => h.requests("capability.request").length)).toBe(2);
    await answer({ status: "cancelled_by_user", code: "cancelled_by_user", message: "the user discarded the recording" });
    await expect.poll(() => params("tool.fail").then((f) => f[1])).toEqual({
      call_id: "v3",
      code: "cancelled_by_user",
      message: "the person cancelled the recording (the user discarded the recording)",
    });
    expect(await frame().locator(".voice-note").count()).toBe(1);
    expect(await frame().getByRole("alert").count()).toBe(0);
  });

  it("a refused microphone ends the call permission_denied; a call the agent cancels leaves the screen and answers nothing more", async () => {
    expect(await app.invoke({ call_id: "v4", method: "voice.request_recording", arguments: {} })).toEqual({ outcome: "pending" });
    await request().getByRole("button", { name: "Record" }).click();
    await expect.poll(() => host((h) => h.requests("capability.request").length)).toBe(3);
    await answer({ status: "permission_denied", code: "permission_denied", message: "the user did not allow microphone.record" });
    await expect.poll(() => params("tool.fail").then((f) => f[2])).toMatchObject({ call_id: "v4", code: "permission_denied" });
    await expect.poll(() => frame().getByRole("alert").textContent()).toBe("Not recorded: the microphone was not allowed (the user did not allow microphone.record)");

    expect(await app.invoke({ call_id: "v5", method: "voice.request_recording", arguments: {} })).toEqual({ outcome: "pending" });
    await request().waitFor();
    await app.event("tool.cancelled", { call_id: "v5", reason: "the agent changed its mind" });
    await expect.poll(() => request().count()).toBe(0);
    expect((await params("tool.fail")).length).toBe(3);
    expect((await params("tool.complete")).length).toBe(1);

    // Arguments outside the schema never reach the page: the Runtime refuses them.
    expect(checkToolArguments(tools, "voice.request_recording", { max_seconds: 0 })).toMatchObject({ ok: false, error: { code: "invalid_arguments" } });
  });

  it("the person records a note of their own; a reload shows both notes", async () => {
    await frame().getByRole("button", { name: "Record a note" }).click();
    await expect.poll(() => params("capability.request").then((r) => r[3])).toEqual({ capability: "microphone.record", purpose: "Record a voice note you keep in this conversation.", input: { max_ms: 60_000 } });
    await answer(recorded(65_000));
    await expect.poll(() => frame().locator(".voice-note").count()).toBe(2);
    expect(await frame().locator(".voice-note-length").allTextContents()).toEqual(["1:05", "0:01"]);
    expect(await frame().getByRole("alert").count()).toBe(0);
    await expect.poll(() => host((h) => h.session().data?.notes?.length)).toBe(2);
    await page.screenshot({ path: join(OUTPUT, "notes.png") });
    // The agent hears that the person's own note exists (the declared note.recorded event); the note the agent
    // asked for earlier reached it through its call, not as an event.
    const [own, asked] = await host((h) => h.session().data!.notes!);
    expect(await params("event.emit")).toEqual([{ name: "note.recorded", data: { artifact_id: own!.id, name: own!.name, duration_ms: 65_000, mime_type: "audio/wav", size: own!.size } }]);
    expect(asked!.id).not.toBe(own!.id);

    await host((h) => h.reload());
    await app.ready(1);
    await expect.poll(() => frame().locator(".voice-note").count()).toBe(2);
    expect(await frame().locator(".voice-note-length").allTextContents()).toEqual(["1:05", "0:01"]);
    expect(errors).toEqual([]);
  });

  it("in picture-in-picture shows how many notes there are and the latest one's length", async () => {
    await app.event("display_mode.changed", { display_mode: "pip" });
    await expect.poll(() => frame().locator(".voice-pip-line").textContent()).toBe("2 notes");
    expect(await frame().locator(".voice-pip-latest").textContent()).toMatch(/^Latest: 1:05 · /);
    // The host's picture-in-picture window is 320 × 220.
    const resize = (width: number, height: number) => page.evaluate(([w, h]) => Object.assign(document.getElementById("app-frame")!.style, { width: `${w}px`, height: `${h}px` }), [width, height] as const);
    await resize(320, 220);
    await page.screenshot({ path: join(OUTPUT, "pip.png"), clip: { x: 0, y: 0, width: 320, height: 220 } });
    await resize(800, 600);
    await app.event("display_mode.changed", { display_mode: "foreground" });
    await expect.poll(() => frame().locator(".voice-note").count()).toBe(2);
  });

  it("shows the agent's request that arrived the moment the app said it was ready (a call that waited for it to start)", async () => {
    await host((h) => {
      h.invokeOnReady({ call_id: "v7", method: "voice.request_recording", arguments: { prompt: "Straight away" } });
      h.reload();
    });
    await app.ready(1);
    await expect.poll(() => request().locator(".voice-asks").textContent(), { timeout: 5_000 }).toBe("The agent asks: Straight away");
    expect(errors).toEqual([]);
  });
});
