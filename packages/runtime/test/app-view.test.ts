/**
 * Spec 6.1: an installed app reads a view model cut to its scope — the conversations it serves (where it
 * has a live instance) — never the whole Runtime state; a core app (chat) reads everything. A view made after a
 * commit that changed no conversation's summary gives the same list, so a listener can tell by reference.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { withConversation, type Conversation, type RuntimeState } from "../src/coordination/state.js";
import type { RuntimeView } from "../src/runtime.js";
import { PersistentMap } from "../src/core/persistent-map.js";
import { appView, toView, viewsOf, type ConversationSummary } from "../src/runtime.js";
import { state } from "./helpers/loop-fixtures.js";
import { whiteboardManifest } from "./apps-fixtures.js";
import { device, signedBundle } from "./helpers/apps-harness.js";
import { FakeAppServer, until, type Device } from "./helpers/runtime-harness.js";

let devices: Device[] = [];
afterEach(async () => {
  for (const d of devices) await d.stop();
  devices = [];
});

describe("an app's view of the Runtime state", () => {
  it("lists only the conversations the installed app has a live instance in; chat lists them all", async () => {
    const server = new FakeAppServer();
    for (const id of ["s-1", "s-2"]) server.createSession({ session_id: id, agent_id: "agent-1" });
    const d = await device(server);
    devices.push(d);
    await d.runtime.whenOnline();
    expect((await d.runtime.appManager.install(await signedBundle(whiteboardManifest()), { approved: true })).status).toBe("succeeded");
    const ids = (appScope: string) => d.runtime.appPort(appScope).view().conversations.map((c) => c.conversation_id).sort();
    await until(() => ids("chat").length === 2, 5_000, "both conversations followed");
    expect(ids("whiteboard")).toEqual([]);

    const seen: string[][] = [];
    const off = d.runtime.appPort("whiteboard").subscribeView((view) => seen.push(view.conversations.map((c) => c.conversation_id)));
    const instance = await d.runtime.appManager.launch({ app_scope: "whiteboard", conversation_id: "s-2" });
    await d.runtime.instances.ready(instance.instance_id);
    expect(ids("whiteboard")).toEqual(["s-2"]);
    expect(ids("chat")).toEqual(["s-1", "s-2"]);
    expect(seen.at(-1)).toEqual(["s-2"]);

    await d.runtime.appManager.closeInstance(instance.instance_id);
    await d.runtime.instances.closed(instance.instance_id);
    await until(() => ids("whiteboard").length === 0, 5_000, "the conversation gone from the board's view");
    off();
  });

  it("gives the same list after a change that only moved a cursor, and keeps the unchanged summaries when one changes", () => {
    const online: RuntimeState = { ...state, lifecycle: { status: "online", since: 0 } };
    const live = (id: string): Conversation => ({ conversation_id: id, app_scope: "chat", agent_id: "agent-1", workspace_id: "w-1", origin: "server", cursor: 3, following: { status: "live" }, unread: 0 });
    const three: RuntimeState = { ...online, conversations: PersistentMap.of(["s-1", "s-2", "s-3"].map((id) => [id, live(id)] as const)) };
    const first = toView(three);
    const moved = withConversation(three, { ...three.conversations.get("s-1")!, cursor: 9 });
    expect(toView(moved, first).conversations).toBe(first.conversations);

    const told = withConversation(moved, { ...moved.conversations.get("s-2")!, unread: 1 });
    const after = toView(told, first).conversations;
    expect(after).not.toBe(first.conversations);
    expect(after.map((c) => c.conversation_id)).toEqual(["s-1", "s-2", "s-3"]);
    expect(after[0]).toBe(first.conversations[0]);
    expect(after[1]).toMatchObject({ conversation_id: "s-2", unread: 1, status: "live" });
    expect(after[2]).toBe(first.conversations[2]);

    // Offline, every summary says so: none is kept.
    const offline = toView({ ...told, lifecycle: { status: "reconnecting", attempt: 1, since: 0 } }, toView(told, first));
    expect(offline.conversations.map((c) => c.status)).toEqual(["catching_up", "catching_up", "catching_up"]);
    // A conversation added goes last, the others kept.
    const four = toView(withConversation(told, live("s-4")), toView(told, first));
    expect(four.conversations.map((c) => c.conversation_id)).toEqual(["s-1", "s-2", "s-3", "s-4"]);
    expect(four.conversations[0]).toBe(after[0]);
  });

  it("makes a view's conversations when they are read, on the list read last: the views nobody reads cost nothing and hold nothing up", () => {
    const online: RuntimeState = { ...state, lifecycle: { status: "online", since: 0 } };
    const live = (id: string): Conversation => ({ conversation_id: id, app_scope: "chat", agent_id: "agent-1", workspace_id: "w-1", origin: "server", cursor: 3, following: { status: "live" }, unread: 0 });
    const viewOf = viewsOf();
    let next: RuntimeState = { ...online, conversations: PersistentMap.of(Array.from({ length: 1000 }, (_, i) => [`s-${i}`, live(`s-${i}`)] as const)) };
    const first = viewOf(next).conversations;
    // A thousand commits, each telling one conversation something, whose views nobody reads.
    const unread: RuntimeView[] = [];
    const made = vi.spyOn(PersistentMap.prototype, "mapInOrder");
    for (let i = 0; i < 1000; i++) {
      next = withConversation(next, { ...next.conversations.get(`s-${i}`)!, unread: 1 });
      unread.push(viewOf(next));
      expect(unread.at(-1)!.lifecycle.status).toBe("online");
    }
    expect(made).not.toHaveBeenCalled();
    made.mockRestore();
    const last = viewOf(next).conversations;
    expect(last.every((c) => c.unread === 1)).toBe(true);
    // Read late, a view says what its state said, and keeps the summaries that did not change since the list read last.
    const middle = unread[499]!.conversations;
    expect(middle.filter((c) => c.unread === 1)).toHaveLength(500);
    expect(middle[999]).toEqual(first[999]);
    expect(middle[0]).toBe(last[0]);
    // The same state gives the same view.
    expect(viewOf(next).conversations).toBe(last);
  });

  it("makes an installed app's conversations and queued count when they are read: a listener of its lifecycle alone walks no list", () => {
    const online: RuntimeState = { ...state, lifecycle: { status: "online", since: 0 } };
    const live = (id: string, appScope: string): Conversation => ({ conversation_id: id, app_scope: appScope, agent_id: "agent-1", workspace_id: "w-1", origin: "server", cursor: 3, following: { status: "live" }, unread: 0 });
    const viewOf = viewsOf();
    let next: RuntimeState = { ...online, conversations: PersistentMap.of(Array.from({ length: 1000 }, (_, i) => [`s-${i}`, live(`s-${i}`, i % 100 === 0 ? "whiteboard" : "chat")] as const)) };
    let list: readonly ConversationSummary[] | undefined;
    const cut = (s: RuntimeState) => appView(viewOf(s), s, "whiteboard", () => list, (made) => (list = made));
    const first = cut(next).conversations;
    expect(first.map((c) => c.conversation_id)).toEqual(Array.from({ length: 10 }, (_, i) => `s-${i * 100}`));
    const made = vi.spyOn(PersistentMap.prototype, "mapInOrder");
    const walked = vi.spyOn(next.outbox, "values");
    const views: RuntimeView[] = [];
    for (let i = 0; i < 1000; i++) {
      next = withConversation(next, { ...next.conversations.get(`s-${i}`)!, cursor: 4 });
      views.push(cut(next));
      expect(views.at(-1)!.lifecycle.status).toBe("online");
    }
    expect(made).not.toHaveBeenCalled();
    // Once per commit, the full view's own walk for its failed actions; none of the app's for its queued count.
    expect(walked).toHaveBeenCalledTimes(1000);
    made.mockRestore();
    walked.mockRestore();
    // Read late, a view says what its state said; only cursors moved, so the list is the one read before.
    expect(views[500]!.conversations).toBe(first);
    expect(views[500]!.queued_actions).toBe(0);
    // One of its conversations told something: a new list, its other summaries kept.
    next = withConversation(next, { ...next.conversations.get("s-200")!, unread: 2 });
    const after = cut(next).conversations;
    expect(after).not.toBe(first);
    expect(after[2]).toMatchObject({ conversation_id: "s-200", unread: 2 });
    expect(after[0]).toBe(first[0]);
  });
});
