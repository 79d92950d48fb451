/**
 * The Surface Bridge's app-side validators as schema data for `subsetValidator` (src/subset-validator.ts),
 * not Ajv code: every app's page carries them, and five flat schemas as data weigh a fraction of
 * their compiled form. A schema that uses a keyword outside the subset fails the generation, so a
 * constraint is never dropped on the way.
 */
import { ERROR_CODES } from "../src/errors.js";
import { BRIDGE_EVENTS, BRIDGE_METHODS } from "../src/surface-bridge/catalogue.js";
import { BridgeEventFrameSchema, BridgeRequestFrameSchema, BridgeResponseFrameSchema } from "../src/surface-bridge/schemas.js";

/** Keywords that say something about a value without constraining it: left out of the data. */
const ANNOTATIONS = new Set(["$id", "$schema", "title", "description", "examples", "default", "deprecated", "readOnly", "writeOnly", "$comment"]);
const SCALAR_KEYWORDS = new Set(["maximum", "minimum", "maxLength", "minLength", "pattern"]);
const TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isPrimitive = (value: unknown): boolean => value === null || ["string", "number", "boolean"].includes(typeof value);

/** The schema's constraints in `subsetValidator`'s terms; throws on anything it does not read. */
export function subsetSchema(schema: Record<string, unknown>, where: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    const bad = (): never => {
      throw new Error(`${where}: ${key} ${JSON.stringify(value).slice(0, 60)} is outside the app-side validator's subset (src/subset-validator.ts)`);
    };
    if (key === "type") {
      if (typeof value !== "string" || !TYPES.has(value)) bad();
    } else if (key === "const") {
      if (!isPrimitive(value)) bad();
    } else if (key === "enum") {
      if (!Array.isArray(value) || !value.every(isPrimitive)) bad();
    } else if (SCALAR_KEYWORDS.has(key)) {
      if (key === "pattern" ? typeof value !== "string" : typeof value !== "number") bad();
    } else if (key === "required") {
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) bad();
    } else if (key === "additionalProperties") {
      if (value !== false) bad();
    } else if (key === "properties") {
      if (!isObject(value)) bad();
      out[key] = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, child]) => [name, isObject(child) ? subsetSchema(child, `${where}/properties/${name}`) : bad()]));
      continue;
    } else bad();
    out[key] = value;
  }
  return out;
}

/**
 * The module: each subschema used more than once (the nonce, the method name) is one constant, and
 * the error code list is the one in error-codes.ts.
 */
export function subsetModule(header: string, schemas: ReadonlyMap<string, Record<string, unknown>>, members: Record<string, string>): string {
  const codes = JSON.stringify(Object.keys(ERROR_CODES));
  const trees = Object.entries(members).map(([name, id]) => {
    const schema = schemas.get(id);
    if (schema === undefined) throw new Error(`no schema ${id}`);
    return [name, id, subsetSchema(schema, id)] as const;
  });
  const uses = new Map<string, number>();
  const count = (s: Record<string, unknown>): void => {
    const key = JSON.stringify(s);
    uses.set(key, (uses.get(key) ?? 0) + 1);
    for (const child of Object.values((s["properties"] as Record<string, Record<string, unknown>> | undefined) ?? {})) count(child);
  };
  for (const [, , tree] of trees) count(tree);
  const shared = new Map<string, string>();
  const lines: string[] = [];
  const render = (s: Record<string, unknown>): string => {
    const key = JSON.stringify(s);
    const name = shared.get(key);
    if (name !== undefined) return name;
    const body = `{${Object.entries(s)
      .map(([k, v]) => `${JSON.stringify(k)}:${k === "properties" ? `{${Object.entries(v as Record<string, Record<string, unknown>>).map(([p, c]) => `${JSON.stringify(p)}:${render(c)}`).join(",")}}` : JSON.stringify(v)}`)
      .join(",")}}`.split(codes).join("ERROR_CODE_NAMES");
    if ((uses.get(key) ?? 0) < 2 || key.length < 24) return body;
    const constant = `s${shared.size}`;
    shared.set(key, constant);
    lines.push(`const ${constant} = ${body};`);
    return constant;
  };
  const exports = trees.map(([name, , tree]) => `export const ${name} = subsetValidator(${render(tree)});`);
  return [
    "// @ts-nocheck",
    "/* eslint-disable */",
    header,
    'import { subsetValidator } from "../subset-validator.js";',
    ...(lines.concat(exports).some((l) => l.includes("ERROR_CODE_NAMES")) ? ['import { ERROR_CODE_NAMES } from "./error-codes.js";'] : []),
    ...lines,
    ...exports,
    "",
    'import type { CompiledValidator } from "../validation.js";',
    "/** This contract's validators, keyed by schema $id. */",
    "export const validators: Readonly<Record<string, CompiledValidator>> = {",
    ...trees.map(([name, id]) => `  ${JSON.stringify(id)}: ${name},`),
    "};",
    ...appSideTables(trees.map(([name, id]) => [id, name])),
    "",
  ].join("\n");
}

