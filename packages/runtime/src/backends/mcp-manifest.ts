/**
 * A LineUp manifest for an app that wraps one MCP server (`lineup app from-mcp`, docs/bundle.md "An MCP server as an
 * app"), made from what the server says of itself (`tools/list`, `resources/list`). Pure.
 *
 * Each MCP tool becomes a tool of the app, served by the back-end `mcp` (`backend: {id: "mcp", method: <its name>}`):
 * - its method is `<app scope, snake_case>.<tool name, snake_case>` (`clock.get_time` for `get-time`), numbered
 *   when two tools would meet on one name; the MCP name stays in `backend.method`, so the mapping is reversible;
 * - `readOnlyHint` makes it a `query`, otherwise a `command`;
 * - `input_schema` is its `inputSchema`; `output_schema` is the shape of a LineUp result of an MCP tool,
 *   `{content, structuredContent?}`, with its `outputSchema` (when it has one) as `structuredContent`'s schema;
 * - `_meta.ui.resourceUri` (or the older `_meta["ui/resourceUri"]`) naming a `ui://` resource is its `view`, with the
 *   origins that resource's `_meta.ui.csp` declares (`views`, read by `describeMcpServer`) as the view's `csp`.
 *
 * A server with a view declares `link.open`: a view's `ui/open-link` is the app's use of it, through the Capability
 * Gateway (audited, policy-checked, confirmed by the person as `link.open` is).
 */
import type { AppManifest, AppScope, BackendDeclaration, JsonObject, JsonValue, ToolDescriptor } from "@lineup/protocol";
import type { McpViewOrigins } from "./mcp-view.js";

/** An MCP tool as `tools/list` gives it (the fields this reads). */
export interface McpToolInfo {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: JsonObject;
  readonly outputSchema?: JsonObject;
  readonly annotations?: { readonly readOnlyHint?: boolean; readonly title?: string };
  readonly _meta?: JsonObject;
}

export interface McpManifestRequest {
  readonly app_scope: AppScope;
  readonly version: string;
  readonly name?: string;
  readonly description?: string;
  readonly tools: readonly McpToolInfo[];
  /** The origins each `ui://` view declares (`McpServerDescription.views`); a view not here declares none. */
  readonly views?: Readonly<Record<string, McpViewOrigins>>;
  /** The server's program in the bundle and its arguments (`mcp-stdio`). */
  readonly entry: string;
  readonly args?: readonly string[];
  readonly memory_mb?: number;
  readonly call_timeout_ms?: number;
}

/** Why a generated app with views declares `link.open` (shown in the install review and the confirmation). */
export const MCP_VIEW_LINK_PURPOSE = "Its views may ask to open a link in your browser.";

