/**
 * @lineup/mcp-server: a LineUp session, as its agent sees it, as an MCP server — so any MCP client can be
 * the agent (docs/mcp.md). Built on the agent SDK's client; stdio and the Streamable HTTP endpoint are at
 * `@lineup/mcp-server/node`.
 */
export * from "./inventory-tools.js";
export * from "./errors.js";
export * from "./conversation.js";
export * from "./server.js";