/**
 * What the app's decoder reads, by name rather than by schema $id (a page then carries no table of
 * ids): the frame validators by kind, and the params validator of each host → app method.
 */
function appSideTables(names: ReadonlyArray<readonly [string, string]>): string[] {
  const byId = new Map(names);
  const name = (id: string | undefined): string => {
    const found = id === undefined ? undefined : byId.get(id);
    if (found === undefined) throw new Error(`the app side has no validator for ${id}`);
    return found;
  };
  const toApp = Object.entries(BRIDGE_METHODS).filter(([, spec]) => spec.direction === "to_app");
  return [
    "/** The frame validators by kind. */",
    "export const frameValidators = {",
    `  request: ${name(BridgeRequestFrameSchema.$id)},`,
    `  response: ${name(BridgeResponseFrameSchema.$id)},`,
    `  event: ${name(BridgeEventFrameSchema.$id)},`,
    "};",
    "/** The params validator of each host → app method (catalogue.ts's `BRIDGE_METHODS`). */",
    "export const toAppParams: Readonly<Record<string, CompiledValidator>> = {",
    ...toApp.map(([method, spec]) => `  ${JSON.stringify(method)}: ${name(spec.params.$id)},`),
    "};",
    ...bridgeDirections(),
  ];
}

/**
 * The catalogue's methods and events by the direction they flow (a method's: its request's), as
 * plain data beside the app side's validators: a decoder reads the directions without the schemas.
 */
function bridgeDirections(): string[] {
  const names = (entries: Record<string, { readonly direction: string }>, direction: string): string =>
    JSON.stringify(Object.entries(entries).filter(([, spec]) => spec.direction === direction).map(([name]) => name));
  const table = (entries: Record<string, { readonly direction: string }>): string[] => [`  to_app: ${names(entries, "to_app")},`, `  to_host: ${names(entries, "to_host")},`];
  for (const spec of [...Object.values(BRIDGE_METHODS), ...Object.values(BRIDGE_EVENTS)]) {
    if (spec.direction !== "to_app" && spec.direction !== "to_host") throw new Error(`unknown bridge direction ${spec.direction}`);
  }
  return [
    "/** Bridge methods by the direction of their request (catalogue.ts's `BRIDGE_METHODS`). */",
    "export const methodsByDirection: Readonly<Record<\"to_host\" | \"to_app\", readonly string[]>> = {",
    ...table(BRIDGE_METHODS),
    "};",
    "/** Bridge events by their direction (catalogue.ts's `BRIDGE_EVENTS`). */",
    "export const eventsByDirection: Readonly<Record<\"to_host\" | \"to_app\", readonly string[]>> = {",
    ...table(BRIDGE_EVENTS),
    "};",
  ];
}
