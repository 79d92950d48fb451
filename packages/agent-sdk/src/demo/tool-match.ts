/**
 * Finding the tool for "open the whiteboard" in whatever inventory the device published, and
 * filling its arguments from the user's words and the tool's input schema.
 *
 * Apps name their tools freely (`board.create`, `whiteboard.open`, …), so a tool matches a
 * target by its app scope or its method prefix, and the preferred verbs break ties.
 */
import type { InventoryTool, JsonObject, JsonValue } from "@lineup/protocol";
import type { AppTargetName } from "./intents.js";

export interface AppTarget {
  /** One of the apps the agent knows, or `tool`: any app's tool the person named ("use `clock.get_time`"). */
  readonly name: AppTargetName | "tool";
  /** How the app is called in replies. */
  readonly label: string;
  /** What the user should install from the App Registry. */
  readonly installName: string;
  readonly scopes: readonly string[];
  readonly prefixes: readonly string[];
  /** Last method segments, most wanted first. */
  readonly verbs: readonly string[];
  /**
   * When its call goes on without the turn (the server runs one turn at a time, so a turn that waits
   * holds back whatever the person says meanwhile): `timed_operation` once the Runtime has started the
   * timer (a pomodoro lasts minutes); `waiting_for_user` once the app shows the person the request (a
   * voice note is recorded when they like). The agent tells how it went when the result comes.
   */
  readonly detach?: "timed_operation" | "waiting_for_user";
}

export const APP_TARGETS: Readonly<Record<AppTargetName, AppTarget>> = {
  whiteboard: { name: "whiteboard", label: "whiteboard", installName: "Whiteboard", scopes: ["whiteboard"], prefixes: ["board.", "whiteboard."], verbs: ["create", "open", "new", "start"] },
  "draw-and-guess": {
    name: "draw-and-guess",
    label: "draw-and-guess game",
    installName: "Draw and Guess",
    scopes: ["draw-and-guess", "draw-guess", "drawguess"],
    prefixes: ["game.", "draw_and_guess.", "guess."],
    verbs: ["start_round", "start", "new_round", "new_game", "play"],
  },
  pomodoro: { name: "pomodoro", label: "pomodoro timer", installName: "Pomodoro", scopes: ["pomodoro", "timer"], prefixes: ["pomodoro.", "timer."], verbs: ["start", "begin", "start_session"], detach: "timed_operation" },
  voice: {
    name: "voice",
    label: "voice recorder",
    installName: "Voice Notes",
    scopes: ["voice", "voice-recorder", "voice-note", "voice-notes", "recorder"],
    prefixes: ["voice.", "recording.", "recorder."],
    verbs: ["request_recording", "record", "start_recording", "start"],
    detach: "waiting_for_user",
  },
  "task-dashboard": { name: "task-dashboard", label: "task dashboard", installName: "Task Dashboard", scopes: ["task-dashboard"], prefixes: ["tasks."], verbs: ["open"] },
};

/** True when the tool belongs to the target app: by its app scope or its method prefix. */
export function belongsTo(tool: Pick<InventoryTool, "app_scope" | "method">, target: AppTarget): boolean {
  return score(tool, target) > 0;
}

function score(tool: Pick<InventoryTool, "app_scope" | "method">, target: AppTarget): number {
  const scopeMatch = target.scopes.includes(tool.app_scope) || tool.app_scope.includes(target.name);
  const prefixMatch = target.prefixes.some((p) => tool.method.startsWith(p));
  if (!scopeMatch && !prefixMatch) return 0;
  const verb = tool.method.slice(tool.method.lastIndexOf(".") + 1);
  const verbIndex = target.verbs.indexOf(verb);
  return (scopeMatch ? 100 : 0) + (prefixMatch ? 50 : 0) + (verbIndex < 0 ? 0 : 20 - verbIndex);
}

