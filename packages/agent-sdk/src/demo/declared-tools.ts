/**
 * Apps the demo agent has no special knowledge of, worked from what the inventory declares: a person who
 * names a tool's title ("play a round"), or says "open <app>" of an app the agent never heard of, gets that
 * tool called. Its required inputs are filled from the schema where it says how (a default, an enum value the
 * person named or its first one, `false`), and asked for with an input card otherwise. Pure; the agent runs it.
 */
import type { InventoryTool, JsonObject, JsonValue } from "@lineup/protocol";
import { asNode, enumValueIn, type SchemaNode } from "./tool-match.js";

/** Words that ask for an app to be opened or started, in English and Chinese. */
const OPENING = /\b(?:open|start|launch|show|play|run|use)\b|打开|启动|开始|使用/;

const words = (text: string): string =>
  ` ${text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()} `;

/** The app's name as a person says it: its scope's words ("tally-counter" → "tally counter"). */
const appWords = (appScope: string): string => appScope.replace(/-/g, " ");

/** Last method segments that open or start an app, most wanted first: the tool "open <app>" calls. */
const OPENING_VERBS = ["open", "start", "show", "new", "create", "play", "begin"];

/**
 * The inventory's tool the text asks for: one whose title the text names (the longest such title), else, when
 * the text asks to open or start something, the opening tool of an app whose name the text names. Undefined
 * when the text names none of them.
 */
export function declaredToolFor(text: string, tools: readonly InventoryTool[]): InventoryTool | undefined {
  const said = words(text);
  const byTitle = best(tools, (tool) => {
    const title = words(tool.title);
    return title.trim().length >= 3 && said.includes(title) ? title.length : 0;
  });
  if (byTitle !== undefined || !OPENING.test(text.toLowerCase())) return byTitle;
  return best(tools, (tool) => {
    if (!said.includes(words(appWords(tool.app_scope)))) return 0;
    const rank = OPENING_VERBS.indexOf(tool.method.slice(tool.method.lastIndexOf(".") + 1));
    return rank < 0 ? 1 : 100 - rank;
  });
}

/** The tool with the highest positive score, the first of equals; undefined when none scores. */
function best(tools: readonly InventoryTool[], score: (tool: InventoryTool) => number): InventoryTool | undefined {
  let chosen: InventoryTool | undefined;
  let top = 0;
  for (const tool of tools) {
    const s = score(tool);
    if (s > top) {
      chosen = tool;
      top = s;
    }
  }
  return chosen;
}

/** A required input the schema gives no value for: the agent asks the person for it. */
export interface MissingInput {
  readonly name: string;
  /** What the input card says: the property's title, else its description, else its name. */
  readonly prompt: string;
  readonly type: "string" | "number" | "integer";
}

/**
 * The arguments the schema lets the agent fill on its own — every required property with a default, an enum
 * (the value the person named, else the first) or a boolean type (`false`), and the optional enums the person
 * named — and the required ones it must ask for. A required property of another type (an object, an array)
 * with no default cannot be asked for in a card: it is `unfillable`.
 */
export function declaredArguments(tool: InventoryTool, text: string): { readonly args: JsonObject; readonly missing: readonly MissingInput[]; readonly unfillable: readonly string[] } {
  const schema = asNode(tool.input_schema);
  const properties = asNode(schema.properties) as Record<string, unknown>;
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
  const args: JsonObject = {};
  const missing: MissingInput[] = [];
  const unfillable: string[] = [];
  for (const name of required) {
    const node = asNode(properties[name]);
    if (node.default !== undefined) args[name] = node.default as JsonValue;
    else if (Array.isArray(node.enum) && node.enum.length > 0) args[name] = enumValueIn(node, text) ?? (node.enum[0] as JsonValue);
    else {
      const type = Array.isArray(node.type) ? node.type[0] : node.type;
      if (type === "boolean") args[name] = false;
      else if (type === "string" || type === "number" || type === "integer") missing.push({ name, prompt: promptOf(name, node), type });
      else unfillable.push(name);
    }
  }
  for (const name of Object.keys(properties)) {
    if (name in args) continue;
    const named = enumValueIn(asNode(properties[name]), text);
    if (named !== undefined) args[name] = named;
  }
  return { args, missing, unfillable };
}

function promptOf(name: string, node: SchemaNode): string {
  const said = [node.title, node.description].find((s): s is string => typeof s === "string" && s.trim() !== "");
  return (said ?? name.replace(/_/g, " ")).slice(0, 200);
}

/** The person's answer to an input card as the property's value; undefined when it is not one (a number expected). */
export function answerValue(input: MissingInput, answer: string): JsonValue | undefined {
  const text = answer.trim();
  if (input.type === "string") return text === "" ? undefined : text;
  const value = Number(text);
  if (text === "" || !Number.isFinite(value) || (input.type === "integer" && !Number.isInteger(value))) return undefined;
  return value;
}
