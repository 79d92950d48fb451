/**
 * The web host's framework-free stores (prompt queue, recordings, notifications) hold the one emitter: a
 * listener that throws is reported on the console and never keeps the shell's other listeners from the change,
 * and each subscription stops by a call or by `Symbol.dispose`.
 */
import type { CapabilityPrompt } from "@lineup/runtime";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createPromptQueue } from "../src/host-provider/prompt-queue.js";
import { createRecordingStore } from "../src/host-provider/recordings.js";
import { createNotifications } from "../src/shell/notifications.js";

const prompt: CapabilityPrompt = { request_id: "r1", app_scope: "notes", app_name: "Notes", capability: "link.open", purpose: "p", description: "d", risk: "medium" };

afterEach(() => vi.restoreAllMocks());

describe("the web host's stores", () => {
  it("tell every listener though one throws, and report the throw on the console", () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const boom = (): void => {
      throw new Error("listener broke");
    };

    const queue = createPromptQueue();
    const heads: (string | undefined)[] = [];
    queue.subscribe(boom);
    queue.subscribe((head) => heads.push(head?.prompt.request_id));
    void queue.confirm(prompt);
    expect(heads).toEqual(["r1"]);

    const notifications = createNotifications({ setTimer: () => undefined });
    const shown: number[] = [];
    notifications.subscribe(boom);
    notifications.subscribe((toasts) => shown.push(toasts.length));
    notifications.push("saved");
    expect(shown).toEqual([1]);

    const recordings = createRecordingStore({ now: () => 0 });
    const live: number[] = [];
    recordings.subscribe(boom);
    recordings.subscribe((list) => live.push(list.length));
    recordings.begin({ request_id: "m1", app_scope: "notes", app_name: "Notes", max_ms: 60_000 }, { stop: () => undefined, discard: () => undefined });
    expect(live).toEqual([1]);

    expect(errors).toHaveBeenCalledTimes(3);
    expect(errors.mock.calls.map((call) => (call[1] as Error).message)).toEqual(["listener broke", "listener broke", "listener broke"]);
  });

  it("stop a subscription by calling it or by Symbol.dispose", () => {
    const notifications = createNotifications({ setTimer: () => undefined });
    const called: string[] = [];
    const first = notifications.subscribe(() => called.push("first"));
    const second = notifications.subscribe(() => called.push("second"));
    notifications.push("one");
    first();
    (second as unknown as Disposable)[Symbol.dispose]();
    notifications.push("two");
    expect(called).toEqual(["first", "second"]);
  });
});
