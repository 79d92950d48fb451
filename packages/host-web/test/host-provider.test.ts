// The browser HostProvider's pure parts in Node: the apps' input shapes, native errors mapped to closed
// results without their text, the permission cache, notifications over a stand-in API, and the shell's
// prompt queue (order, answers, withdrawal, abort).
import { CAPABILITY_RESULT_STATUSES, isErrorCode, type CapabilityName } from "@lineup/protocol";
import type { CapabilityPrompt, HostInvocation } from "@lineup/runtime";
import { describe, expect, it } from "vitest";
import {
  checkAttentionInput,
  checkClipboardInput,
  checkFilePickInput,
  checkFileSaveInput,
  checkLinkInput,
  checkMicrophoneInput,
  checkNotificationInput,
  DEFAULT_MAX_ARTIFACT_BYTES,
  isSafeFileName,
  MAX_RECORDING_MS,
} from "../src/host-provider/inputs.js";
import { showNotification, type NotificationApi } from "../src/host-provider/notification.js";
import { baseMimeType, nativeFailure, recordingName, systemPermissionFromState } from "../src/host-provider/outcomes.js";
import { createPermissionCache } from "../src/host-provider/permissions.js";
import { createPromptQueue, type QueuedPrompt } from "../src/host-provider/prompt-queue.js";

const refusalCode = (checked: { ok: boolean; refusal?: { status: string; code: string } }) => (checked.ok ? "ok" : `${checked.refusal!.status}/${checked.refusal!.code}`);

describe("capability inputs", () => {
  it("file.pick: defaults, accepted types, and max_bytes bounded by the artifact limit", () => {
    expect(checkFilePickInput({})).toEqual({ ok: true, value: { accept: [], multiple: false, max_bytes: DEFAULT_MAX_ARTIFACT_BYTES } });
    expect(checkFilePickInput({ accept: ["image/*", "text/plain", ".md"], multiple: true, max_bytes: 10 })).toEqual({ ok: true, value: { accept: ["image/*", "text/plain", ".md"], multiple: true, max_bytes: 10 } });
    expect(checkFilePickInput({ max_bytes: 10_000 }, 100)).toMatchObject({ ok: true, value: { max_bytes: 100 } });
    for (const bad of [null, [], "x", { accept: "image/png" }, { accept: ["png"] }, { accept: ["image/png,text/html"] }, { multiple: "yes" }, { max_bytes: 0 }, { max_bytes: 1.5 }, { path: "/etc" }]) {
      expect(refusalCode(checkFilePickInput(bad)), JSON.stringify(bad)).toBe("failed/invalid_arguments");
    }
  });

  it("file.save: a plain name, a concrete MIME type and canonical base64 within the limit", () => {
    expect(checkFileSaveInput({ name: "report.txt", mime_type: "text/plain", data: "aGk=" })).toMatchObject({ ok: true, value: { name: "report.txt", mime_type: "text/plain", bytes: new Uint8Array([104, 105]) } });
    for (const bad of [
      { name: "../report.txt", mime_type: "text/plain", data: "" },
      { name: "a\\b", mime_type: "text/plain", data: "" },
      { name: "", mime_type: "text/plain", data: "" },
      { name: "ok.txt", mime_type: "text/*", data: "" },
      { name: "ok.txt", mime_type: "text", data: "" },
      { name: "ok.txt", mime_type: "text/plain", data: "aGk" },
      { name: "ok.txt", mime_type: "text/plain", data: 5 },
      { name: "ok.txt", mime_type: "text/plain" },
    ]) {
      expect(refusalCode(checkFileSaveInput(bad)), JSON.stringify(bad)).toBe("failed/invalid_arguments");
    }
    expect(checkFileSaveInput({ name: "big.bin", mime_type: "application/octet-stream", data: "AAAAAAAA" }, 5)).toMatchObject({ ok: false, refusal: { message: "data is larger than 5 bytes" } });
    expect(["con:", ".", "..", " lead", "nul\u0000", "a/b", "ok name.txt"].map(isSafeFileName)).toEqual([false, false, false, false, false, false, true]);
  });

  it("microphone.record: 60 s by default, capped at 10 minutes", () => {
    expect(checkMicrophoneInput({})).toEqual({ ok: true, value: { max_ms: 60_000 } });
    expect(checkMicrophoneInput({ max_ms: 5_000 })).toEqual({ ok: true, value: { max_ms: 5_000 } });
    expect(checkMicrophoneInput({ max_ms: 10_000_000 })).toEqual({ ok: true, value: { max_ms: MAX_RECORDING_MS } });
    expect(refusalCode(checkMicrophoneInput({ max_ms: -1 }))).toBe("failed/invalid_arguments");
  });

  it("link.open: only https, with a host and no credentials; normalised", () => {
    expect(checkLinkInput({ url: "https://Example.com/a b" })).toEqual({ ok: true, value: { url: "https://example.com/a%20b" } });
    for (const url of ["http://example.com", "javascript:alert(1)", "data:text/html,x", "https://user:pw@example.com/", "not a url", "", "file:///etc/passwd"]) {
      expect(refusalCode(checkLinkInput({ url })), url).toBe("failed/invalid_arguments");
    }
  });

  it("notification, clipboard and attention shapes", () => {
    expect(checkNotificationInput({ title: "Done" })).toEqual({ ok: true, value: { title: "Done", body: undefined } });
    expect(refusalCode(checkNotificationInput({ title: "" }))).toBe("failed/invalid_arguments");
    expect(refusalCode(checkNotificationInput({ title: "x".repeat(121) }))).toBe("failed/invalid_arguments");
    expect(checkClipboardInput({ text: "" })).toEqual({ ok: true, value: { text: "" } });
    expect(refusalCode(checkClipboardInput({ text: 1 }))).toBe("failed/invalid_arguments");
    expect(checkAttentionInput(null)).toEqual({ ok: true, value: { text: undefined } });
    expect(checkAttentionInput({ text: " Reply " })).toEqual({ ok: true, value: { text: "Reply" } });
  });
});

