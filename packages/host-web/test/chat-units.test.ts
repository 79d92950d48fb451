import type { AgentAppMessage, AgentMessagePage } from "@lineup/app-sdk";
import type { ConversationSummary } from "@lineup/runtime";
import { describe, expect, it } from "vitest";
import { decodeHostConfig, parseHostConfig, profileName, redeemPairingCode } from "../src/bootstrap/config.js";
import { HistoryPager, type HistorySource } from "../src/core-apps/chat/history-pager.js";
import { confirmEchoes, failEchoes, updateEcho, type EchoEntry } from "../src/core-apps/chat/local-echo.js";
import { conversationTitle, MAX_TITLE_LENGTH } from "../src/core-apps/chat/title.js";
import { newestFiles, sharedBy, SHOWN_FILES } from "../src/core-apps/chat/ConversationFiles.js";
import { statusLine } from "../src/core-apps/chat/ConversationView.js";
import { chatConversations } from "../src/core-apps/chat/selection.js";
import { indexOfCurrent, rowsInView } from "../src/core-apps/chat/ConversationList.js";
import { createNotifications } from "../src/shell/notifications.js";
import { describeLifecycle } from "../src/shell/lifecycle-label.js";

function message(n: number, extra: Partial<AgentAppMessage> = {}): AgentAppMessage {
  return {
    message_id: `c:${n}`,
    cursor: `c/${String(n).padStart(16, "0")}`,
    app_scope: "chat",
    conversation_id: "c",
    seq: n,
    type: "lineup.message",
    delivery: "display",
    sender: { kind: "agent", id: "a" },
    created_at: "2026-11-30T07:00:00.000Z",
    payload: { format: "text", text: `m${n}` },
    ...extra,
  };
}

/** The Runtime's paging (forward, `before` and `latest`) over `count` stored messages, counting reads. */
function source(count: number): HistorySource & { reads: number } {
  const all = Array.from({ length: count }, (_, i) => message(i + 1));
  const src = {
    reads: 0,
    async list(request: { after?: string; before?: string; latest?: boolean; limit?: number }): Promise<AgentMessagePage> {
      src.reads += 1;
      if (request.after !== undefined && request.before !== undefined) throw new Error("invalid_params");
      const limit = request.limit ?? 50;
      if (request.before !== undefined || request.latest === true) {
        const end = request.before === undefined ? all.length : all.findIndex((m) => m.cursor === request.before);
        const start = Math.max(0, end - limit);
        const page = all.slice(start, end);
        return start > 0 ? { messages: page, prev_cursor: page[0]!.cursor } : { messages: page };
      }
      const start = request.after === undefined ? 0 : all.findIndex((m) => m.cursor === request.after) + 1;
      const page = all.slice(start, start + limit);
      return start + limit < all.length ? { messages: page, next_cursor: page.at(-1)!.cursor } : { messages: page };
    },
  };
  return src;
}

describe("history pager", () => {
  it("opens at the newest messages and pages backwards on demand, without gaps or repeats", async () => {
    const src = source(1_050);
    const pager = new HistoryPager(src, "c", 100);
    const latest = await pager.openLatest();
    expect(latest.map((m) => m.seq)).toEqual(Array.from({ length: 100 }, (_, i) => 951 + i));
    // The newest page is one read: no forward walk.
    expect(src.reads).toBe(1);
    const order = latest.map((m) => m.seq);
    while (pager.hasOlder()) order.unshift(...(await pager.loadOlder()).map((m) => m.seq));
    expect(order).toEqual(Array.from({ length: 1_050 }, (_, i) => i + 1));
    // One read per page.
    expect(src.reads).toBe(11);
    expect(await pager.loadOlder()).toEqual([]);
    expect(src.reads).toBe(11);
  });

  it("handles an empty, a one-page and an exactly-one-page history", async () => {
    const empty = new HistoryPager(source(0), "c", 100);
    expect(await empty.openLatest()).toEqual([]);
    expect(empty.hasOlder()).toBe(false);
    const small = new HistoryPager(source(30), "c", 100);
    expect((await small.openLatest()).length).toBe(30);
    expect(small.hasOlder()).toBe(false);
    const exact = new HistoryPager(source(100), "c", 100);
    expect((await exact.openLatest()).length).toBe(100);
    expect(exact.hasOlder()).toBe(false);
    const oneMore = new HistoryPager(source(101), "c", 100);
    expect((await oneMore.openLatest()).map((m) => m.seq)[0]).toBe(2);
    expect(oneMore.hasOlder()).toBe(true);
    expect((await oneMore.loadOlder()).map((m) => m.seq)).toEqual([1]);
    expect(oneMore.hasOlder()).toBe(false);
  });
});

