import { describe, expect, it } from "vitest";
import { resolveToolDescriptor, validateManifest, type AppManifest, type AppScope } from "../src/index.js";

// Issue 22 §2: a manifest may declare an MCP server as a back-end and tools it serves; the rules hold at install.

function mcpApp(): AppManifest {
  return {
    format: "lineup.app.v1",
    app_scope: "clock" as AppScope,
    version: "1.0.0",
    runtime_sdk: { api_version: "1", required_features: ["app.tools.v1", "app.backend.v1"] },
    entrypoints: [{ id: "main", kind: "primary" }],
    tools: [
      {
        method: "clock.get_time",
        contract_version: "1",
        input_schema: { type: "object" },
        output_schema: { type: "object", required: ["content"] },
        backend: { id: "mcp", method: "get-time" },
        view: { resource_uri: "ui://get-time/mcp-app.html" },
      },
    ],
    backends: [{ id: "mcp", plane: "client-local", protocol: "mcp-stdio", runtime: "node", entry: "server/index.js", args: ["--stdio"], methods: [{ name: "get-time" }] }],
  };
}

const refusal = (manifest: unknown) => {
  const result = validateManifest(manifest);
  return result.ok ? undefined : { code: result.error.code, path: result.error.path };
};

describe("MCP back-ends in a manifest", () => {
  it("accepts an MCP server and the tools it serves; such a tool needs no running app", () => {
    expect(refusal(mcpApp())).toBeUndefined();
    expect(resolveToolDescriptor(mcpApp().tools![0]!)).toMatchObject({ activation_requirement: "activation_not_required", launch_policy: "never" });
  });

  it("refuses what does not hold together, at the field", () => {
    const app = mcpApp();
    expect(refusal({ ...app, tools: [{ ...app.tools![0]!, backend: { id: "other", method: "get-time" } }] })).toEqual({ code: "manifest_invalid", path: "/tools/0/backend/id" });
    expect(refusal({ ...app, tools: [{ ...app.tools![0]!, backend: { id: "mcp", method: "set-time" } }] })).toEqual({ code: "manifest_invalid", path: "/tools/0/backend/method" });
    expect(refusal({ ...app, tools: [{ ...app.tools![0]!, activation_requirement: "app_ready" }] })).toEqual({ code: "manifest_invalid", path: "/tools/0/activation_requirement" });
    expect(refusal({ ...app, tools: [{ ...app.tools![0]!, call_model: "interactive" }] })).toMatchObject({ code: "manifest_invalid" });
    const { backend: _backend, ...unserved } = app.tools![0]!;
    expect(refusal({ ...app, tools: [unserved] })).toEqual({ code: "manifest_invalid", path: "/tools/0/view" });
    expect(refusal({ ...app, tools: [{ ...app.tools![0]!, view: { resource_uri: "https://example.com/x.html" } }] })).toMatchObject({ code: "manifest_invalid" });
    // An MCP tool name is an MCP back-end's method only; other protocols keep dotted lowercase, and take no args.
    const { args: _args, ...withoutArgs } = app.backends![0]!;
    const stdio = { ...withoutArgs, protocol: "stdio-jsonrpc" as const };
    expect(refusal({ ...app, tools: [], backends: [stdio] })).toEqual({ code: "manifest_invalid", path: "/backends/0/methods/0/name" });
    expect(refusal({ ...app, tools: [], backends: [{ ...stdio, args: ["--stdio"], methods: [{ name: "get.time" }] }] })).toEqual({ code: "manifest_invalid", path: "/backends/0/args" });
    // The tool's back-end must be an MCP one.
    expect(refusal({ ...app, tools: [{ ...app.tools![0]!, backend: { id: "mcp", method: "get.time" } }], backends: [{ ...stdio, methods: [{ name: "get.time" }] }] })).toEqual({ code: "manifest_invalid", path: "/tools/0/backend/id" });
    // mcp-http is a cloud-remote back-end: it names an endpoint and has no entry.
    expect(refusal({ ...app, tools: [], backends: [{ id: "mcp", plane: "client-local", protocol: "mcp-http", methods: [{ name: "get-time" }] }] })).toEqual({ code: "manifest_invalid", path: "/backends/0/protocol" });
  });
});
