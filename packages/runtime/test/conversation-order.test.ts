/**
 * The order of a person's conversations: the order they were started in, on every device and across restarts.
 * The AppServer lists sessions newest first, and the store gives records back by key (a conversation id); the
 * Runtime adds a listed conversation it did not know oldest first, and restores them by their start time, so
 * `conversations.list()` and the views list them oldest first, each with `created_at`.
 */
import { describe, expect, it } from "vitest";
import { createMemoryStore, createRuntime, RUNTIME_SCHEMA } from "../src/index.js";
import { createFakeClock, createSequentialIds, FakeAppServer } from "../src/testing/index.js";
import { until } from "../../../test/support/temp-dirs.js";

describe("the order of conversations", () => {
  it("is the order they were started in: listed from the server, started here, and after a restart", async () => {
    const server = new FakeAppServer();
    // Ids that sort against their start: by key, "zeta" would come last and "alpha" first.
    for (const id of ["zeta", "mid", "alpha"]) server.createSession({ session_id: id, agent_id: "agent-1", title: id });
    const store = await createMemoryStore(RUNTIME_SCHEMA);
    // This device's clock is after the server's sessions were started.
    const options = { store, transport: server.transport, serverUrl: "mem://", token: server.deviceToken, clock: createFakeClock(Date.UTC(2026, 11, 1)), ids: createSequentialIds(), relistIntervalMs: 0 };
    const first = createRuntime(options);
    await first.start();
    await first.whenOnline();
    const started = await first.conversations.start({ agent_id: "agent-1", workspace_id: "w-1", title: "started here" });
    const listed = first.conversations.list();
    expect(listed.map((c) => c.title)).toEqual(["zeta", "mid", "alpha", "started here"]);
    expect(listed.every((c) => typeof c.created_at === "string")).toBe(true);
    expect(listed.map((c) => c.created_at)).toEqual([...listed.map((c) => c.created_at)].sort());
    await until(() => server.sessions.has(started.conversation_id), 3_000, "the conversation started on the server");
    await first.stop();

    const again = createRuntime({ ...options, ids: createSequentialIds({ run: "again" }) });
    await again.start();
    expect(again.conversations.list().map((c) => c.title)).toEqual(["zeta", "mid", "alpha", "started here"]);
    await again.whenOnline();
    expect(again.conversations.list().map((c) => c.title)).toEqual(["zeta", "mid", "alpha", "started here"]);
    await again.stop();
    await store.close();
  });
});
