/**
 * Who may open the AppServer's `/mcp` and `lineup mcp`, and what a caller is told when it may not: each
 * refusal a status and a JSON-RPC error carrying LineUp's code, nothing opened on the server.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { runCli } from "@lineup/cli";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createMcpHttpEndpoint, type McpHttpEndpoint, type McpHttpEndpointOptions } from "../src/node/index.js";
import { until } from "./world.js";

const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } } });

describe("the /mcp endpoint and lineup mcp refuse what they must", () => {
  let server: AppServerHandle;
  let dir: string;
  let agentToken: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "lineup-mcp-endpoint-"));
    server = await startAppServer({ dataDir: dir, port: 0, logger: silentLogger });
    agentToken = server.devCredentials!.agent_token;
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (query: string, headers: Record<string, string>, body = INITIALIZE) =>
    fetch(`${server.httpUrl}/mcp${query}`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body });
  const refusal = async (response: Response) => ({ status: response.status, code: ((await response.json()) as { error: { data: { code: string } } }).error.data.code });

  it("answers 401 without a token or with an unknown one, 403 for a device's token", async () => {
    const none = await post("?session=new", {});
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    expect(await refusal(none)).toEqual({ status: 401, code: "unauthorized" });
    expect(await refusal(await post("?session=new", { authorization: "Bearer not-a-token" }))).toEqual({ status: 401, code: "unauthorized" });
    expect(await refusal(await post("?session=new", { authorization: `Bearer ${server.devCredentials!.device_token}` }))).toEqual({ status: 403, code: "forbidden" });
  });

  it("answers 400 without a session, 404 for a session the agent is not bound to or an unknown MCP session", async () => {
    const auth = { authorization: `Bearer ${agentToken}` };
    expect(await refusal(await post("", auth))).toEqual({ status: 400, code: "invalid_params" });
    expect(await refusal(await post("?session=s-nobody", auth))).toEqual({ status: 404, code: "session_not_found" });
    expect(await refusal(await post("?session=new", { ...auth, "mcp-session-id": "no-such-session" }))).toEqual({ status: 404, code: "not_found" });
  });

  it("keeps an MCP session to the token that opened it", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.httpUrl}/mcp?session=new`), { requestInit: { headers: { authorization: `Bearer ${agentToken}` } } });
    const client = new Client({ name: "t", version: "1" });
    await client.connect(transport);
    const other = await server.admin.createAgent("another-agent");
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    const headers = { "mcp-session-id": transport.sessionId!, "mcp-protocol-version": "2025-06-18" };
    expect(await refusal(await post("?session=new", { ...headers, authorization: `Bearer ${other}` }, list))).toEqual({ status: 403, code: "forbidden" });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["lineup.next_message", "lineup.reply", "lineup.ask"]);
    await client.close();
  });

  it("lineup mcp: usage without its arguments (exit 2), a clear refusal for a session the agent is not bound to (exit 1)", async () => {
    const errors: string[] = [];
    const io = { out: () => undefined, err: (line: string) => void errors.push(line) };
    expect(await runCli(["mcp", "--url", server.url], io)).toBe(2);
    expect(errors.join("\n")).toContain("usage: lineup mcp --session");
    errors.length = 0;
    expect(await runCli(["mcp", "--session", "s-nobody", "--url", server.url, "--token", agentToken], io)).toBe(1);
    expect(errors.join("\n")).toContain("is bound to no session s-nobody");
  });
});

/** An AppServer and, beside it, an endpoint of its own options on a server of its own; `run` gets the endpoint's `/mcp?session=new` URL. */
async function withOwnEndpoint(options: Omit<McpHttpEndpointOptions, "rpcUrl">, run: (world: { server: AppServerHandle; endpoint: McpHttpEndpoint; url: string }) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "lineup-mcp-endpoint-own-"));
  const server = await startAppServer({ dataDir: dir, port: 0, logger: silentLogger });
  const endpoint = createMcpHttpEndpoint({ rpcUrl: () => server.url, ...options });
  const http = createServer((req, res) => endpoint.handle(req, res));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  try {
    await run({ server, endpoint, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp?session=new` });
  } finally {
    await endpoint.close();
    await new Promise((resolve) => http.close(resolve));
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("an idle MCP session", () => {
  it("is closed with its agent connection after idleTimeoutMs without a request; its client then gets 404", async () => {
    await withOwnEndpoint({ idleTimeoutMs: 300 }, async ({ server, endpoint, url }) => {
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${server.devCredentials!.agent_token}` };
      const opened = await fetch(url, { method: "POST", headers, body: INITIALIZE });
      expect(opened.status).toBe(200);
      const id = opened.headers.get("mcp-session-id")!;
      await opened.text();
      expect(endpoint.sessions).toBe(1);
      expect(server.stats().connections.length).toBe(1);
      await until(() => endpoint.sessions === 0, "the idle session closed", 10_000);
      const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
      const after = await fetch(url, { method: "POST", headers: { ...headers, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" }, body: list });
      expect(after.status).toBe(404);
      // Its agent connection to /rpc is gone too.
      await until(() => server.stats().connections.length === 0, "the agent connection closed", 10_000);
    });
  }, 30_000);
});

describe("MCP sessions of one token", () => {
  it("are capped: past maxSessionsPerToken an initialize is 429 rate_limited, another token still opens, and a closed session frees its place", async () => {
    await withOwnEndpoint({ maxSessionsPerToken: 2 }, async ({ server, endpoint, url }) => {
      const headersFor = (token: string) => ({ "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` });
      const agentToken = server.devCredentials!.agent_token;
      const initialize = async (token: string): Promise<Response> => {
        const response = await fetch(url, { method: "POST", headers: headersFor(token), body: INITIALIZE });
        return response;
      };
      // Three at once: the cap counts sessions still opening, so exactly one is refused.
      const three = await Promise.all([initialize(agentToken), initialize(agentToken), initialize(agentToken)]);
      expect(three.map((r) => r.status).sort()).toEqual([200, 200, 429]);
      const refused = three.find((r) => r.status === 429)!;
      expect(refused.headers.get("retry-after")).toBe("60");
      expect(((await refused.json()) as { error: { data: { code: string } } }).error.data.code).toBe("rate_limited");
      const opened = three.filter((r) => r.status === 200);
      const ids = await Promise.all(opened.map(async (r) => (await r.text(), r.headers.get("mcp-session-id")!)));
      expect(endpoint.sessions).toBe(2);

      const other = await server.admin.createAgent("capped-neighbour");
      const neighbour = await initialize(other);
      expect(neighbour.status).toBe(200);
      await neighbour.text();

      const ended = await fetch(url, { method: "DELETE", headers: { ...headersFor(agentToken), "mcp-session-id": ids[0]!, "mcp-protocol-version": "2025-06-18" } });
      expect(ended.status).toBe(200);
      await until(() => endpoint.sessions === 2, "the ended session closed", 10_000);
      const again = await initialize(agentToken);
      expect(again.status).toBe(200);
      await again.text();
    });
  }, 30_000);
});
