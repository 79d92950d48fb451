/**
 * LineUp's errors on MCP's two error paths (docs/mcp.md):
 *
 * - A call that reached the tool layer and ended there (the tool and capability areas of the error table:
 *   `invalid_arguments`, `handler_failed`, `app_disabled`, `operation_expired`, `cancelled_by_user`,
 *   `policy_denied`, …) is a **tool result** with `isError: true`: the model reads it and may try again.
 *   Its text says the code and message; `_meta["lineup/error"]` carries `{ code, message, retryable }`.
 * - Anything else (an unknown tool, an inventory still stale after one refresh, no session, the
 *   connection to the AppServer lost) is an **MCP error**: its JSON-RPC code is the one LineUp's table
 *   gives the code, and its `data` is `{ code, retryable }`.
 */
import { ERROR_CODES, LineUpError, isErrorCode, type ErrorCode } from "@lineup/protocol";
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export const ERROR_META_KEY = "lineup/error";

/** A thrown value as a LineUpError (anything else is `internal_error`, its message kept, its stack not). */
export function asLineUpError(error: unknown): LineUpError {
  if (error instanceof LineUpError) return error;
  return new LineUpError("internal_error", error instanceof Error ? error.message : String(error));
}

/** Whether the code is the tool's own outcome (an `isError` result) rather than a failure of the request. */
export function isToolOutcome(code: ErrorCode): boolean {
  const area = ERROR_CODES[code].area;
  return area === "tool" || area === "capability" || area === "session_data";
}

/** An MCP error carrying a LineUp code. */
export function mcpError(code: ErrorCode, message: string): McpError {
  const info = ERROR_CODES[code];
  return new McpError(info.rpc, message, { code, retryable: info.retryable });
}

/** A tool result that says the call failed, with its code. */
export function errorResult(error: LineUpError): CallToolResult {
  const info = ERROR_CODES[error.code];
  return {
    isError: true,
    content: [{ type: "text", text: `${error.code}: ${error.message}` }],
    _meta: { [ERROR_META_KEY]: { code: error.code, message: error.message, retryable: info.retryable } },
  };
}

/** What a failed call becomes: an `isError` result for the tool's own outcome, else thrown as an MCP error. */
export function failedCall(error: unknown): CallToolResult {
  const e = asLineUpError(error);
  if (isErrorCode(e.code) && isToolOutcome(e.code)) return errorResult(e);
  throw mcpError(e.code, e.message);
}