describe("native errors → closed results", () => {
  const SECRET = "C:\\Users\\alice\\secret.txt: device Blue Yeti (046d:0a44)";
  const cases: [CapabilityName, string, string][] = [
    ["microphone.record", "NotAllowedError", "permission_denied/permission_denied"],
    ["microphone.record", "NotFoundError", "failed/failed"],
    ["microphone.record", "NotReadableError", "failed/failed"],
    ["microphone.record", "AbortError", "failed/failed"],
    ["file.save", "AbortError", "cancelled_by_user/cancelled_by_user"],
    ["file.save", "QuotaExceededError", "failed/failed"],
    ["clipboard.write", "NotAllowedError", "permission_denied/permission_denied"],
    ["notification.show", "TypeError", "unsupported_on_host/unsupported_on_host"],
    ["link.open", "NotSupportedError", "unsupported_on_host/unsupported_on_host"],
    ["file.pick", "WeirdEngineError", "failed/failed"],
  ];
  it.each(cases)("%s %s → %s, without the native message", (capability, name, expected) => {
    const error = new DOMException(SECRET, name);
    const result = nativeFailure(capability, name === "TypeError" ? Object.assign(new TypeError(SECRET)) : error);
    expect(`${result.status}/${result.code}`).toBe(expected);
    expect(CAPABILITY_RESULT_STATUSES).toContain(result.status);
    expect(isErrorCode(result.code)).toBe(true);
    expect(result.message).not.toContain("alice");
    expect(result.message).not.toContain("Yeti");
  });

  it("maps things that are not errors at all", () => {
    expect(nativeFailure("file.pick", "boom")).toEqual({ status: "failed", code: "failed", message: "the browser could not read the chosen files" });
    expect(nativeFailure("file.pick", null).status).toBe("failed");
  });

  it("permission states, MIME types and recording names", () => {
    expect(["granted", "denied", "prompt", undefined, "weird"].map(systemPermissionFromState)).toEqual(["granted", "denied", "prompt", "prompt", "prompt"]);
    expect(baseMimeType("audio/webm;codecs=opus")).toBe("audio/webm");
    expect(recordingName("audio/ogg; codecs=opus")).toBe("recording.ogg");
    expect(recordingName("audio/x-unknown")).toBe("recording.bin");
  });
});

