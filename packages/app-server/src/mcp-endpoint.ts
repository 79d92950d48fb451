/**
 * `/mcp`, where an MCP client is an agent (docs/mcp.md), with its code loaded on the endpoint's first request: the MCP
 * SDK, the agent SDK and their validators are most of the modules the server would otherwise load before it listens,
 * and a server that no MCP client reaches never needs them.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ERROR_CODES } from "@lineup/protocol";
import type { McpHttpEndpoint } from "@lineup/mcp-server/node";
import type { Logger } from "./logger.js";

export const MCP_PATH = "/mcp";

export interface LazyMcpEndpoint {
  /** Answers one request to MCP_PATH, once the endpoint's code has loaded. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Closes every MCP session (none when no request ever came). */
  close(): Promise<void>;
}

/** Loads the endpoint's code and makes the endpoint. */
export type McpEndpointLoader = (rpcUrl: () => string) => Promise<McpHttpEndpoint>;

const loadMcpEndpoint: McpEndpointLoader = async (rpcUrl) => (await import("@lineup/mcp-server/node")).createMcpHttpEndpoint({ rpcUrl });

/**
 * The endpoint, made on its first request. When its code cannot be loaded (a broken install), that request is answered
 * 500 with a JSON-RPC `internal_error`, as the endpoint answers its own refusals, and the next request tries again.
 */
export function lazyMcpEndpoint(rpcUrl: () => string, logger: Logger, load: McpEndpointLoader = loadMcpEndpoint): LazyMcpEndpoint {
  let endpoint: Promise<McpHttpEndpoint> | undefined;
  return {
    handle(req, res) {
      endpoint ??= load(rpcUrl);
      endpoint.then(
        (loaded) => loaded.handle(req, res),
        (error: unknown) => {
          endpoint = undefined;
          logger.error("the MCP endpoint could not be loaded", { error: error instanceof Error ? error.message : String(error) });
          if (res.headersSent) return;
          const { rpc, retryable } = ERROR_CODES.internal_error;
          res.writeHead(500, { "content-type": "application/json", "cache-control": "no-store" });
          res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: rpc, message: "the MCP endpoint is unavailable", data: { code: "internal_error", retryable } } }));
        },
      );
    },
    async close() {
      const loaded = await endpoint?.catch(() => undefined);
      await loaded?.close();
    },
  };
}