describe("local echo", () => {
  const echo = (local_id: string, text: string, status: EchoEntry["status"] = "queued", receipt_id?: string): EchoEntry => ({ local_id, conversation_id: "c", text, status, ...(receipt_id === undefined ? {} : { receipt_id }) });

  it("drops the oldest matching echo when the server's copy of the user's message arrives", () => {
    const echoes = [echo("1", "same"), echo("2", "same"), echo("3", "other")];
    const arrived = [message(5, { sender: { kind: "user", id: "u" }, payload: { format: "text", text: "same" } })];
    expect(confirmEchoes(echoes, arrived).map((e) => e.local_id)).toEqual(["2", "3"]);
    // An agent message with the same text confirms nothing.
    expect(confirmEchoes(echoes, [message(6, { payload: { format: "text", text: "same" } })])).toEqual(echoes);
  });

  it("marks echoes failed when the Runtime reports their receipt refused, and retry resets them", () => {
    const echoes = [echo("1", "a", "queued", "r-1"), echo("2", "b", "queued", "r-2")];
    const failed = failEchoes(echoes, [{ receipt_id: "r-2", message: "refused" }]);
    expect(failed.map((e) => e.status)).toEqual(["queued", "failed"]);
    expect(failed[1]!.error).toBe("refused");
    expect(failEchoes(echoes, [])).toBe(echoes);
    // A failed echo is not confirmed by a later message with its text (it was never sent).
    expect(confirmEchoes(failed, [message(9, { sender: { kind: "user", id: "u" }, payload: { format: "text", text: "b" } })])).toHaveLength(2);
    expect(updateEcho(failed, "2", { status: "sending" })[1]!.status).toBe("sending");
  });
});

