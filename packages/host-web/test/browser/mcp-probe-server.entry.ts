// An MCP server (the SDK's own `McpServer` over stdio) whose one tool shows a view that declares the origin it would
// reach (`_meta.ui.csp.connectDomains`). The test bundles it into one file with the view's page and that origin baked
// in, and installs it as a LineUp app.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

declare const PROBE_HTML: string;
declare const PROBE_ORIGIN: string;

const VIEW_URI = "ui://fetch-probe/view.html";
const MIME = "text/html;profile=mcp-app";
const server = new McpServer({ name: "Fetch Probe", version: "1.0.0" });
server.registerTool(
  "probe-fetch",
  { title: "Probe Fetch", description: "Shows a view that fetches from its own server.", inputSchema: {}, _meta: { ui: { resourceUri: VIEW_URI } } },
  async () => ({ content: [{ type: "text", text: "probed" }], structuredContent: { probed: true } }),
);
server.registerResource("view", VIEW_URI, { mimeType: MIME }, () => ({
  contents: [{ uri: VIEW_URI, mimeType: MIME, text: PROBE_HTML, _meta: { ui: { csp: { connectDomains: [PROBE_ORIGIN], resourceDomains: [] } } } }],
}));
await server.connect(new StdioServerTransport());