describe("the permission cache", () => {
  it("starts at prompt, takes what permissions.query answers and follows its changes", async () => {
    const status = Object.assign(new EventTarget(), { state: "granted" });
    const cache = createPermissionCache({ query: ({ name }) => (name === "microphone" ? Promise.resolve(status as unknown as PermissionStatus) : Promise.reject(new TypeError("unknown name"))) });
    expect(cache.get("microphone")).toBe("prompt");
    await Promise.resolve();
    await Promise.resolve();
    expect(cache.get("microphone")).toBe("granted");
    expect(cache.get("notifications")).toBe("prompt");
    status.state = "denied";
    status.dispatchEvent(new Event("change"));
    expect(cache.get("microphone")).toBe("denied");
    cache.dispose();
    status.state = "granted";
    status.dispatchEvent(new Event("change"));
    expect(cache.get("microphone")).toBe("denied");
  });

  it("without the Permissions API everything is prompt", () => {
    expect(createPermissionCache(undefined).get("notifications")).toBe("prompt");
  });
});

describe("notification.show over the Notification API", () => {
  const invocation = (input: HostInvocation["input"]): HostInvocation => ({ request_id: "r1", app_scope: "notes", capability: "notification.show", input, signal: new AbortController().signal });

  /** What the page told the native side before each ask, in order with the asks themselves. */
  const said: string[] = [];
  const announce = (permission: string) => {
    said.push(`told ${permission}`);
    return Promise.resolve();
  };

  function fakeApi(permission: string, answer = "granted") {
    const shown: { title: string; options: NotificationOptions | undefined; target: EventTarget; closed: boolean }[] = [];
    const api = class extends EventTarget {
      static permission = permission;
      static requestPermission = () => {
        said.push("asked");
        api.permission = answer;
        return Promise.resolve(answer);
      };
      constructor(title: string, options?: NotificationOptions) {
        super();
        shown.push({ title, options, target: this, closed: false });
      }
      close() {
        shown.find((s) => s.target === this)!.closed = true;
      }
    };
    return { api: api as unknown as NotificationApi, shown };
  }

  it("shows it, and a click hands the app's scope to the shell", async () => {
    const { api, shown } = fakeApi("granted");
    const clicks: string[] = [];
    expect(await showNotification(invocation({ title: "Done", body: "All green" }), api, (scope) => clicks.push(scope), announce)).toEqual({ status: "completed", value: { shown: true } });
    expect(shown).toMatchObject([{ title: "Done", options: { body: "All green", tag: "r1" } }]);
    shown[0]!.target.dispatchEvent(new Event("click"));
    expect(clicks).toEqual(["notes"]);
    expect(shown[0]!.closed).toBe(true);
  });

  it("asks when the permission is open, telling the native side first, and is permission_denied when refused", async () => {
    said.length = 0;
    const granted = fakeApi("default", "granted");
    expect((await showNotification(invocation({ title: "Hi" }), granted.api, () => undefined, announce)).status).toBe("completed");
    const refused = fakeApi("default", "denied");
    expect(await showNotification(invocation({ title: "Hi" }), refused.api, () => undefined, announce)).toMatchObject({ status: "permission_denied", code: "permission_denied" });
    expect(refused.shown).toEqual([]);
    expect(said).toEqual(["told notifications", "asked", "told notifications", "asked"]);
    // Settled already: nothing is asked, so nothing is told.
    expect((await showNotification(invocation({ title: "Hi" }), fakeApi("denied").api, () => undefined, announce)).status).toBe("permission_denied");
    expect((await showNotification(invocation({ title: "Hi" }), undefined, () => undefined, announce)).status).toBe("unsupported_on_host");
    expect(said).toHaveLength(4);
  });
});

