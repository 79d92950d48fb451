/**
 * The session's inventory offered to a model as function tools. Function names must match
 * `^[a-zA-Z0-9_-]{1,64}$`, so `whiteboard` + `board.create` becomes `whiteboard__board_create`
 * (shortened and numbered when needed); the map, not the name, tells which tool was meant.
 */
import type { InventoryTool, JsonObject } from "@lineup/protocol";
import type { ChatFunctionTool } from "./chat-completions.js";

export interface FunctionToolSet {
  readonly tools: readonly ChatFunctionTool[];
  readonly byName: ReadonlyMap<string, InventoryTool>;
}

export function functionName(tool: Pick<InventoryTool, "app_scope" | "method">): string {
  return `${tool.app_scope}__${tool.method}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

/**
 * A tool's input schema as the function-calling APIs and MCP's `inputSchema` accept it: an object schema
 * without meta keys (`$schema`, `$id`).
 */
export function objectSchemaOf(schema: JsonObject): JsonObject {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest["type"] === undefined ? { type: "object", ...rest } : rest;
}

export function toFunctionTools(inventory: readonly InventoryTool[]): FunctionToolSet {
  const byName = new Map<string, InventoryTool>();
  const tools: ChatFunctionTool[] = [];
  for (const tool of inventory) {
    let name = functionName(tool);
    for (let n = 2; byName.has(name); n++) name = `${functionName(tool).slice(0, 60)}_${n}`;
    byName.set(name, tool);
    const description = `${tool.title}. ${tool.description}`.trim().slice(0, 1_024);
    tools.push({ type: "function", function: { name, description, parameters: objectSchemaOf(tool.input_schema) } });
  }
  return { tools, byName };
}
