import { describe, expect, it, vi } from "vitest";
import type { AppPort, ConversationSummary, RuntimeView } from "@lineup/runtime";
import { createAppSdk, type AppStateChange } from "../src/index.js";

/**
 * `state.subscribe`'s change flags when a person follows many conversations. The Runtime keeps an unchanged
 * summary's object from one view to the next; the SDK compares by reference first and reads the content of the
 * summaries that are new objects only.
 */
const summary = (n: number, patch: Partial<ConversationSummary> = {}): ConversationSummary => ({ conversation_id: `c-${n}`, app_scope: "chat", agent_id: "agent-1", workspace_id: "w-1", title: `Conversation ${n}`, status: "live", unread: 0, ...patch });

function viewWith(conversations: readonly ConversationSummary[], before?: RuntimeView): RuntimeView {
  return { lifecycle: before?.lifecycle ?? { status: "online", since: 1 }, connection: "online", conversations, failed_actions: [], queued_actions: 0, default_app: "chat" } as RuntimeView;
}

/** A port that gives the views a test pushes, and nothing else. */
function portOf(first: RuntimeView): { port: AppPort; push(view: RuntimeView): void } {
  let current = first;
  const listeners = new Set<(view: RuntimeView) => void>();
  const port = {
    app_scope: "chat",
    record: { kind: "core", installed_version: "1.0.0" },
    view: () => current,
    subscribeView(listener: (view: RuntimeView) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return {
    port: port as unknown as AppPort,
    push(view) {
      current = view;
      for (const listener of listeners) listener(view);
    },
  };
}

/** An SDK over a port whose view lists 1,000 conversations, with a listener keeping every change it is told. */
function subscribedToThousand(): { first: RuntimeView; push(view: RuntimeView): void; changes: AppStateChange[] } {
  const first = viewWith(Array.from({ length: 1000 }, (_, n) => summary(n)));
  const { port, push } = portOf(first);
  const changes: AppStateChange[] = [];
  createAppSdk(port).state.subscribe((_view, change) => changes.push(change));
  return { first, push, changes };
}

describe("the SDK's view changes with a thousand conversations", () => {
  it("says the conversations changed exactly when one summary says something else", () => {
    const { first, push, changes } = subscribedToThousand();

    // The same list (a commit that moved a cursor only).
    push(viewWith(first.conversations, first));
    // A new list holding the same objects.
    push(viewWith([...first.conversations], first));
    // A new object for one conversation that says the same.
    const same = [...first.conversations];
    same[500] = summary(500);
    push(viewWith(same, first));
    // One conversation's unread count.
    const unread = [...same];
    unread[999] = summary(999, { unread: 1 });
    push(viewWith(unread, first));
    // A conversation more.
    push(viewWith([...unread, summary(1000)], first));
    // One less.
    push(viewWith(unread.slice(1), first));
    // Two swapped.
    const swapped = [...unread];
    [swapped[0], swapped[1]] = [swapped[1]!, swapped[0]!];
    push(viewWith(swapped, first));

    expect(changes.map((change) => change.conversations)).toEqual([false, false, false, true, true, true, true]);
    expect(changes.every((change) => !change.lifecycle && !change.actions)).toBe(true);
  });

  it("compares the conversations only when a listener reads that flag, and once", () => {
    const { first, push, changes } = subscribedToThousand();
    // Every summary a new object that says the same: telling needs their content.
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      push(viewWith(first.conversations.map((c) => ({ ...c })), first));
      expect(stringify).not.toHaveBeenCalled();
      expect(changes[0]!.conversations).toBe(false);
      const calls = stringify.mock.calls.length;
      expect(calls).toBeGreaterThan(0);
      expect(changes[0]!.conversations).toBe(false);
      expect(stringify.mock.calls.length).toBe(calls);
    } finally {
      stringify.mockRestore();
    }
  });
});
