/**
 * A session's inventory as MCP tools (docs/mcp.md):
 *
 * - **Names** are `<app_scope>.<method>` (`notes.count`). An app scope has no dot and a method is never
 *   empty, so the first dot splits a name back into the two. A name longer than MCP's 128 characters, or
 *   one the conversation tools already take, is cut and numbered (`…-2`): its method part then holds a
 *   `-`, which no method does, so it can never be taken for another tool's name. The table of the list
 *   the client was given, not the name's text, says which tool a call means.
 * - **Schemas**: `inputSchema` is the tool's input schema without its meta keys; an object
 *   `output_schema` is the `outputSchema`, any other is wrapped as `{ result: … }` (MCP's structured
 *   content is always an object), and the result is wrapped the same way.
 * - **Annotations** from the call model: a `query` is `readOnlyHint` and `idempotentHint`; any other is
 *   neither, and `destructiveHint` when its risk level is `high`.
 * - **`_meta["lineup/tool"]`**: the app scope, method, contract version, call model, risk level and the
 *   inventory revision the list was made from.
 */
import type { InventoryTool, JsonObject, JsonValue } from "@lineup/protocol";
import { objectSchemaOf, type SessionInventory } from "@lineup/agent-sdk";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

/** MCP's limit on a tool name (SEP-986). */
export const MCP_TOOL_NAME_MAX = 128;

/** The `_meta` key each listed tool carries. */
export const TOOL_META_KEY = "lineup/tool";

/** The MCP name of an inventory tool, before shortening. */
export function mcpToolName(tool: Pick<InventoryTool, "app_scope" | "method">): string {
  return `${tool.app_scope}.${tool.method}`;
}

/** The app scope and method a name stands for; undefined for a name no inventory tool can have. */
export function parseMcpToolName(name: string): { readonly appScope: string; readonly method: string } | undefined {
  const dot = name.indexOf(".");
  if (dot <= 0 || dot === name.length - 1) return undefined;
  return { appScope: name.slice(0, dot), method: name.slice(dot + 1) };
}

function isObjectSchema(schema: JsonObject): boolean {
  return schema["type"] === "object";
}

/** How a tool's results become structured content: as they are, or wrapped as `{ result }`. */
export type ResultShape = "object" | "wrapped";

export interface ListedTool {
  readonly tool: InventoryTool;
  readonly descriptor: Tool;
  readonly shape: ResultShape;
}

/** The inventory as the client sees it: the MCP descriptors and, by name, the tools they stand for. */
export interface McpToolTable {
  readonly revision: number;
  readonly byName: ReadonlyMap<string, ListedTool>;
}

/**
 * The MCP tools of an inventory. `taken` are names other tools already use (the conversation tools);
 * an inventory tool never gets one of them.
 */
export function toolTable(inventory: SessionInventory | undefined, taken: ReadonlySet<string>): McpToolTable {
  const byName = new Map<string, ListedTool>();
  for (const tool of inventory?.tools ?? []) {
    const full = mcpToolName(tool);
    let name = full;
    for (let n = 2; name.length > MCP_TOOL_NAME_MAX || taken.has(name) || byName.has(name); n++) name = `${full.slice(0, MCP_TOOL_NAME_MAX - 8)}-${n}`;
    // Not `objectSchemaOf`: an output schema without a `type` is not an object schema.
    const { $schema: _schema, $id: _id, ...output } = tool.output_schema ?? {};
    const hasOutput = tool.output_schema !== undefined;
    const shape: ResultShape = !hasOutput || isObjectSchema(output) ? "object" : "wrapped";
    const query = tool.call_model === "query";
    const descriptor: Tool = {
      name,
      title: tool.title,
      description: tool.description,
      inputSchema: objectSchemaOf(tool.input_schema) as Tool["inputSchema"],
      ...(!hasOutput ? {} : { outputSchema: (shape === "object" ? output : { type: "object", properties: { result: output }, required: ["result"] }) as Tool["outputSchema"] }),
      annotations: { title: tool.title, readOnlyHint: query, idempotentHint: query, ...(query ? {} : { destructiveHint: tool.risk_level === "high" }) },
      _meta: {
        [TOOL_META_KEY]: {
          app_scope: tool.app_scope,
          method: tool.method,
          contract_version: tool.contract_version,
          call_model: tool.call_model,
          ...(tool.risk_level === undefined ? {} : { risk_level: tool.risk_level }),
          inventory_revision: inventory?.revision ?? 0,
        },
      },
    };
    byName.set(name, { tool, descriptor, shape });
  }
  return { revision: inventory?.revision ?? 0, byName };
}

/** A tool's result as MCP structured content: the object itself, or `{ result }` for anything else. */
export function structuredResult(result: JsonValue, shape: ResultShape): JsonObject {
  return shape === "object" && result !== null && typeof result === "object" && !Array.isArray(result) ? result : { result };
}
