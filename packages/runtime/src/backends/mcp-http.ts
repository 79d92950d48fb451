/**
 * The `mcp-http` back-end runner (docs/manifest.md §8b): an MCP server at the app's declared endpoint, reached by the
 * Runtime only, over Streamable HTTP with the MCP SDK's own client (`backends/mcp-client.ts`). Neutral: `fetch` only.
 *
 * One session is opened at the first call and kept; a call that finds it broken (the server restarted, the network
 * went) ends `handler_failed` (`crashed`), and the next call opens a new one. `call_timeout_ms` bounds each call
 * (`operation_expired`) and `max_concurrent_calls` the calls in flight (`overloaded`). There is no process to
 * restart: `restart` does not apply. `stop()` closes the session and refuses later calls (`stopped`).
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LineUpError, type JsonValue } from "@lineup/protocol";
import { systemClock } from "../core/system.js";
import { connectMcp, type McpConnection } from "./mcp-client.js";
import { resolveBackendLimits, type BackendRunner, type BackendStartSpec, type BackendStatus } from "./runner.js";

export function createMcpHttpRunner(spec: BackendStartSpec): BackendRunner {
  const limits = resolveBackendLimits(spec.declaration);
  const id = spec.declaration.id;
  if (spec.endpoint_url === undefined) throw new LineUpError("handler_failed", `back-end ${id} names no endpoint`, { data: { reason: "start_failed" } });
  const url = new URL(spec.endpoint_url);
  let status: BackendStatus = "idle";
  let session: Promise<McpConnection> | undefined;
  let admitted = 0;

  const open = (): Promise<McpConnection> => {
    session ??= connectMcp(new StreamableHTTPClientTransport(url), { timeout_ms: limits.call_timeout_ms, clock: systemClock, hostCalls: spec.hostCalls });
    const opened = session;
    opened.then(
      () => (status = status === "stopped" ? status : "running"),
      () => {
        if (session === opened) session = undefined;
      },
    );
    return opened;
  };

  const run = async (signal: AbortSignal | undefined, work: (connection: McpConnection) => Promise<JsonValue>): Promise<JsonValue> => {
    if (status === "stopped") throw new LineUpError("handler_failed", `back-end ${id} is stopped`, { data: { reason: "stopped" } });
    if (signal?.aborted === true) throw new LineUpError("request_cancelled", "the call was cancelled");
    if (admitted >= limits.max_concurrent_calls) throw new LineUpError("overloaded", `back-end ${id} already has ${admitted} calls in flight`);
    admitted += 1;
    const opened = open();
    try {
      return await work(await opened);
    } catch (error) {
      // A broken session is not used again: the next call opens another.
      if (error instanceof LineUpError && error.data?.["reason"] === "crashed" && session === opened) {
        session = undefined;
        void opened.then((c) => c.close()).catch(() => undefined);
      }
      throw error;
    } finally {
      admitted -= 1;
    }
  };
  const options = (signal: AbortSignal | undefined) => ({ timeout_ms: limits.call_timeout_ms, ...(signal === undefined ? {} : { signal }) });

  return {
    status: () => status,
    call: (method, params, callOptions = {}) => run(callOptions.signal, (c) => c.callTool(method, params, options(callOptions.signal))),
    readResource: (uri, readOptions = {}) => run(readOptions.signal, (c) => c.readResource(uri, options(readOptions.signal))),
    async stop() {
      status = "stopped";
      const closing = session;
      session = undefined;
      await closing?.then((c) => c.close()).catch(() => undefined);
    },
  };
}
