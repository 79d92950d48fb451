/**
 * One agent tool call on an AppServer in this process (which enables LineUp's spans, as the agent SDK's Node
 * connectAgent does), with OpenTelemetry's real SDK registered as an
 * application registers it (a BasicTracerProvider with an InMemorySpanExporter, and the AsyncLocalStorage
 * context manager). Prints the finished spans as one JSON line for tracing.test.ts to judge.
 *
 * Its own process because the test runner loads packages with the "module" export condition, and
 * OpenTelemetry's "module" builds import without file extensions, which Node cannot load.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { RpcClient } from "@lineup/agent-sdk";
import { connectAgent, nodeWebSocketTransport } from "@lineup/agent-sdk/node";
import { createTestRuntime } from "@lineup/app-sdk/testkit";
import { APP_SERVER_PROTOCOL_VERSION, LineUpError, type AppManifest, type AppScope } from "@lineup/protocol";
import { silentLogger, startAppServer } from "../../src/index.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);

const WHITEBOARD = {
  app_scope: "whiteboard",
  method: "board.create",
  contract_version: "1",
  title: "Create a board",
  description: "Opens a new whiteboard",
  input_schema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
  call_model: "interactive",
};

const NOTES: AppManifest = {
  format: "lineup.app.v1",
  app_scope: "notes" as AppScope,
  version: "1.0.0",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", "app.session-data.v1"] },
  entrypoints: [{ id: "main", kind: "primary", default_eligible: true }],
  tools: [
    { method: "notes.count", contract_version: "1", input_schema: { type: "object" }, output_schema: { type: "object" }, call_model: "query", activation_requirement: "activation_not_required" },
    { method: "notes.do", contract_version: "1", input_schema: { type: "object" }, output_schema: { type: "object" }, call_model: "command", activation_requirement: "activation_not_required" },
  ],
};

const until = async (condition: () => boolean, what: string): Promise<void> => {
  for (const started = Date.now(); !condition(); await new Promise((r) => setTimeout(r, 10))) {
    if (Date.now() - started > 30_000) throw new Error(`timed out waiting for ${what}`);
  }
};

const dataDir = mkdtempSync(join(tmpdir(), "lineup-tracing-"));
const server = await startAppServer({ dataDir, port: 0, logger: silentLogger });
try {
  const device = new RpcClient(await nodeWebSocketTransport().connect(server.url));
  await device.request("initialize", { protocol_version: APP_SERVER_PROTOCOL_VERSION, client_info: { name: "tracing-device" }, token: server.devCredentials!.device_token });
  device.notify("initialized");
  await device.request("agentSession/start", { idempotency_key: "start-1", session_id: "s-trace", app_scope: "chat", workspace_id: "w-1", agent_id: "demo-agent" });
  await device.request("inventory/publish", { session_id: "s-trace", idempotency_key: "inv-1", revision: 1, tools: [WHITEBOARD] });
  const agent = await connectAgent({ url: server.url, token: server.devCredentials!.agent_token, sessionPollMs: 50 });
  await until(() => agent.inventory("s-trace")?.revision === 1, "the agent to see the inventory");
  exporter.reset();

  const call = agent.invokeTool("s-trace", "board.create", { title: "ideas" }, { appScope: "whiteboard" });
  const outcome = call.result.then(
    () => "succeeded",
    (error: unknown) => (error instanceof LineUpError ? error.code : "threw"),
  );
  await until(() => exporter.getFinishedSpans().some((s) => s.attributes["lineup.call_id"] === call.callId), "the agent's request span");
  const envelope = {
    v: 1,
    id: "dev-env-1",
    type: "lineup.tool.error",
    timestamp: new Date().toISOString(),
    sender: { kind: "runtime", id: "dev-device" },
    target: { kind: "runtime", app_scope: "runtime" },
    scope: { app_scope: "whiteboard", conversation_id: "s-trace" },
    correlation: { call_id: call.callId },
    payload: { code: "app_disabled", message: "whiteboard is disabled" },
  };
  await device.request("agentSession/envelope/send", { session_id: "s-trace", idempotency_key: envelope.id, envelope });
  const ended = await outcome;
  // A refused request: both ends' spans carry the refusal.
  const refused = await agent.refreshInventory("s-missing").then(
    () => "answered",
    (error: unknown) => (error instanceof LineUpError ? error.code : "threw"),
  );
  await agent.close();
  device.close();

  // The Runtime's side of a tool call: a testkit Runtime in this process (its tool hub reports to the same
  // tracer), one app tool that succeeds and one whose handler refuses.
  const kit = await createTestRuntime({ apps: [{ manifest: NOTES }] });
  const sdk = kit.sdk("notes");
  sdk.tools.register("notes.count", () => ({ count: 1 }));
  sdk.tools.register("notes.do", () => {
    throw new LineUpError("invalid_params", "nothing to do");
  });
  const runtimeCalls = { ok: await kit.agent.call("notes", "notes.count", {}), refused: await kit.agent.call("notes", "notes.do", {}) };
  await kit.stop();

  const spans = exporter.getFinishedSpans().map((s) => ({
    name: s.name,
    kind: s.kind,
    traceId: s.spanContext().traceId,
    spanId: s.spanContext().spanId,
    parentSpanId: s.parentSpanContext?.spanId,
    links: s.links.map((l) => l.context.spanId),
    status: s.status.code,
    attributes: s.attributes,
  }));
  const runtime = { ok: runtimeCalls.ok.call_id, refused: runtimeCalls.refused.call_id, refusedCode: runtimeCalls.refused.error?.code };
  process.stdout.write(`${JSON.stringify({ callId: call.callId, ended, refused, runtime, spans })}\n`);
} finally {
  await server.close();
  await provider.shutdown();
  rmSync(dataDir, { recursive: true, force: true });
}