/** The best tool of the inventory for the target, or undefined when none belongs to it. */
export function matchTool(tools: readonly InventoryTool[], target: AppTarget): InventoryTool | undefined {
  let best: InventoryTool | undefined;
  let bestScore = 0;
  for (const tool of tools) {
    const s = score(tool, target);
    if (s > bestScore) {
      best = tool;
      bestScore = s;
    }
  }
  return best;
}

export type SchemaNode = { type?: unknown; default?: unknown; enum?: unknown; minimum?: unknown; properties?: unknown; required?: unknown; title?: unknown; description?: unknown };

export const asNode = (value: unknown): SchemaNode => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as SchemaNode) : {});

/** "25 minutes", "25 min", "25分钟" → 25. */
export function minutesIn(text: string): number | undefined {
  const m = /(\d{1,3})\s*(?:minutes?|mins?\b|m\b|分钟)/i.exec(text);
  return m === null ? undefined : Number(m[1]);
}

/** "… about cats", "… called Ideas", "… titled Plan" → the rest of the sentence. */
export function topicIn(text: string): string | undefined {
  const m = /\b(?:about|called|titled|named|for)\s+["“]?([^"”.!?\n]{1,80})/i.exec(text);
  return m?.[1]?.trim() || undefined;
}

function valueFor(name: string, node: SchemaNode, text: string, target: AppTarget): JsonValue | undefined {
  if (node.default !== undefined) return node.default as JsonValue;
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0] as JsonValue;
  const type = Array.isArray(node.type) ? node.type[0] : node.type;
  const minutes = minutesIn(text);
  switch (type) {
    case "integer":
    case "number": {
      if (/second|_s$/.test(name)) return (minutes ?? 25) * 60;
      if (/_ms$|millis/.test(name)) return (minutes ?? 25) * 60_000;
      if (/minute|duration/.test(name)) return minutes ?? 25;
      if (/round|count|number/.test(name)) return 1;
      return typeof node.minimum === "number" ? node.minimum : 1;
    }
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return {};
    case "string":
    default:
      // What to ask the person ("record a voice note about the trip" → "Tell me about the trip").
      if (/prompt|question/.test(name)) {
        const topic = topicIn(text);
        return topic === undefined ? `${target.installName}, please` : `Tell me about ${topic}`;
      }
      if (/title|name|topic|label|subject|word/.test(name)) return topicIn(text) ?? `${target.installName} from chat`;
      return topicIn(text) ?? text.slice(0, 200);
  }
}

/** The first of the node's string enum values the text names as a whole word (any case). */
export function enumValueIn(node: SchemaNode, text: string): string | undefined {
  if (!Array.isArray(node.enum)) return undefined;
  const words = new Set(text.toLowerCase().split(/[^\p{L}\p{N}_-]+/u));
  return node.enum.find((v): v is string => typeof v === "string" && words.has(v.toLowerCase()));
}

/**
 * Arguments for the tool: every required property (from its default, its enum, the user's
 * words or a sensible value of its type), plus the optional ones the user clearly gave
 * (a duration, a title, what to ask the person about, one of a property's enum values named as a word:
 * "… with animals").
 */
export function argumentsFor(tool: InventoryTool, text: string, target: AppTarget): JsonObject {
  const schema = asNode(tool.input_schema);
  const properties = asNode(schema.properties) as Record<string, unknown>;
  const required = Array.isArray(schema.required) ? (schema.required.filter((r) => typeof r === "string") as string[]) : [];
  const args: JsonObject = {};
  for (const name of required) {
    const value = valueFor(name, asNode(properties[name]), text, target);
    if (value !== undefined) args[name] = value;
  }
  for (const name of Object.keys(properties)) {
    if (name in args) continue;
    const named = enumValueIn(asNode(properties[name]), text);
    if (named !== undefined) {
      args[name] = named;
      continue;
    }
    const mentioned = (/minute|duration/.test(name) && minutesIn(text) !== undefined) || (/title|topic|name|prompt|question/.test(name) && topicIn(text) !== undefined);
    if (mentioned) {
      const value = valueFor(name, { ...asNode(properties[name]), default: undefined }, text, target);
      if (value !== undefined) args[name] = value;
    }
  }
  return args;
}
