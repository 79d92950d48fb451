/**
 * The MCP tests' world, all real parts: the reference AppServer (SQLite, ephemeral port, `/rpc` and `/mcp`),
 * a Node Runtime on SQLite with a signed app installed from its bundle, and one conversation with the dev
 * agent. The app `notes` has a query (`notes.count`) and a command that reports progress and waits
 * (`notes.slow`: the test releases it, or the call is cancelled).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import type { AppManifest, AppScope } from "@lineup/protocol";
import { generatePublisherKey, packBundle, signBundle, type LineUpRuntime } from "@lineup/runtime";
import { createNodeRuntime } from "@lineup/runtime/node";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import WebSocket, { WebSocketServer } from "ws";
import { slack } from "../../../test/support/soak.js";

export const CLI_BIN = resolve(import.meta.dirname, "..", "..", "cli", "src", "bin.ts");

export const NOTES: AppManifest = {
  format: "lineup.app.v1",
  app_scope: "notes" as AppScope,
  version: "1.0.0",
  name: "Notes",
  runtime_sdk: { api_version: "1", required_features: ["app.lifecycle.v1", "app.tools.v1"] },
  entrypoints: [{ id: "main", kind: "primary" }],
  tools: [
    {
      method: "notes.count",
      contract_version: "1",
      title: "Count notes",
      description: "How many notes carry a tag.",
      input_schema: { type: "object", properties: { tag: { type: "string" } }, additionalProperties: false },
      output_schema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"], additionalProperties: false },
      call_model: "query",
      activation_requirement: "activation_not_required",
    },
    {
      method: "notes.slow",
      contract_version: "1",
      title: "Tidy notes",
      description: "Tidies the notes, slowly.",
      input_schema: { type: "object", properties: {}, additionalProperties: false },
      output_schema: { type: "object", properties: { tidied: { type: "boolean" } }, required: ["tidied"] },
      call_model: "command",
      risk_level: "high",
      activation_requirement: "activation_not_required",
    },
  ],
};

export async function until(predicate: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + slack(ms);
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface World {
  readonly server: AppServerHandle;
  readonly runtime: LineUpRuntime;
  readonly sessionId: string;
  readonly agentToken: string;
  /** `notes.slow` calls the app is working on, by call id. */
  readonly slowCalls: Map<string, () => void>;
  /** Call ids the Runtime told the app to stop. */
  readonly cancelled: string[];
  /** Installs and enables another app, signed with the world's trusted key. */
  install(manifest: AppManifest): Promise<void>;
  close(): Promise<void>;
}

export async function startWorld(): Promise<World> {
  const dirs = [mkdtempSync(join(tmpdir(), "lineup-mcp-server-")), mkdtempSync(join(tmpdir(), "lineup-mcp-device-"))];
  const server = await startAppServer({ dataDir: dirs[0]!, port: 0, logger: silentLogger });
  const credentials = server.devCredentials!;
  const key = await generatePublisherKey();
  const runtime = await createNodeRuntime({
    serverUrl: server.url,
    token: credentials.device_token,
    dataDir: dirs[1]!,
    trustedPublishers: [key.trustedKey],
    backoff: { baseMs: 20, capMs: 200 },
    relistIntervalMs: 100,
  });
  await runtime.start();
  await runtime.whenOnline();
  const install = async (manifest: AppManifest): Promise<void> => {
    const packed = await packBundle({ manifest, files: new Map([["index.html", new TextEncoder().encode(`<!doctype html><title>${manifest.name}</title>`)]]) });
    if (!packed.ok) throw new Error(packed.error.message);
    const signed = await signBundle(packed.value, key.privateKey);
    if (!signed.ok) throw new Error(signed.error.message);
    const installed = await runtime.appManager.install(signed.value, { approved: true });
    if (installed.status !== "succeeded") throw new Error(`install: ${JSON.stringify(installed)}`);
  };
  await install(NOTES);

  const slowCalls = new Map<string, () => void>();
  const cancelled: string[] = [];
  const port = runtime.appPort("notes");
  port.registerToolHandler({
    call(call) {
      if (call.method === "notes.count") {
        void port.reportTool(call.call_id, { kind: "result", result: { count: call.arguments["tag"] === "work" ? 3 : 7 } });
        return;
      }
      void port.reportTool(call.call_id, { kind: "progress", progress: { stage: "tidying", progress: 0.5, message: "half way" } });
      slowCalls.set(call.call_id, () => {
        slowCalls.delete(call.call_id);
        void port.reportTool(call.call_id, { kind: "result", result: { tidied: true } });
      });
    },
    cancel(callId) {
      slowCalls.delete(callId);
      cancelled.push(callId);
    },
  });
  const { conversation_id: sessionId } = await runtime.conversations.start({ agent_id: "demo-agent", workspace_id: "ws-1", title: "mcp" });
  return {
    server,
    runtime,
    sessionId,
    agentToken: credentials.agent_token,
    slowCalls,
    cancelled,
    install,
    async close() {
      await runtime.stop();
      await server.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Carrier = "stdio" | "http";

/** An MCP client of the SDK connected to the session: through `lineup mcp` (stdio) or the AppServer's `/mcp`. */
export async function connectClient(carrier: Carrier, options: { readonly url: string; readonly httpUrl: string; readonly token: string; readonly session: string; readonly stderr?: string[] }): Promise<Client> {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  if (carrier === "stdio") {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--conditions=source", "--import", "tsx", CLI_BIN, "mcp", "--session", options.session, "--url", options.url, `--token=${options.token}`],
      stderr: "pipe",
    });
    // Kept whether or not the test asked for it: a child that ends during the handshake says why in the error.
    const stderr = options.stderr ?? [];
    transport.stderr?.on("data", (chunk: Buffer) => stderr.push(String(chunk)));
    try {
      await client.connect(transport);
    } catch (error) {
      throw new Error(`lineup mcp did not start: ${error instanceof Error ? error.message : String(error)}\n${stderr.join("")}`, { cause: error });
    }
  } else {
    const transport = new StreamableHTTPClientTransport(new URL(`${options.httpUrl}/mcp?session=${encodeURIComponent(options.session)}`), {
      requestInit: { headers: { authorization: `Bearer ${options.token}` } },
    });
    await client.connect(transport);
  }
  return client;
}

/** A WebSocket proxy in front of the AppServer whose frames towards the client can be held, then let go in order. */
export async function startHoldingProxy(target: string): Promise<{ readonly url: string; hold(): void; release(): void; close(): Promise<void> }> {
  let held: (() => void)[] | undefined;
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  wss.on("connection", (client) => {
    const upstream = new WebSocket(target);
    const early: string[] = [];
    upstream.on("open", () => early.splice(0).forEach((frame) => upstream.send(frame)));
    client.on("message", (data) => (upstream.readyState === WebSocket.OPEN ? upstream.send(String(data)) : early.push(String(data))));
    upstream.on("message", (data) => {
      const deliver = (): void => void (client.readyState === WebSocket.OPEN && client.send(String(data)));
      if (held === undefined) deliver();
      else held.push(deliver);
    });
    client.on("close", () => upstream.close());
    upstream.on("close", () => client.close());
    upstream.on("error", () => client.close());
  });
  await new Promise((r) => wss.once("listening", r));
  return {
    url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}/rpc`,
    hold: () => void (held ??= []),
    release: () => {
      const frames = held ?? [];
      held = undefined;
      for (const deliver of frames) deliver();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const socket of wss.clients) socket.terminate();
        wss.close(() => r());
      }),
  };
}
