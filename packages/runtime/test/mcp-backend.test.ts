import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Server as McpServer } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AppManifest, AppScope, JsonObject } from "@lineup/protocol";
import { manifestFromMcp } from "../src/index.js";
import { createMcpHttpRunner, createMcpStdioRunner } from "../src/node/index.js";
import { agentInvokes, onlineDevice, publishedInventories, signedBundle, toolOutputs } from "./helpers/apps-harness.js";
import { until, type Device } from "./helpers/runtime-harness.js";
import { slack } from "../../../test/support/soak.js";
import { HOSTILE, HOSTILE_LOADED_TIMEOUT_MS, NOTE_TOOL, hostileManifest, npmServerFiles, npmServerManifest } from "./helpers/mcp-servers.js";

// Issue 22 §2 and shared design RELIABILITY X1: an MCP server as an app's back-end. A real MCP server from npm
// (`@modelcontextprotocol/server-basic-preact`, which nobody here wrote) is installed as a LineUp app, its tools join
// the agent's inventory under the app's scope, and the agent's call reaches it through the Runtime's checks. A hostile
// MCP server — malformed JSON-RPC, a notification flood, an oversized result, schema-invalid `structuredContent`, a
// hang — gets typed errors, is killed and restarted per its policy, and the other app goes on answering.