describe("sign-in config", () => {
  it("accepts a served config and fills the agent and workspace defaults", () => {
    const result = decodeHostConfig(JSON.stringify({ server_url: "ws://127.0.0.1:8787/rpc", device_token: "tok" }));
    expect(result).toEqual({ ok: true, value: { server_url: "ws://127.0.0.1:8787/rpc", device_token: "tok", agent_id: "demo-agent", workspace_id: "default", trusted_publishers: [], builtin_apps: [] } });
  });

  it("refuses bad configs with a code and a path, never throwing", () => {
    expect(decodeHostConfig("{")).toMatchObject({ ok: false, error: { code: "json_malformed" } });
    expect(decodeHostConfig('{"__proto__": {}}')).toMatchObject({ ok: false, error: { code: "json_forbidden_key" } });
    expect(parseHostConfig({ server_url: "http://127.0.0.1:8787", device_token: "t" })).toMatchObject({ ok: false, error: { code: "invalid_params", path: "/server_url" } });
    expect(parseHostConfig({ server_url: "ws://user:pw@127.0.0.1/rpc", device_token: "t" })).toMatchObject({ ok: false, error: { path: "/server_url" } });
    expect(parseHostConfig({ server_url: "ws://127.0.0.1/rpc", device_token: "  " })).toMatchObject({ ok: false, error: { path: "/device_token" } });
    expect(parseHostConfig(["x"])).toMatchObject({ ok: false, error: { code: "invalid_params" } });
    const app = { name: "Whiteboard", file: "whiteboard.lineup" };
    expect(parseHostConfig({ server_url: "ws://127.0.0.1/rpc", device_token: "t", builtin_apps: [{ ...app, app_scope: "whiteboard" }] })).toMatchObject({ ok: true, value: { builtin_apps: [{ ...app, app_scope: "whiteboard" }] } });
    expect(parseHostConfig({ server_url: "ws://127.0.0.1/rpc", device_token: "t", builtin_apps: [{ ...app, app_scope: "White Board" }] })).toMatchObject({ ok: false, error: { path: "/builtin_apps/0" } });
    // With its version, an installed older one is offered the update; a version that is not semver is refused.
    expect(parseHostConfig({ server_url: "ws://127.0.0.1/rpc", device_token: "t", builtin_apps: [{ ...app, app_scope: "whiteboard", version: "1.1.0" }] })).toMatchObject({ ok: true, value: { builtin_apps: [{ version: "1.1.0" }] } });
    expect(parseHostConfig({ server_url: "ws://127.0.0.1/rpc", device_token: "t", builtin_apps: [{ ...app, version: "latest" }] })).toMatchObject({ ok: false, error: { path: "/builtin_apps/0" } });
    // Its names in other languages, as its manifest's `localized` gives them; anything else is refused.
    const localized = { "zh-CN": { name: "白板", description: "一起画画的白板。" } };
    expect(parseHostConfig({ server_url: "ws://127.0.0.1/rpc", device_token: "t", builtin_apps: [{ ...app, localized }] })).toMatchObject({ ok: true, value: { builtin_apps: [{ localized }] } });
    for (const bad of [{ zh_CN: { name: "白板" } }, { "zh-CN": { name: 7 } }, { "zh-CN": { title: "白板" } }, ["白板"]]) {
      expect(parseHostConfig({ server_url: "ws://127.0.0.1/rpc", device_token: "t", builtin_apps: [{ ...app, localized: bad }] }), JSON.stringify(bad)).toMatchObject({ ok: false, error: { path: "/builtin_apps/0" } });
    }
    // The host's local back-end service: a ws:// URL (the web host's server keeps the secret), with a hex secret only in
    // the desktop's own config file, or nothing.
    const local = { url: "ws://127.0.0.1:8788/local-backends" };
    expect(parseHostConfig({ server_url: "ws://127.0.0.1/rpc", device_token: "t", local_backends: local })).toEqual({ ok: true, value: expect.objectContaining({ local_backends: local }) });
    const desktop = { ...local, secret: "ab".repeat(32) };
    expect(parseHostConfig({ server_url: "ws://127.0.0.1/rpc", device_token: "t", local_backends: desktop })).toMatchObject({ ok: true, value: { local_backends: desktop } });
    expect(parseHostConfig({ server_url: "ws://127.0.0.1/rpc", device_token: "t" })).not.toHaveProperty("value.local_backends");
    for (const bad of [{ url: "http://127.0.0.1:8788/local-backends" }, { ...local, secret: "short" }, {}, "ws://x"]) {
      expect(parseHostConfig({ server_url: "ws://127.0.0.1/rpc", device_token: "t", local_backends: bad }), JSON.stringify(bad)).toMatchObject({ ok: false, error: { path: "/local_backends" } });
    }
  });

  it("reads the pairing endpoint's refusals: an unusable code, too many attempts (with the wait), anything else", async () => {
    const answering = (status: number, headers: Record<string, string> = {}): typeof fetch => async () => new Response(JSON.stringify({ error: { code: "x" } }), { status, headers });
    expect(await redeemPairingCode("ws://127.0.0.1:8787/rpc", "ABCD-EFGH", "d", answering(401))).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    expect(await redeemPairingCode("ws://127.0.0.1:8787/rpc", "ABCD-EFGH", "d", answering(429, { "retry-after": "6" }))).toMatchObject({ ok: false, error: { code: "rate_limited", retry_after_s: 6 } });
    expect(await redeemPairingCode("ws://127.0.0.1:8787/rpc", "ABCD-EFGH", "d", answering(503))).toMatchObject({ ok: false, error: { code: "failed" } });
  });

  it("names one profile per server and device, without revealing the token", () => {
    const a = profileName({ server_url: "ws://127.0.0.1:8787/rpc", device_token: "secret-one", agent_id: "x", workspace_id: "w" });
    const b = profileName({ server_url: "ws://127.0.0.1:8787/rpc", device_token: "secret-two", agent_id: "x", workspace_id: "w" });
    expect(a).toMatch(/^lineup-runtime:127\.0\.0\.1:8787:[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain("secret");
  });
});

describe("shell pieces", () => {
  it("notifications keep the latest few and expire each after its time", () => {
    const timers: (() => void)[] = [];
    const n = createNotifications({ max: 2, setTimer: (_ms, fn) => void timers.push(fn) });
    const seen: number[] = [];
    const off = n.subscribe((t) => seen.push(t.length));
    n.push("a");
    n.push("b", "error");
    n.push("c");
    expect(n.list().map((t) => t.text)).toEqual(["b", "c"]);
    timers[1]!();
    expect(n.list().map((t) => t.text)).toEqual(["c"]);
    off();
    n.push("d");
    expect(seen).toEqual([1, 2, 2, 1]);
  });

  it("a notification with an action stays until it is dismissed; one without goes after its time", () => {
    const timers: (() => void)[] = [];
    const n = createNotifications({ setTimer: (_ms, fn) => void timers.push(fn) });
    let reloads = 0;
    const id = n.push("Whiteboard stopped responding and was closed.", "error", { label: "Reload", run: () => (reloads += 1) });
    n.push("Saved.");
    expect(timers).toHaveLength(1); // only the plain one has a timer
    timers[0]!();
    expect(n.list().map((t) => [t.text, t.action?.label])).toEqual([["Whiteboard stopped responding and was closed.", "Reload"]]);
    n.list()[0]!.action!.run();
    expect(reloads).toBe(1);
    n.dismiss(id);
    expect(n.list()).toEqual([]);
  });

  it("describes every lifecycle state for the connection indicator", () => {
    expect(describeLifecycle({ status: "online", since: 1 })).toEqual({ label: "Online", tone: "ok" });
    expect(describeLifecycle({ status: "reconnecting", attempt: 2, since: 1 }).tone).toBe("warn");
    expect(describeLifecycle({ status: "offline_degraded", attempt: 3, since: 1, last_error: "unauthorized" }).label).toMatch(/sign-in refused/);
    expect(describeLifecycle({ status: "synchronizing" }).tone).toBe("busy");
  });
});

describe("conversation titles", () => {
  it("are the first message's words on one line, cut at a word boundary with an ellipsis", () => {
    expect(conversationTitle("  let's play   draw and guess\nwith animals ")).toBe("let's play draw and guess with animals");
    const long = conversationTitle("draw the release flow: Plan -> Build -> Test -> Ship -> Monitor -> Celebrate");
    expect(long).toBe("draw the release flow: Plan -> Build -> Test…");
    expect(long.length).toBeLessThanOrEqual(MAX_TITLE_LENGTH);
    // One very long word is cut inside it; trailing punctuation before the cut goes.
    expect(conversationTitle("a".repeat(80))).toBe(`${"a".repeat(MAX_TITLE_LENGTH - 1)}…`);
    expect(conversationTitle("what do you think about this, and also about that, and more?")).toBe("what do you think about this, and also about…");
    expect(conversationTitle(" \n ")).toBe("New conversation");
  });
});

describe("the chat's Files list", () => {
  const file = (n: number) => ({ artifact: { artifact_id: `art-${n}`, name: `f${n}.txt`, mime_type: "text/plain", size: n, sha256: "0".repeat(64) }, origin: "agent" as const, created_at: "2026-12-01T03:00:00.000Z", on_device: false }) as Parameters<typeof newestFiles>[0][number];
  it("shows the newest first, and says there are more only when the Runtime had one more than it shows", () => {
    expect(newestFiles([file(1), file(2), file(3)])).toEqual({ files: [file(3), file(2), file(1)], more: false });
    const exactly = Array.from({ length: SHOWN_FILES }, (_, i) => file(i + 1));
    expect(newestFiles(exactly).more).toBe(false);
    const oneMore = Array.from({ length: SHOWN_FILES + 1 }, (_, i) => file(i + 1));
    const shown = newestFiles(oneMore);
    expect(shown.more).toBe(true);
    expect(shown.files).toHaveLength(SHOWN_FILES);
    expect(shown.files[0]).toEqual(file(SHOWN_FILES + 1));
    expect(shown.files.at(-1)).toEqual(file(2));
  });

  it("says who shared each file: the agent, another device, an installed app by its name, a removed one by its scope", () => {
    const names = (scope: string) => (scope === "whiteboard" ? "Whiteboard" : undefined);
    expect(sharedBy(file(1), names)).toBe("from the agent");
    expect(sharedBy({ ...file(1), origin: "device" }, names)).toBe("from another of your devices");
    expect(sharedBy({ ...file(1), origin: "app", app_scope: "whiteboard" }, names)).toBe("from Whiteboard");
    expect(sharedBy({ ...file(1), origin: "app", app_scope: "voice" }, names)).toBe("from voice (not installed)");
  });
});

describe("the chat's status line", () => {
  it("says what the person's message waits for, and that the agent is not connected when the Runtime knows it", () => {
    const waiting = { state: "waiting_for_agent" } as const;
    expect(statusLine(waiting, true)).toBe("Sent · waiting for the agent");
    expect(statusLine(waiting, undefined)).toBe("Sent · waiting for the agent");
    expect(statusLine(waiting, false)).toBe("Sent · the agent is not connected: it gets your message when it connects");
    expect(statusLine(undefined, false)).toBe("The agent is not connected");
    expect(statusLine(undefined, true)).toBe("\u00a0");
    expect(statusLine(undefined, undefined)).toBe("\u00a0");
    // The agent's own word wins: it is working on something (a reply already on its way, say).
    expect(statusLine({ state: "thinking" }, false)).toBe("Thinking…");
    expect(statusLine({ state: "working", label: "Using Whiteboard" }, true)).toBe("Using Whiteboard");
  });
});

describe("the chat's list of conversations", () => {
  const summary = (id: string, created_at: string | undefined, app_scope = "chat") => ({ conversation_id: id, app_scope, agent_id: "a", workspace_id: "w", status: "live" as const, unread: 0, ...(created_at === undefined ? {} : { created_at }) });
  const ids = (list: readonly { conversation_id: string }[]) => list.map((c) => c.conversation_id);

  it("lists chat's conversations the most recently started first, those started together by id, undated ones last", () => {
    // As the Runtime keeps them: oldest first.
    const inOrder = [summary("old", undefined), summary("b", "2026-12-07T09:00:00.000Z"), summary("app", "2026-12-07T09:30:00.000Z", "whiteboard"), summary("c", "2026-12-07T10:00:00.000Z"), summary("d", "2026-12-07T10:00:00.000Z")];
    expect(ids(chatConversations(inOrder))).toEqual(["d", "c", "b", "old"]);
    // One out of place (a device clock out of step): sorted all the same.
    const misplaced = [inOrder[3]!, inOrder[0]!, inOrder[4]!, inOrder[1]!];
    expect(ids(chatConversations(misplaced))).toEqual(["d", "c", "b", "old"]);
    expect(ids(inOrder)).toEqual(["old", "b", "app", "c", "d"]);
  });

  it("lists first the conversations where something was said last, by when, then the others by when they were started", () => {
    const said = (id: string, created_at: string, active_at: string) => ({ ...summary(id, created_at), active_at });
    // As the Runtime keeps them: oldest started first.
    const kept = [
      said("first", "2026-12-07T08:00:00.000Z", "2026-12-07T11:00:00.000Z"),
      summary("quiet", "2026-12-07T09:00:00.000Z"),
      said("talked", "2026-12-07T09:30:00.000Z", "2026-12-07T09:45:00.000Z"),
      summary("new", "2026-12-07T10:00:00.000Z"),
      said("same-a", "2026-12-07T10:10:00.000Z", "2026-12-07T10:30:00.000Z"),
      said("same-b", "2026-12-07T10:20:00.000Z", "2026-12-07T10:30:00.000Z"),
    ];
    // Said in the same instant: by id, as conversations started together.
    expect(ids(chatConversations(kept))).toEqual(["first", "same-b", "same-a", "new", "talked", "quiet"]);
    expect(ids(kept)).toEqual(["first", "quiet", "talked", "new", "same-a", "same-b"]);
  });
});

describe("rowsInView (the windowed conversation list)", () => {
  it("is the rows a screen shows and twenty either side, within the list", () => {
    // 1,000 rows 44 px apart, the list 100 px into its column, a 440 px screen.
    expect(rowsInView(1000, 44, 100, 0, 440)).toEqual({ first: 0, last: 28 });
    expect(rowsInView(1000, 44, 100, 100 + 44 * 500, 440)).toEqual({ first: 480, last: 530 });
    expect(rowsInView(1000, 44, 100, 100 + 44 * 1000 - 440, 440)).toEqual({ first: 970, last: 1000 });
    expect(rowsInView(0, 44, 100, 0, 440)).toEqual({ first: 0, last: 0 });
  });
});

describe("indexOfCurrent (the conversation list's stop of the Tab key)", () => {
  const list = ["a", "b", "c"].map((id) => ({ conversation_id: id }) as ConversationSummary);
  it("is the row last focused, else the conversation on screen, else the newest", () => {
    expect(indexOfCurrent(list, "c", "b")).toBe(2);
    expect(indexOfCurrent(list, undefined, "b")).toBe(1);
    expect(indexOfCurrent(list, undefined, undefined)).toBe(0);
  });
  it("passes over a conversation no longer listed, and is -1 for an empty list", () => {
    expect(indexOfCurrent(list, "gone", "b")).toBe(1);
    expect(indexOfCurrent(list, "gone", "also gone")).toBe(0);
    expect(indexOfCurrent([], "a", "b")).toBe(-1);
  });
});
