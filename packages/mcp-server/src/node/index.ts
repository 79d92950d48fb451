/** Node adapters of @lineup/mcp-server: `lineup mcp` over stdio, and the AppServer's `/mcp` endpoint (Streamable HTTP). */
export * from "./stdio.js";
export * from "./http-endpoint.js";
