/** The signed app of the tool benches: one query tool, `board.summary`, that needs no activation. */
import type { AppManifest } from "@lineup/protocol";
import { packBundle, signBundle, type PublisherKey } from "@lineup/runtime";
import { createNodeRuntime, type NodeRuntime } from "@lineup/runtime/node";

export const APP = "whiteboard";
export const METHOD = "board.summary";

/** `extra`: more features the app requires, and its agent task entries (the tasks suite). */
export async function signedApp(key: PublisherKey, extra: { readonly features?: readonly string[]; readonly agent_tasks?: AppManifest["agent_tasks"] } = {}): Promise<Uint8Array> {
  const packed = await packBundle({
    manifest: {
      format: "lineup.app.v1",
      app_scope: APP,
      version: "1.0.0",
      runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1", ...(extra.features ?? [])] },
      entrypoints: [{ id: "canvas", kind: "primary", default_eligible: true }],
      tools: [{ method: METHOD, contract_version: "1", input_schema: { type: "object" }, output_schema: { type: "object" }, call_model: "query", activation_requirement: "activation_not_required" }],
      ...(extra.agent_tasks === undefined ? {} : { agent_tasks: extra.agent_tasks }),
    },
    files: new Map([["index.html", new TextEncoder().encode("<!doctype html><title>board</title>")]]),
  });
  if (!packed.ok) throw new Error(`pack: ${packed.error.message}`);
  const signed = await signBundle(packed.value, key.privateKey);
  if (!signed.ok) throw new Error(`sign: ${signed.error.message}`);
  return signed.value;
}

/**
 * A Node Runtime (SQLite in `dataDir`) online at `serverUrl` with the bench app installed, its tool answering
 * `{ shapes: 3 }` at once, and a conversation with the demo agent started.
 */
export async function startToolDevice(options: { readonly serverUrl: string; readonly token: string; readonly dataDir: string; readonly publisher: PublisherKey; readonly title: string }): Promise<{ readonly runtime: NodeRuntime; readonly sessionId: string }> {
  const runtime = await createNodeRuntime({ serverUrl: options.serverUrl, token: options.token, dataDir: options.dataDir, relistIntervalMs: 0, trustedPublishers: [options.publisher.trustedKey] });
  await runtime.start();
  await runtime.whenOnline();
  const operation = await runtime.appManager.install(await signedApp(options.publisher), { approved: true });
  if (operation.status !== "succeeded") throw new Error(`install: ${JSON.stringify(operation.error)}`);
  const port = runtime.appPort(APP);
  port.registerToolHandler({
    call(call) {
      void port.reportTool(call.call_id, { kind: "result", result: { shapes: 3 } });
    },
    cancel() {},
  });
  const { conversation_id: sessionId } = await runtime.conversations.start({ agent_id: "demo-agent", workspace_id: "w-bench", title: options.title });
  return { runtime, sessionId };
}
