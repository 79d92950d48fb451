/**
 * `/mcp` is made with its first request (mcp-endpoint.ts): a server that is never asked loads nothing of it and has
 * nothing to close; requests that come while it loads are all answered by the one endpoint made; when its code cannot
 * be loaded, that request gets a JSON-RPC `internal_error` (500) and the next request tries again. The real
 * endpoint behind it is tested in the MCP server's own tests and the CLI's start-up test.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { McpHttpEndpoint } from "@lineup/mcp-server/node";
import { createLogger } from "../src/logger.js";
import { lazyMcpEndpoint, MCP_PATH, type LazyMcpEndpoint, type McpEndpointLoader } from "../src/mcp-endpoint.js";

let http: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => http?.close(resolve));
  http = undefined;
});

async function serve(endpoint: LazyMcpEndpoint): Promise<string> {
  http = createServer((req, res) => endpoint.handle(req, res));
  await new Promise<void>((resolve) => http!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}${MCP_PATH}`;
}

/** An endpoint that answers every request 200 with its own name, and counts its closes. */
function fakeEndpoint(name: string): McpHttpEndpoint & { closed: number } {
  return {
    closed: 0,
    sessions: 0,
    handle(_req, res) {
      res.writeHead(200, { "content-type": "text/plain" }).end(name);
    },
    async close() {
      this.closed += 1;
    },
  };
}

const logged: string[] = [];
const logger = createLogger({ write: (line) => void logged.push(line) });

describe("the /mcp endpoint, made on its first request", () => {
  it("loads nothing until asked, makes one endpoint for the requests that come while it loads, and closes it", async () => {
    const made = fakeEndpoint("one");
    let loads = 0;
    let release: () => void = () => undefined;
    const load: McpEndpointLoader = async (rpcUrl) => {
      loads += 1;
      expect(rpcUrl()).toBe("ws://the-server/rpc");
      await new Promise<void>((resolve) => (release = resolve));
      return made;
    };
    const endpoint = lazyMcpEndpoint(() => "ws://the-server/rpc", logger, load);
    // Never asked: nothing loaded, nothing to close.
    await endpoint.close();
    expect(loads).toBe(0);
    const url = await serve(endpoint);
    const answers = Promise.all([fetch(url, { method: "POST" }), fetch(url, { method: "POST" }), fetch(url)]);
    await expect.poll(() => loads).toBe(1);
    release();
    for (const answer of await answers) {
      expect(answer.status).toBe(200);
      expect(await answer.text()).toBe("one");
    }
    expect(loads).toBe(1);
    await endpoint.close();
    expect(made.closed).toBe(1);
  });

  it("answers a request 500 internal_error when the code cannot be loaded, and loads again for the next one", async () => {
    let loads = 0;
    const load: McpEndpointLoader = async () => {
      loads += 1;
      if (loads === 1) throw new Error("Cannot find package '@lineup/mcp-server'");
      return fakeEndpoint("second try");
    };
    const url = await serve(lazyMcpEndpoint(() => "ws://the-server/rpc", logger, load));
    const failed = await fetch(url, { method: "POST" });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32603, message: "the MCP endpoint is unavailable", data: { code: "internal_error", retryable: true } } });
    expect(logged.some((line) => line.includes("the MCP endpoint could not be loaded") && line.includes("Cannot find package"))).toBe(true);
    const next = await fetch(url, { method: "POST" });
    expect(next.status).toBe(200);
    expect(await next.text()).toBe("second try");
    expect(loads).toBe(2);
  });
});