/** A view's declared origins as its tool's `view.csp`: only the directives that name any. */
function viewCsp(origins: McpViewOrigins | undefined): { connect_domains?: string[]; resource_domains?: string[] } | undefined {
  if (origins === undefined) return undefined;
  // What a manifest can hold (`view.csp`'s schema); anything else could never be granted either.
  const kept = (list: readonly string[]): string[] => [...new Set(list.filter((o) => o.length <= 256 && /^[^\s;,']+$/.test(o)))].slice(0, 32);
  const connect = kept(origins.connect_domains);
  const resource = kept(origins.resource_domains);
  if (connect.length + resource.length === 0) return undefined;
  return { ...(connect.length === 0 ? {} : { connect_domains: connect }), ...(resource.length === 0 ? {} : { resource_domains: resource }) };
}

/** The back-end id every generated manifest gives its MCP server. */
export const MCP_BACKEND_ID = "mcp";
const MAX_TOOLS = 64;

const snake = (text: string): string => {
  const words = text.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
  return /^[a-z]/.test(words) ? words : `t_${words || "tool"}`;
};

/** A schema without `$schema` and `$id` anywhere (a subschema of LineUp's may declare neither). */
function plainSchema(schema: JsonValue): JsonValue {
  if (Array.isArray(schema)) return schema.map(plainSchema);
  if (schema === null || typeof schema !== "object") return schema;
  return Object.fromEntries(Object.entries(schema).filter(([key]) => key !== "$schema" && key !== "$id").map(([key, value]) => [key, plainSchema(value)]));
}

/** The `ui://` view a tool names in its `_meta`, if any. */
export function mcpToolViewUri(meta: JsonObject | undefined): string | undefined {
  const ui = meta?.["ui"];
  const uri = ui !== null && typeof ui === "object" && !Array.isArray(ui) ? ui["resourceUri"] : meta?.["ui/resourceUri"];
  return typeof uri === "string" && uri.startsWith("ui://") ? uri : undefined;
}

/** The result schema of an MCP tool in LineUp: `{content, structuredContent?}`. */
export function mcpOutputSchema(outputSchema: JsonObject | undefined): JsonObject {
  return {
    type: "object",
    required: outputSchema === undefined ? ["content"] : ["content", "structuredContent"],
    properties: { content: { type: "array", items: { type: "object" } }, ...(outputSchema === undefined ? {} : { structuredContent: plainSchema(outputSchema) }) },
  };
}

export function manifestFromMcp(request: McpManifestRequest): AppManifest {
  const prefix = snake(request.app_scope);
  const viewOf = (uri: string): NonNullable<ToolDescriptor["view"]> => {
    const csp = viewCsp(request.views?.[uri]);
    return { resource_uri: uri, ...(csp === undefined ? {} : { csp }) };
  };
  const taken = new Set<string>();
  const tools = request.tools.slice(0, MAX_TOOLS).map((tool): ToolDescriptor => {
    const base = `${prefix}.${snake(tool.name)}`.slice(0, 120);
    let method = base;
    for (let n = 2; taken.has(method); n++) method = `${base}_${n}`;
    taken.add(method);
    const view = mcpToolViewUri(tool._meta);
    const title = tool.title ?? tool.annotations?.title;
    return {
      method,
      contract_version: "1",
      ...(title === undefined ? {} : { title: title.slice(0, 120) }),
      ...(tool.description === undefined ? {} : { description: tool.description.slice(0, 4_000) }),
      input_schema: plainSchema({ type: "object", ...tool.inputSchema }) as JsonObject,
      output_schema: mcpOutputSchema(tool.outputSchema),
      call_model: tool.annotations?.readOnlyHint === true ? "query" : "command",
      backend: { id: MCP_BACKEND_ID, method: tool.name },
      ...(view === undefined ? {} : { view: viewOf(view) }),
    };
  });
  const hasViews = tools.some((tool) => tool.view !== undefined);
  const backend: BackendDeclaration = {
    id: MCP_BACKEND_ID,
    ...(request.name === undefined ? {} : { title: request.name.slice(0, 120) }),
    plane: "client-local",
    protocol: "mcp-stdio",
    runtime: "node",
    entry: request.entry,
    ...(request.args === undefined || request.args.length === 0 ? {} : { args: [...request.args] }),
    methods: request.tools.slice(0, MAX_TOOLS).map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description.slice(0, 500) }),
      params_schema: plainSchema({ type: "object", ...tool.inputSchema }) as JsonObject,
      ...(tool.outputSchema === undefined ? {} : { result_schema: plainSchema(tool.outputSchema) as JsonObject }),
    })),
    limits: { memory_mb: request.memory_mb ?? 192, call_timeout_ms: request.call_timeout_ms ?? 30_000 },
    restart: { policy: "on-failure", max_restarts: 5, backoff_ms: 500 },
  };
  return {
    format: "lineup.app.v1",
    app_scope: request.app_scope,
    version: request.version,
    ...(request.name === undefined ? {} : { name: request.name.slice(0, 80) }),
    ...(request.description === undefined ? {} : { description: request.description.slice(0, 2_000) }),
    runtime_sdk: { api_version: "1", required_features: ["app.tools.v1", "app.backend.v1", ...(hasViews ? ["capability.request.v1"] : [])] },
    // Its tools need no page (the server answers them); a view shows in a surface of its own, not at an entrypoint.
    entrypoints: [{ id: "main", kind: "background" }],
    tools,
    ...(hasViews ? { capabilities: [{ name: "link.open", purpose: MCP_VIEW_LINK_PURPOSE }] } : {}),
    backends: [backend],
  };
}
