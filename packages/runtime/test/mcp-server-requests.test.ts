import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { McpError, type ElicitRequestFormParams } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { AppManifest, AppScope, JsonObject } from "@lineup/protocol";
import { manifestFromMcp, NO_HOST_CAPABILITIES, type ElicitationAnswer, type ElicitationPrompt, type HostProvider, type RuntimeOptions } from "../src/index.js";
import { createMcpHttpRunner } from "../src/node/index.js";
import { agentInvokes, onlineDevice, publishedInventories, signedBundle, toolOutputs } from "./helpers/apps-harness.js";
import { until, type Device } from "./helpers/runtime-harness.js";

// Issue 22 §2: what an app's MCP server asks of its host while it works. `elicitation/create` becomes the shell's
// question for the person (`HostProvider.elicit`), whose answer — accept with content, decline, cancel — is the
// server's MCP result; a person who never answers is `expired`, not a hang. `sampling/createMessage` is refused
// `policy_denied` unless the app policy names the app. The server is the SDK's own `McpServer` over Streamable HTTP.

/** What the server's tool saw of its request to the host: the result, or the MCP error's code. */
const SEEN = { type: "object" } as const;

const VIEW_URI = "ui://booking/table.html";
const VIEW_ORIGIN = "https://api.booking.example";
const LATE_ORIGIN = "https://late.booking.example";