describe("the prompt queue", () => {
  const prompt = (request_id: string): CapabilityPrompt => ({ request_id, app_scope: "notes", app_name: "Notes", capability: "link.open", purpose: "p", description: "d", risk: "medium" });
  const activation = (request_id: string) => ({ request_id, app_scope: "notes", app_name: "Notes", title: "Choose a file", detail: "d", action: "Choose file…" });

  it("shows one prompt at a time, in order, and resolves each with its answer", async () => {
    const queue = createPromptQueue();
    const seen: (string | undefined)[] = [];
    queue.subscribe((head) => seen.push(head?.prompt.request_id));
    const first = queue.confirm(prompt("a"));
    const second = queue.confirm(prompt("b"));
    expect(queue.current()?.prompt.request_id).toBe("a");
    queue.answer(queue.current()!.id, true);
    expect(await first).toBe("allow");
    expect(queue.current()?.prompt.request_id).toBe("b");
    queue.answer(queue.current()!.id, false);
    expect(await second).toBe("deny");
    expect(queue.current()).toBeUndefined();
    expect(seen).toEqual(["a", "b", undefined]);
  });

  it("ignores answers to prompts no longer queued, and shares one answer for a request asked twice", async () => {
    const queue = createPromptQueue();
    const once = queue.confirm(prompt("a"));
    const twice = queue.confirm(prompt("a"));
    const head = queue.current() as QueuedPrompt;
    queue.answer(head.id, true);
    queue.answer(head.id, false);
    expect(await Promise.all([once, twice])).toEqual(["allow", "allow"]);
  });

  it("withdraws a request's prompts (dismiss, not a denial) and drops an activation prompt when its request aborts", async () => {
    const queue = createPromptQueue();
    const withdrawn = queue.confirm(prompt("a"));
    const controller = new AbortController();
    const aborted = queue.activate(activation("b"), controller.signal);
    const waiting = queue.confirm(prompt("c"));
    queue.withdraw("a");
    expect(await withdrawn).toBe("dismiss");
    expect(queue.current()).toMatchObject({ kind: "activation", prompt: { request_id: "b" } });
    controller.abort();
    expect(await aborted).toBe(false);
    expect(queue.current()?.prompt.request_id).toBe("c");
    queue.answer(queue.current()!.id, true);
    expect(await waiting).toBe("allow");
    expect(await queue.activate(activation("d"), AbortSignal.abort())).toBe(false);
    expect(queue.current()).toBeUndefined();
  });

  it("asks an MCP server's questions in turn: what the person filled in, a decline, or a cancel when closed or withdrawn", async () => {
    const question = (request_id: string) => ({ request_id, app_scope: "notes", app_name: "Notes", message: "Which list?", requested_schema: { type: "object", properties: { list: { type: "string" } } } });
    const queue = createPromptQueue();
    const filled = queue.elicit(question("q1"));
    const declined = queue.elicit(question("q2"));
    const closed = queue.elicit(question("q3"));
    const controller = new AbortController();
    const withdrawn = queue.elicit(question("q4"), controller.signal);
    // A decision is not content: `answer(true)` on a question fills in nothing, and `submit` on a confirmation is ignored.
    const confirmation = queue.confirm(prompt("c"));
    expect(queue.current()).toMatchObject({ kind: "elicit", prompt: { request_id: "q1" } });
    queue.submit(queue.current()!.id, { list: "Groceries" });
    expect(await filled).toEqual({ action: "accept", content: { list: "Groceries" } });
    queue.answer(queue.current()!.id, false);
    expect(await declined).toEqual({ action: "decline" });
    queue.dismiss(queue.current()!.id);
    expect(await closed).toEqual({ action: "cancel" });
    controller.abort();
    expect(await withdrawn).toEqual({ action: "cancel" });
    const head = queue.current()!;
    expect(head.kind).toBe("confirm");
    queue.submit(head.id, { list: "x" });
    expect(queue.current()).toBe(head);
    queue.answer(head.id, true);
    expect(await confirmation).toBe("allow");
    expect(await queue.elicit(question("q5"), AbortSignal.abort())).toEqual({ action: "cancel" });
  });
});