let dataDir: string;
let clockManifest: AppManifest;
let clockFiles: Record<string, string>;
beforeAll(async () => {
  dataDir = realpathSync(mkdtempSync(join(tmpdir(), "lineup-mcp-")));
  clockFiles = npmServerFiles("@modelcontextprotocol/server-basic-preact");
  clockManifest = (await npmServerManifest("@modelcontextprotocol/server-basic-preact", "clock")).manifest;
}, slack(60_000));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("MCP servers as LineUp apps", () => {
  let d: Device | undefined;
  afterEach(async () => {
    await d?.stop();
    d = undefined;
  });

  const start = async () => {
    const online = await onlineDevice({ extra: { backends: { "mcp-stdio": (spec) => createMcpStdioRunner(spec, { dataDir }) } } });
    d = online.d;
    return online;
  };
  const install = async (device: Device, manifest: AppManifest, files: Record<string, string>) => {
    expect(await device.runtime.appManager.install(await signedBundle(manifest, undefined, undefined, files), { approved: true })).toMatchObject({ status: "succeeded" });
  };
  let calls = 0;
  /** The agent calls `app/method` at the current revision; resolves with the call's terminal output `[type, payload]`. */
  const agentCall = async (server: Awaited<ReturnType<typeof start>>["server"], app: string, method: string, args: JsonObject = {}) => {
    const callId = `call-${++calls}`;
    const revision = publishedInventories(server).at(-1)!.revision;
    agentInvokes(server, callId, app, method, args, revision);
    const terminal = () => toolOutputs(server, callId).find(([type]) => type === "lineup.tool.result" || type === "lineup.tool.error");
    await until(() => terminal() !== undefined, 20_000, `the end of ${app}/${method}`);
    // One terminal output per call, whatever the server did.
    expect(toolOutputs(server, callId).filter(([type]) => type === "lineup.tool.result" || type === "lineup.tool.error")).toHaveLength(1);
    return terminal()!;
  };

  it("installs a real npm MCP server as an app: its tool joins the inventory under the app's scope and the agent's call reaches it", async () => {
    expect(clockManifest.tools!.map((t) => [t.method, t.backend, t.view])).toEqual([["clock.get_time", { id: "mcp", method: "get-time" }, { resource_uri: "ui://get-time/mcp-app.html" }]]);
    const { server, d: device } = await start();
    await install(device, clockManifest, clockFiles);
    await until(() => publishedInventories(server).some((i) => i.methods.includes("clock/clock.get_time")), 5_000, "the inventory with the MCP tool");

    const [type, payload] = await agentCall(server, "clock", "clock.get_time");
    expect(type).toBe("lineup.tool.result");
    const result = payload["result"] as { content: { type: string; text: string }[] };
    expect(result.content[0]!.type).toBe("text");
    expect(Number.isNaN(Date.parse(result.content[0]!.text))).toBe(false);
  }, slack(60_000));

  it("a hostile MCP server gets typed errors, is killed and restarted per its policy, and the other app goes on", async () => {
    const { server, d: device } = await start();
    await install(device, clockManifest, clockFiles);
    await install(device, hostileManifest(HOSTILE_LOADED_TIMEOUT_MS), { "server/index.mjs": HOSTILE });
    await until(() => publishedInventories(server).some((i) => i.methods.includes("hostile/hostile.hang")), 5_000, "the inventory");

    const pid = async (): Promise<number> => {
      const [type, payload] = await agentCall(server, "hostile", "hostile.ok");
      // The payload is in the message when it is an error.
      expect([type, type === "lineup.tool.result" ? {} : payload]).toEqual(["lineup.tool.result", {}]);
      return ((payload["result"] as { structuredContent: { pid: number } }).structuredContent).pid;
    };
    const clockAnswers = async () => expect((await agentCall(server, "clock", "clock.get_time"))[0]).toBe("lineup.tool.result");
    const failure = async (method: string) => {
      const [type, payload] = await agentCall(server, "hostile", method);
      expect(type).toBe("lineup.tool.error");
      return { code: payload["code"], message: String(payload["message"]) };
    };

    let before = await pid();
    // Malformed JSON-RPC: killed (protocol violation), restarted for the next call.
    expect(await failure("hostile.garbage")).toMatchObject({ code: "handler_failed", message: expect.stringContaining("not a JSON-RPC 2.0 message") });
    let after = await pid();
    expect(after).not.toBe(before);
    await clockAnswers();

    // A notification flood: killed past its budget.
    before = after;
    expect(await failure("hostile.flood")).toMatchObject({ code: "handler_failed", message: expect.stringContaining("answer no call") });
    after = await pid();
    expect(after).not.toBe(before);

    // An oversized result: killed (the line is past the limit), the call refused with the size named.
    before = after;
    expect(await failure("hostile.huge")).toMatchObject({ code: "handler_failed", message: expect.stringContaining("message_too_large") });
    after = await pid();
    expect(after).not.toBe(before);

    // Schema-invalid structuredContent: refused as an invalid result; the server is not killed for it.
    before = after;
    expect(await failure("hostile.badshape")).toMatchObject({ code: "handler_failed", message: expect.stringContaining("invalid_result") });
    expect(await pid()).toBe(before);

    // A hang: the call's limit ends it (operation_expired) and kills the program; the next call starts another.
    expect(await failure("hostile.hang")).toMatchObject({ code: "operation_expired" });
    after = await pid();
    expect(after).not.toBe(before);
    await clockAnswers();
  }, slack(120_000));

  it("a server whose policy is never is not started again after it broke the protocol", async () => {
    const manifest = hostileManifest(HOSTILE_LOADED_TIMEOUT_MS);
    const { server, d: device } = await start();
    await install(device, { ...manifest, version: "1.0.0", backends: manifest.backends!.map((b) => ({ ...b, restart: { policy: "never" } })) }, { "server/index.mjs": HOSTILE });
    await until(() => publishedInventories(server).some((i) => i.methods.includes("hostile/hostile.ok")), 5_000, "the inventory");
    expect((await agentCall(server, "hostile", "hostile.ok"))[0]).toBe("lineup.tool.result");
    expect((await agentCall(server, "hostile", "hostile.garbage"))[0]).toBe("lineup.tool.error");
    const [type, payload] = await agentCall(server, "hostile", "hostile.ok");
    expect([type, payload["code"], String(payload["message"])]).toEqual(["lineup.tool.error", "handler_failed", expect.stringContaining("not restarted")]);
  }, slack(60_000));

  it("reaches an MCP server over Streamable HTTP at the app's declared endpoint (mcp-http)", async () => {
    // A Streamable HTTP MCP server made with the SDK's own server, on 127.0.0.1; stateless, as the npm examples are.
    let served = 0;
    const http: Server = createServer((req, res) => {
      const mcp = new McpServer({ name: "notes", version: "1.0.0" }, { capabilities: { tools: {} } });
      mcp.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [NOTE_TOOL] }));
      mcp.setRequestHandler(CallToolRequestSchema, (request) => {
        served += 1;
        return { content: [{ type: "text", text: `kept ${String(request.params.arguments?.["text"])}` }], structuredContent: { kept: served } };
      });
      const transport = new StreamableHTTPServerTransport({});
      res.on("close", () => void transport.close());
      void mcp.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
      const generated = manifestFromMcp({ app_scope: "notes" as AppScope, version: "1.0.0", entry: "unused.js", tools: [NOTE_TOOL] });
      const { entry: _entry, runtime: _runtime, ...backend } = generated.backends![0]!;
      const manifest: AppManifest = {
        ...generated,
        execution: { mode: "server-assisted", endpoints: [{ id: "notes", url, purpose: "Keeps your notes." }], data_boundary: "The text of each note." },
        backends: [{ ...backend, plane: "cloud-remote", protocol: "mcp-http", endpoint: "notes" }],
      };
      const online = await onlineDevice({ extra: { backends: { "mcp-http": createMcpHttpRunner } } });
      d = online.d;
      await install(online.d, manifest, {});
      await until(() => publishedInventories(online.server).some((i) => i.methods.includes("notes/notes.add_note")), 5_000, "the inventory");
      const [type, payload] = await agentCall(online.server, "notes", "notes.add_note", { text: "milk" });
      expect([type, payload["result"]]).toEqual(["lineup.tool.result", { content: [{ type: "text", text: "kept milk" }], structuredContent: { kept: 1 } }]);
      // The input schema is the Runtime's to check: a call without its text never reaches the server.
      const [badType, bad] = await agentCall(online.server, "notes", "notes.add_note", {});
      expect([badType, bad["code"], served]).toEqual(["lineup.tool.error", "invalid_arguments", 1]);
    } finally {
      await d?.stop();
      d = undefined;
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  }, slack(60_000));
});