/** A stateful Streamable HTTP MCP server (the SDK's `McpServer`) whose tools ask the client. */
async function askingServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const outcome = async (ask: () => Promise<unknown>) => {
    try {
      const result = (await ask()) as Record<string, unknown>;
      return { content: [{ type: "text" as const, text: JSON.stringify(result) }], structuredContent: { result } };
    } catch (error) {
      const code = error instanceof McpError ? (error.data as { code?: string } | undefined)?.code : undefined;
      return { content: [{ type: "text" as const, text: String(error) }], structuredContent: { error: code ?? "none", message: error instanceof Error ? error.message : "" } };
    }
  };
  const build = (): McpServer => {
    const mcp = new McpServer({ name: "booking", version: "1.0.0" });
    const form: ElicitRequestFormParams = {
      mode: "form",
      message: "Which table do you want?",
      requestedSchema: { type: "object", properties: { seats: { type: "integer", minimum: 1, maximum: 12 }, terrace: { type: "boolean" } }, required: ["seats"] },
    };
    // Its view declares the origins it would reach (`_meta.ui.csp`); the host keeps them from the view without a grant.
    // LATE_ORIGIN came after the bundle was made: the manifest does not declare it, so it is never asked for nor granted.
    mcp.registerResource("table", VIEW_URI, { mimeType: "text/html;profile=mcp-app" }, () => ({
      contents: [{ uri: VIEW_URI, mimeType: "text/html;profile=mcp-app", text: "<!doctype html><p>Your table</p>", _meta: { ui: { csp: { connectDomains: [VIEW_ORIGIN, LATE_ORIGIN], resourceDomains: [] } } } }],
    }));
    mcp.registerTool("book", { description: "Asks its client.", _meta: { ui: { resourceUri: VIEW_URI } } }, (extra) =>
      outcome(() => mcp.server.elicitInput(form, { relatedRequestId: extra.requestId })),
    );
    mcp.registerTool("think", { description: "Asks its client." }, (extra) =>
      outcome(() => mcp.server.createMessage({ messages: [{ role: "user", content: { type: "text", text: "Name a colour." } }], maxTokens: 20 }, { relatedRequestId: extra.requestId })),
    );
    return mcp;
  };
  const http: Server = createServer((req, res) => {
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? transports.get(id) : undefined;
    if (known !== undefined) return void known.handleRequest(req, res);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void transports.set(sid, transport) });
    void build()
      .connect(transport)
      .then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: async () => {
      for (const t of transports.values()) await t.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function bookingManifest(url: string): AppManifest {
  const generated = manifestFromMcp({
    app_scope: "booking" as AppScope,
    version: "1.0.0",
    name: "Booking",
    entry: "unused.js",
    tools: ["book", "think"].map((name) => ({ name, inputSchema: { type: "object" }, outputSchema: SEEN, ...(name === "book" ? { _meta: { ui: { resourceUri: VIEW_URI } } } : {}) })),
    // What `lineup app from-mcp` read from the view when the bundle was made.
    views: { [VIEW_URI]: { connect_domains: [VIEW_ORIGIN], resource_domains: [] } },
    call_timeout_ms: 2_500,
  });
  const { entry: _entry, runtime: _runtime, ...backend } = generated.backends![0]!;
  return {
    ...generated,
    execution: { mode: "server-assisted", endpoints: [{ id: "booking", url, purpose: "Books tables." }], data_boundary: "The booking." },
    backends: [{ ...backend, plane: "cloud-remote", protocol: "mcp-http", endpoint: "booking" }],
  };
}

describe("an MCP back-end's requests to its host", () => {
  let d: Device | undefined;
  let server: Awaited<ReturnType<typeof askingServer>> | undefined;
  afterEach(async () => {
    await d?.stop();
    d = undefined;
    await server?.close();
    server = undefined;
  });

  /** The person, as the shell's question card: each question is answered by `answer` (or never). */
  const person = (answer: (prompt: ElicitationPrompt) => Promise<ElicitationAnswer> | undefined) => {
    const asked: { prompt: ElicitationPrompt; withdrawn: () => boolean }[] = [];
    const host: HostProvider = {
      ...NO_HOST_CAPABILITIES,
      elicit(prompt, signal) {
        asked.push({ prompt, withdrawn: () => signal.aborted });
        return answer(prompt) ?? new Promise<never>(() => undefined);
      },
    };
    return { host, asked };
  };

  const start = async (extra: Partial<RuntimeOptions>) => {
    server = await askingServer();
    const online = await onlineDevice({ extra: { backends: { "mcp-http": createMcpHttpRunner }, ...extra } });
    d = online.d;
    expect(await online.d.runtime.appManager.install(await signedBundle(bookingManifest(server.url)), { approved: true })).toMatchObject({ status: "succeeded" });
    await until(() => publishedInventories(online.server).some((i) => i.methods.includes("booking/booking.think")), 5_000, "the inventory");
    let calls = 0;
    /** The agent calls `booking.<tool>`; resolves with what the server's tool saw (its `structuredContent`). */
    return async (tool: string): Promise<JsonObject> => {
      const callId = `call-${++calls}`;
      agentInvokes(online.server, callId, "booking", `booking.${tool}`, {}, publishedInventories(online.server).at(-1)!.revision);
      const terminal = () => toolOutputs(online.server, callId).find(([type]) => type === "lineup.tool.result" || type === "lineup.tool.error");
      await until(() => terminal() !== undefined, 20_000, `the end of ${tool}`);
      const [type, payload] = terminal()!;
      expect([type, payload["message"]]).toEqual(["lineup.tool.result", undefined]);
      return (payload["result"] as { structuredContent: JsonObject }).structuredContent;
    };
  };

  it("asks the person the server's question; the answer (accept with content, decline, cancel) is the server's result", async () => {
    const answers: ElicitationAnswer[] = [{ action: "accept", content: { seats: 4, terrace: true } }, { action: "decline" }, { action: "cancel" }];
    // The person first takes longer than the call's own limit (2.5 s): the limit waits while they are asked.
    const { host, asked } = person(() => new Promise((resolve) => setTimeout(() => resolve(answers.shift()!), answers.length === 3 ? 3_000 : 0)));
    const call = await start({ host });

    expect(await call("book")).toEqual({ result: { action: "accept", content: { seats: 4, terrace: true } } });
    expect(asked[0]!.prompt).toMatchObject({ app_scope: "booking", app_name: "Booking", message: "Which table do you want?", requested_schema: { required: ["seats"] } });
    expect(await call("book")).toEqual({ result: { action: "decline" } });
    expect(await call("book")).toEqual({ result: { action: "cancel" } });
    expect(asked).toHaveLength(3);
    // What the shell shows of a call beside its view: the chat's port reads any app's call, the app its own only.
    const shown = await d!.runtime.appPort("chat").toolCall("call-1");
    expect(shown).toMatchObject({ call_id: "call-1", conversation_id: "s-1", app_scope: "booking", method: "booking.book", arguments: {}, status: "succeeded", view: { resource_uri: VIEW_URI } });
    expect(shown?.result).toMatchObject({ structuredContent: { result: { action: "accept" } } });
    expect(await d!.runtime.appPort("booking").toolCall("call-1")).toEqual(shown);
    expect(await d!.runtime.appPort("settings").toolCall("call-1")).toBeUndefined();
    expect(await d!.runtime.appPort("chat").toolCall("call-nobody-made")).toBeUndefined();
  }, 60_000);

  it("an answer that does not fit the question is refused to the server as invalid_params", async () => {
    const { host } = person(() => Promise.resolve({ action: "accept", content: { seats: 40 } }));
    const call = await start({ host });
    expect(await call("book")).toMatchObject({ error: "invalid_params", message: expect.stringContaining("does not fit") });
  }, 60_000);

  it("a person who never answers: the question is withdrawn and the server told expired; nothing hangs", async () => {
    const { host, asked } = person(() => undefined);
    const call = await start({ host, elicitationTimeoutMs: 400 });
    expect(await call("book")).toMatchObject({ error: "expired", message: expect.stringContaining("did not answer Booking") });
    expect(asked.map((a) => a.withdrawn())).toEqual([true]);
  }, 60_000);

  it("a host that cannot ask the person tells the server unsupported_on_host", async () => {
    const call = await start({});
    expect(await call("book")).toMatchObject({ error: "unsupported_on_host" });
  }, 60_000);

  it("sampling is refused policy_denied by default, and answered by the host's model for an app the policy names", async () => {
    const sampled: string[] = [];
    const mcpSampler: RuntimeOptions["mcpSampler"] = (request) => {
      sampled.push(request.app_scope);
      return Promise.resolve({ role: "assistant", content: { type: "text", text: "teal" }, model: "host-model" });
    };
    const denied = await start({ mcpSampler });
    expect(await denied("think")).toMatchObject({ error: "policy_denied", message: expect.stringContaining("booking") });
    expect(sampled).toEqual([]);
    await d!.stop();
    await server!.close();

    const allowed = await start({ mcpSampler, appPolicy: { mcp_sampling_apps: ["booking"] } });
    expect(await allowed("think")).toEqual({ result: { role: "assistant", content: { type: "text", text: "teal" }, model: "host-model" } });
    expect(sampled).toEqual(["booking"]);
  }, 60_000);

  it("a view's declared origins are granted only as the person stores them, only while both it and the manifest declare them, and forgotten with the app", async () => {
    await start({});
    const runtime = d!.runtime;
    const read = () => runtime.appPort("booking").readMcpView("booking.book");
    expect(await read()).toMatchObject({ uri: VIEW_URI, csp: { connect_domains: [VIEW_ORIGIN], resource_domains: [] }, granted: { connect_domains: [], resource_domains: [] } });
    // A grant of more than the view and its manifest declare keeps only what both declare.
    await runtime.settings.setViewGrant("booking", VIEW_URI, { connect_domains: [VIEW_ORIGIN, LATE_ORIGIN, "https://elsewhere.example"], resource_domains: ["https://cdn.example"] });
    expect((await read()).granted).toEqual({ connect_domains: [VIEW_ORIGIN], resource_domains: [] });
    // Settings lists what the person allowed, as they allowed it.
    expect(await runtime.settings.viewGrants()).toEqual([
      { app_scope: "booking", resource_uri: VIEW_URI, connect_domains: [VIEW_ORIGIN, LATE_ORIGIN, "https://elsewhere.example"], resource_domains: ["https://cdn.example"], decided_at: expect.any(String) },
    ]);
    await expect(runtime.settings.setViewGrant("booking", "https://not-a-view", { connect_domains: [], resource_domains: [] })).rejects.toMatchObject({ code: "invalid_params" });
    await expect(runtime.settings.setViewGrant("nobody", VIEW_URI, { connect_domains: [], resource_domains: [] })).rejects.toMatchObject({ code: "app_not_installed" });
    // Taken back: none again.
    await runtime.settings.setViewGrant("booking", VIEW_URI, { connect_domains: [], resource_domains: [] });
    expect((await read()).granted).toEqual({ connect_domains: [], resource_domains: [] });
    expect(await runtime.settings.viewGrants()).toEqual([]);
    // Granted, then the app removed and installed again: the grant went with it.
    await runtime.settings.setViewGrant("booking", VIEW_URI, { connect_domains: [VIEW_ORIGIN], resource_domains: [] });
    expect(await runtime.appManager.remove("booking", { confirmed: true })).toMatchObject({ status: "succeeded" });
    expect(await runtime.appManager.install(await signedBundle(bookingManifest(server!.url)), { approved: true })).toMatchObject({ status: "succeeded" });
    expect((await read()).granted).toEqual({ connect_domains: [], resource_domains: [] });
  }, 60_000);
});
