import { describe, expect, it } from "vitest";
import { createRuntime, createMemoryStore, RUNTIME_SCHEMA, type AgentAppMessage, type RuntimeView } from "@lineup/runtime";
import { createFakeClock, createSequentialIds, FakeAppServer } from "@lineup/runtime/testing";
import { createAppSdk, type AppStateChange } from "../src/index.js";

async function until(predicate: () => boolean, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function setup() {
  const server = new FakeAppServer();
  server.createSession({ session_id: "s-1", agent_id: "agent-1", title: "First" });
  const store = await createMemoryStore(RUNTIME_SCHEMA);
  const runtime = createRuntime({ store, transport: server.transport, serverUrl: "mem://", token: server.deviceToken, clock: createFakeClock(), ids: createSequentialIds(), relistIntervalMs: 0 });
  const sdk = createAppSdk(runtime.appPort("chat"));
  return { server, store, runtime, sdk };
}

describe("@lineup/app-sdk (chat surface of spec 6)", () => {
  it("gives the app its context and a view model that follows the lifecycle and conversations", async () => {
    const { runtime, sdk, store } = await setup();
    expect(sdk.app).toMatchObject({ app_scope: "chat", kind: "core", instance_id: "chat:main" });
    const views: [RuntimeView, AppStateChange][] = [];
    await runtime.start();
    const off = sdk.state.subscribe((view, change) => views.push([view, change]));
    await runtime.whenOnline();
    await until(() => sdk.state.snapshot().conversations[0]?.status === "live");
    expect(sdk.state.snapshot()).toMatchObject({ connection: "online", default_app: "chat", conversations: [{ conversation_id: "s-1", title: "First", unread: 0 }] });
    expect(views.some(([view, change]) => change.lifecycle && view.lifecycle.status === "online")).toBe(true);
    off();
    await runtime.stop();
    await store.close();
  });

  it("lists, subscribes, acknowledges and dispatches through the Runtime", async () => {
    const { server, runtime, sdk, store } = await setup();
    await runtime.start();
    await runtime.whenOnline();
    const seen: AgentAppMessage[] = [];
    const off = sdk.agentMessages.subscribe({ conversation_id: "s-1", types: ["lineup.message", "lineup.action.required"] }, (m) => void seen.push(m));
    server.agentSays("s-1", "hello");
    server.agentRequestsAction("s-1", { action_id: "a-1", kind: "approval", prompt: "OK?" });
    await until(() => seen.length === 2);
    const receipt = await sdk.actions.dispatch({ type: "interaction.answer", conversation_id: "s-1", message_id: seen[1]!.message_id, response: { outcome: "approved" } });
    expect(receipt.status).toBe("queued");
    await sdk.actions.dispatch({ type: "conversation.send_text", conversation_id: "s-1", text: "thanks" });
    const started = await sdk.actions.dispatch({ type: "conversation.start", agent_id: "agent-1", workspace_id: "w-1" });
    await until(() => server.sessions.has(started.conversation_id));
    await until(() => server.turnTexts("s-1").length === 1);
    const page = await sdk.agentMessages.list({ conversation_id: "s-1" });
    expect(page.messages.map((m) => m.type)).toEqual(["lineup.message", "lineup.action.required", "lineup.action.responded", "lineup.message"]);
    await expect(sdk.agentMessages.acknowledge("s-1:999")).rejects.toMatchObject({ code: "not_found" });
    off();
    await runtime.stop();
    await store.close();
  });
});
