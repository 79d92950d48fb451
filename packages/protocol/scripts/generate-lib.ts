/**
 * Build-time generation of the protocol's validators and JSON Schema files.
 *
 * Validators are Ajv standalone code: compiled here, once, into plain functions, so neither the
 * browser host (strict CSP, no `eval`) nor Node ever compiles a schema at run time. The few Ajv
 * runtime helpers the code needs are inlined, so the generated module imports nothing.
 */
import Ajv2020Module from "ajv/dist/2020.js";
import standaloneModule from "ajv/dist/standalone/index.js";
import type { TSchema } from "@sinclair/typebox";
import { APP_SERVER_CLIENT_SIDE_SCHEMA_IDS } from "../src/app-server/catalogue.js";
import { ERROR_CODES } from "../src/errors.js";
import { SCHEMA_ID_PREFIX } from "../src/schema-kit.js";
import { BRIDGE_APP_SIDE_SCHEMA_IDS, BRIDGE_HOST_SIDE_SCHEMA_IDS } from "../src/surface-bridge/catalogue.js";
import { subsetModule } from "./generate-subset.js";

const Ajv2020 = Ajv2020Module.default;
const standaloneCode = standaloneModule.default;

export const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

/** Plain JSON copy of a TypeBox schema (drops TypeBox's symbol keys). */
export function toJsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/**
 * Meta-schemas Ajv already knows, emitted as validators beside the protocol's own (name → `$id`),
 * so the Runtime can check that a schema an app supplies is itself a JSON Schema without
 * compiling anything at run time. Their formats (`uri`, `regex`, …) are annotations here.
 */
export const META_SCHEMA_VALIDATORS: Readonly<Record<string, string>> = {
  validate_json_schema_2020_12: DRAFT_2020_12,
};

export function validatorName(id: string): string {
  return `validate_${id.slice(SCHEMA_ID_PREFIX.length).replace(/[^A-Za-z0-9]/g, "_")}`;
}

export function schemaFileName(id: string): string {
  return `${id.slice(SCHEMA_ID_PREFIX.length)}.json`;
}

// Ajv's standalone output `require`s a few runtime helpers; these are equivalent inlined versions.
const RUNTIME_HELPERS: Record<string, string> = {
  "ajv/dist/runtime/ucs2length":
    "function(str){let length=0;let pos=0;const len=str.length;while(pos<len){length++;const value=str.charCodeAt(pos++);if(value>=0xd800&&value<=0xdbff&&pos<len){const next=str.charCodeAt(pos);if((next&0xfc00)===0xdc00)pos++;}}return length;}",
  "ajv/dist/runtime/equal":
    "function equal(a,b){if(a===b)return true;if(a&&b&&typeof a==='object'&&typeof b==='object'){if(Array.isArray(a)){if(!Array.isArray(b)||a.length!==b.length)return false;for(let i=0;i<a.length;i++)if(!equal(a[i],b[i]))return false;return true;}if(Array.isArray(b))return false;const ka=Object.keys(a);if(ka.length!==Object.keys(b).length)return false;for(const k of ka)if(!Object.prototype.hasOwnProperty.call(b,k)||!equal(a[k],b[k]))return false;return true;}return a!==a&&b!==b;}",
};

/**
 * Counting code points is linear in the string; the UTF-16 length bounds it from above, so most
 * checks are settled without counting: `count > max` cannot hold when `length <= max`, and
 * `count < min` always holds when `length < min`.
 */
function shortCircuitLengthChecks(code: string): string {
  const ucs2 = /const (func\d+) = \(function\(str\)\{let length=0/.exec(code)?.[1];
  if (ucs2 === undefined) return code;
  return code
    .replace(new RegExp(`${ucs2}\\((\\w+)\\) > (\\d+)`, "g"), (_m, v: string, n: string) => `(${v}.length > ${n} && ${ucs2}(${v}) > ${n})`)
    .replace(new RegExp(`${ucs2}\\((\\w+)\\) < (\\d+)`, "g"), (_m, v: string, n: string) => `(${v}.length < ${n} || ${ucs2}(${v}) < ${n})`);
}

export const VALIDATOR_GROUPS = ["envelope", "app-server", "app-server-client", "surface-bridge-app", "surface-bridge-host", "surface-bridge", "host-channel", "legacy", "manifest", "app-records", "tool-descriptor", "json-schema"] as const;
export type ValidatorGroup = (typeof VALIDATOR_GROUPS)[number];

/** Which generated module holds the validator of a schema id. */
export function validatorGroup(id: string): ValidatorGroup {
  const name = id.startsWith(SCHEMA_ID_PREFIX) ? id.slice(SCHEMA_ID_PREFIX.length) : "";
  // A client (the web host) decodes what the server sends it; the params of its own requests are checked by the server.
  if (APP_SERVER_CLIENT_SIDE_SCHEMA_IDS.has(id)) return "app-server-client";
  if (name.startsWith("app-server.") || name.startsWith("jsonrpc.")) return "app-server";
  // Each end of the bridge carries the validators of what it receives; the bodies a host writes are
  // checked only by the full decoder (fixtures, conformance), so neither page carries them.
  if (BRIDGE_APP_SIDE_SCHEMA_IDS.has(id)) return "surface-bridge-app";
  if (BRIDGE_HOST_SIDE_SCHEMA_IDS.has(id)) return "surface-bridge-host";
  if (name.startsWith("surface-bridge.")) return "surface-bridge";
  if (name.startsWith("host-channel.")) return "host-channel";
  if (name.startsWith("legacy.")) return "legacy";
  if (name.startsWith("runtime-envelope") || name.startsWith("payload.") || name.startsWith("artifact-ref")) return "envelope";
  // An app's page checks its own tool descriptors and the JSON Schemas in them, not whole manifests.
  if (name.startsWith("tool-descriptor.")) return "tool-descriptor";
  if (!id.startsWith(SCHEMA_ID_PREFIX)) return "json-schema";
  // A whole manifest is checked only where an app is installed, updated or packed, which loads it when it
  // does; what a running app's calls are checked against (capability results, workflows, agent tasks) is apart.
  if (name === "app-manifest.v1") return "manifest";
  return "app-records";
}

const camel = (group: string): string => group.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * Ajv records each error's `schemaPath`, which nothing reads, as a string literal at every check; it
 * is dropped. (With `messages: false` Ajv leaves out the sentence too: `describeSchemaError` words it
 * from the keyword and its params, so the generated code carries neither.)
 */
function dropSchemaPaths(code: string): string {
  const out = code.replace(/,schemaPath:"(?:[^"\\]|\\.)*"/g, "");
  if (out.includes("schemaPath:")) throw new Error("generated validator still records a schemaPath");
  return out;
}

/**
 * Each failing check sets its validator's `errors` to a one-error array literal and returns false:
 * most of the generated code. The same statement becomes a call of one shared function.
 */
const REJECT = "const reject_ = (validate, instancePath, keyword, params) => { validate.errors = [{ instancePath, keyword, params }]; return false; };";

function shareRejections(code: string): string {
  if (/\breject_\b/.test(code)) throw new Error("generated validator already uses the name reject_");
  return code.replace(
    /(validate\d+)\.errors = \[\{instancePath(?::(.*?))?,keyword:("\w+"),params:(\{.*?\})\}\];return false;/g,
    (_m, validate: string, path: string | undefined, keyword: string, params: string) => `return reject_(${validate},${path ?? "instancePath"},${keyword},${params});`,
  );
}

/**
 * The end (exclusive) of the JSON literal or code block that starts at `start`: brackets are matched
 * outside double-quoted strings (the generated code quotes every string so).
 */
function bracketEnd(code: string, start: number): number {
  let depth = 0;
  for (let i = start; i < code.length; i++) {
    const c = code[i];
    if (c === '"') {
      for (i++; code[i] !== '"'; i++) if (code[i] === "\\") i++;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  throw new Error("generated validator holds an unterminated schema literal");
}

/**
 * Ajv carries a validator's whole schema (titles and descriptions too) as a literal whenever its code
 * reads a part of it: a property list for `additionalProperties`, an enum's values. Each part read
 * becomes a constant of its own, one per distinct value; a property list becomes a `Set` of its
 * names, asked with `has` instead of `hasOwnProperty` on the schema's `properties`. The schema
 * literal then has no reader left and is dropped.
 */
function shareSchemaParts(code: string): string {
  const literals = new Map<string, { text: string; value: unknown }>();
  for (const found of code.matchAll(/const (schema\d+) = (?=\{)/g)) {
    const start = found.index + found[0].length;
    const text = code.slice(found.index, bracketEnd(code, start) + 1);
    if (!text.endsWith(";")) throw new Error(`schema literal ${found[1]} is not a plain statement`);
    literals.set(found[1]!, { text, value: JSON.parse(text.slice(found[0].length, -1)) });
  }
  const hasOwn = /const (func\d+) = Object\.prototype\.hasOwnProperty;/.exec(code)?.[1];
  const constants = new Map<string, string>();
  const constant = (kind: string, init: string): string => {
    const key = `${kind} ${init}`;
    let name = constants.get(key);
    if (name === undefined) {
      name = `${kind}${constants.size}_`;
      constants.set(key, name);
    }
    return name;
  };
  /** The part of a schema literal a read names, and the rest of the read (a method of that part: `.includes`). */
  const partOf = (name: string, path: string): [unknown, string] => {
    let value = literals.get(name)?.value;
    if (value === undefined) throw new Error(`generated validator reads ${name}, which it does not define`);
    for (const step of path.matchAll(/\.([A-Za-z_$][\w$]*)|\[(\d+)\]/g)) {
      const key = step[1] ?? step[2]!;
      if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return [value, path.slice(step.index)];
      value = (value as Record<string, unknown>)[key];
    }
    return [value, ""];
  };
  const part = String.raw`(schema\d+)((?:\.[A-Za-z_$][\w$]*|\[\d+\])+)`;
  // The literals are set aside while their reads are replaced, so a string inside one is never read as code.
  let out = code;
  for (const [index, { text }] of [...literals.values()].entries()) out = out.replace(text, `\0${index}\0`);
  if (hasOwn !== undefined) {
    out = out.replace(new RegExp(String.raw`${hasOwn}\.call\(${part}, (key\d+)\)`, "g"), (_m, name: string, path: string, key: string) => {
      const [properties, rest] = partOf(name, path);
      if (rest !== "" || typeof properties !== "object" || properties === null) throw new Error(`generated validator asks for own properties of ${name}${path}`);
      const names = Object.keys(properties);
      return `${constant("names", `new Set(${JSON.stringify(names)})`)}.has(${key})`;
    });
  }
  out = out.replace(new RegExp(part, "g"), (_m, name: string, path: string) => {
    const [value, rest] = partOf(name, path);
    if (typeof value !== "object" || value === null) throw new Error(`generated validator reads ${name}${path}, not a part of its schema`);
    return constant("part", JSON.stringify(value)) + rest;
  });
  for (const [index, [name, { text }]] of [...literals].entries()) {
    out = out.replace(`\0${index}\0`, new RegExp(String.raw`\b${name}\b`).test(out) ? text : "");
  }
  if (hasOwn !== undefined && out.split(new RegExp(String.raw`\b${hasOwn}\b`)).length === 2) out = out.replace(`const ${hasOwn} = Object.prototype.hasOwnProperty;`, "");
  if (/\b(?:names|part)\d+_\b/.test(code)) throw new Error("generated validator already uses a name of the form names0_ or part0_");
  if ([...constants.keys()].some((key) => key.includes('"__proto__"'))) throw new Error("a schema part read by a validator has a __proto__ key");
  const declarations = [...constants].map(([key, name]) => `const ${name} = ${key.slice(key.indexOf(" ") + 1)};`);
  return declarations.join("") + out;
}

/**
 * A validator that calls another passes it the parent, the property, the root and the dynamic anchors
 * (`$dynamicRef`), and each validator takes them: when no code of the module reads any of them, only
 * the instance path is passed and taken. Where a call fails, or a branch of `anyOf` records an error,
 * the same statements that grow the error list become calls of two shared functions.
 */
const ERROR_LIST_HELPERS = [
  "const concat_ = (list, more) => list === null ? more : list.concat(more);",
  "const push_ = (list, error) => { if (list === null) return [error]; list.push(error); return list; };",
];

function passOnlyThePath(code: string): string {
  const header = /\{instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors=\{\}\}=\{\}/g;
  const call = /,parentData:[\w$.[\]]+,parentDataProperty:(?:"(?:[^"\\]|\\.)*"|[\w$]+),rootData,dynamicAnchors\}/g;
  const out = code.replace(header, '{instancePath=""}={}').replace(call, "}");
  return /\b(?:parentData|parentDataProperty|rootData|dynamicAnchors)\b/.test(out) ? code : out;
}

function shareErrorListUpdates(code: string): string {
  if (/\b(?:concat_|push_)\b/.test(code)) throw new Error("generated validator already uses the name concat_ or push_");
  return code
    .replace(/vErrors = vErrors === null \? (validate\d+)\.errors : vErrors\.concat\(\1\.errors\);/g, (_m, v: string) => `vErrors = concat_(vErrors,${v}.errors);`)
    .replace(/if\(vErrors === null\)\{vErrors = \[(err\d+)\];\}else \{vErrors\.push\(\1\);\}/g, (_m, e: string) => `vErrors = push_(vErrors,${e});`);
}

const HEADER = "// Generated by `npm run gen` from src/schema-registry.ts. Do not edit: edit the schemas and regenerate.";

/** The codes of src/errors.ts's table, without what else the table says of them. */
function errorCodesModule(): string {
  return [
    "// Generated by `npm run gen` from src/errors.ts. Do not edit: edit the table and regenerate.",
    "/**",
    " * Every LineUp error code, in the table's order: what a bundle carries to recognise a code without the",
    " * table's descriptions. One code a line (every app's page carries the list: no quotes and commas).",
    " */",
    `export const ERROR_CODE_NAMES: readonly string[] = /* @__PURE__ */ \`${Object.keys(ERROR_CODES)
      .map((code) => {
        if (!/^[a-z][a-z0-9_]*$/.test(code)) throw new Error(`error code ${code} is not snake_case`);
        return code;
      })
      .join("\n")}\`.split("\\n");`,
    "",
  ].join("\n");
}

/**
 * A schema that allows any LineUp error code lists them all in its `enum` (checked in a loop over
 * that list, see `loopEnum`); each generated module refers to the one list in error-codes.ts
 * instead of carrying its own copy.
 */
function shareErrorCodeList(code: string): { code: string; imports: string[] } {
  const list = JSON.stringify(Object.keys(ERROR_CODES));
  if (!code.includes(list)) return { code, imports: [] };
  return { code: code.split(list).join("ERROR_CODE_NAMES"), imports: ['import { ERROR_CODE_NAMES } from "./error-codes.js";'] };
}

/**
 * Ajv 2020 gives every validator an `evaluated` record (for `unevaluatedProperties` and
 * `unevaluatedItems`) and code at its start that resets the record's props and items when they are
 * found at run time. When the record says neither is dynamic, that code never runs; when nothing
 * else reads the record either (a caller reads it only when it is dynamic), both are dropped.
 */
function dropStaticEvaluated(code: string): string {
  const reset = /const (evaluated\d+) = (validate\d+)\.evaluated;if\(\1\.dynamicProps\)\{\1\.props = undefined;\}if\(\1\.dynamicItems\)\{\1\.items = undefined;\}/g;
  const records = new Map<string, RegExp>();
  const out = code.replace(reset, (whole: string, local: string, name: string) => {
    const record = new RegExp(`\\}${name}\\.evaluated = \\{(?:"(?:props|items)":true,)*"dynamicProps":false,"dynamicItems":false\\};`);
    const found = record.exec(code);
    if (found === null || code.split(`${name}.evaluated`).length !== 3) return whole;
    const body = code.slice(code.indexOf(`function ${name}(`), found.index);
    if (body.match(new RegExp(`\\b${local}\\b`, "g"))?.length !== 5) return whole;
    records.set(name, record);
    return "";
  });
  let result = out;
  for (const record of records.values()) result = result.replace(record, "}");
  return result;
}

/**
 * An enum checked in a loop (`loopEnum`) compares with Ajv's deep `equal`, a call per value. Right
 * after a passed `type: "string"` check the value is a string, and for a string `equal(data, v)` is
 * `data === v`: the loop becomes the list's native `includes`.
 */
function stringEnumIncludes(code: string): string {
  return code.replace(
    /("type",\{type: "string"\}\);\}let (valid\d+);)\2 = false;for\(const (v\d+) of (schema\d+\.enum)\)\{if\(func\d+\(data, \3\)\)\{\2 = true;break;\}\}/g,
    (_m, head: string, valid: string, _v: string, list: string) => `${head}${valid} = ${list}.includes(data);`,
  );
}

/**
 * The contracts the Runtime carries together (its web chunk holds all four): a validator more than one
 * of them needs (the envelope inside an AppServer event, a task's turn options inside a record) is
 * defined once, in `shared.ts`, and imported by each, not compiled into every module.
 */
export const SHARING_GROUPS: readonly ValidatorGroup[] = ["envelope", "app-server-client", "legacy", "app-records"];

/** The validator functions a standalone module defines, by name. */
const definedFunctions = (code: string): string[] => [...code.matchAll(/function (validate\d+)\(/g)].map((m) => m[1]!);

/**
 * The standalone module without the definitions of `names` (each function and its `evaluated` record),
 * which it imports from shared.ts instead; the regular expressions only they used go with them.
 */
function importShared(code: string, names: readonly string[]): string {
  let out = code;
  for (const name of names) {
    const start = out.indexOf(`function ${name}(`);
    if (start < 0) throw new Error(`generated module does not define ${name}`);
    const open = out.indexOf('){/*# sourceURL="', start) + 1;
    let end = bracketEnd(out, open);
    const evaluated = `${name}.evaluated = `;
    if (out.startsWith(evaluated, end)) end = bracketEnd(out, end + evaluated.length) + 1;
    out = out.slice(0, start) + out.slice(end);
  }
  for (const found of [...out.matchAll(/const (pattern\d+) = new RegExp\("(?:[^"\\]|\\.)*", "\w*"\);/g)]) {
    if (out.split(new RegExp(String.raw`\b${found[1]}\b`)).length === 2) out = out.replace(found[0], "");
  }
  if (names.length === 0) return out;
  return `import { ${names.map((n) => `shared_${n} as ${n}`).join(", ")} } from "./shared.js";\n${out}`;
}

function renderModule(generated: string, members: Record<string, string>): string {
  const sharedImport = /^import \{[^}]*\} from "\.\/shared\.js";\n/.exec(generated)?.[0];
  let code = generated.slice(sharedImport?.length ?? 0).replace(/require\("([^"]+)"\)\.default/g, (_match, module: string) => {
    const helper = RUNTIME_HELPERS[module];
    if (helper === undefined) throw new Error(`generated validator needs an unknown runtime helper: ${module}`);
    return `(${helper})`;
  });
  if (/\brequire\(/.test(code)) throw new Error("generated validator still contains require()");
  const shared = shareErrorCodeList(shareSchemaParts(shareErrorListUpdates(passOnlyThePath(stringEnumIncludes(dropStaticEvaluated(shareRejections(dropSchemaPaths(shortCircuitLengthChecks(code)))))))));
  code = shared.code;
  return [
    "// @ts-nocheck",
    "/* eslint-disable */",
    HEADER,
    ...(sharedImport === undefined ? [] : [sharedImport.trimEnd()]),
    ...shared.imports,
    REJECT,
    ...ERROR_LIST_HELPERS,
    code.replace(/^"use strict";/, ""),
    "",
    ...(Object.keys(members).length === 0
      ? []
      : [
          'import type { CompiledValidator } from "../validation.js";',
          "/** This contract's generated validators, keyed by schema $id. */",
          "export const validators: Readonly<Record<string, CompiledValidator>> = {",
          ...Object.entries(members).map(([name, id]) => `  ${JSON.stringify(id)}: ${name},`),
          "};",
        ]),
    "",
  ].join("\n");
}

/** Keywords whose value is a subschema, or an array or map of subschemas (JSON Schema 2020-12 applicators). */
const SUBSCHEMA = new Set(["additionalProperties", "items", "contains", "not", "if", "then", "else", "propertyNames", "unevaluatedProperties", "unevaluatedItems"]);
const SUBSCHEMA_LISTS = new Set(["prefixItems", "anyOf", "oneOf", "allOf"]);
const SUBSCHEMA_MAPS = new Set(["properties", "patternProperties", "dependentSchemas", "$defs"]);
/** Keywords that say something about a value without constraining it. */
const ANNOTATIONS = new Set(["title", "description", "examples", "default", "deprecated", "readOnly", "writeOnly", "$comment"]);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The subschemas directly inside `schema`, with a function that replaces each. */
function* childSchemas(schema: Record<string, unknown>): Generator<[Record<string, unknown>, (next: Record<string, unknown>) => void]> {
  for (const [key, value] of Object.entries(schema)) {
    if (SUBSCHEMA.has(key) && isObject(value)) yield [value, (next) => (schema[key] = next)];
    else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) {
      for (const [i, item] of value.entries()) if (isObject(item)) yield [item, (next) => (value[i] = next)];
    } else if (SUBSCHEMA_MAPS.has(key) && isObject(value)) {
      for (const [name, item] of Object.entries(value)) if (isObject(item)) yield [item, (next) => (value[name] = next)];
    }
  }
}

/** A subschema with no subschema of its own, no `$ref` and no `$id`: its constraints as a stable key, or undefined. */
function leafKey(schema: Record<string, unknown>): string | undefined {
  if (childSchemas(schema).next().done !== true || "$ref" in schema || "$id" in schema || "$dynamicRef" in schema) return undefined;
  const constraints = Object.keys(schema).filter((k) => !ANNOTATIONS.has(k)).sort();
  return constraints.length === 0 ? undefined : JSON.stringify(constraints.map((k) => [k, schema[k]]));
}

/**
 * The same constraint written out in many schemas (an opaque id, a timestamp, a bounded name) would
 * be compiled into the same check at every place. For the compiler only (the JSON Schema files keep
 * every schema whole), each leaf subschema used `minUses` times or more becomes one shared schema
 * that every place references: one function instead of hundreds of copies. Errors are the same
 * (keyword, params and instance path), the annotations it drops validate nothing.
 */
function shareRepeatedLeaves(schemas: Record<string, unknown>[], minUses = 4): Record<string, unknown>[] {
  const uses = new Map<string, number>();
  const visit = (schema: Record<string, unknown>, act: (leaf: Record<string, unknown>, key: string, replace: (next: Record<string, unknown>) => void) => void): void => {
    for (const [child, replace] of childSchemas(schema)) {
      const key = leafKey(child);
      if (key === undefined) visit(child, act);
      else act(child, key, replace);
    }
  };
  for (const schema of schemas) visit(schema, (_leaf, key) => uses.set(key, (uses.get(key) ?? 0) + 1));
  const shared = new Map<string, Record<string, unknown>>();
  for (const schema of schemas) {
    visit(schema, (leaf, key, replace) => {
      if ((uses.get(key) ?? 0) < minUses || key.length < 60) return;
      let target = shared.get(key);
      if (target === undefined) {
        target = { $id: `${SCHEMA_ID_PREFIX}shared-constraint.${shared.size}`, ...Object.fromEntries(Object.entries(leaf).filter(([k]) => !ANNOTATIONS.has(k))) };
        shared.set(key, target);
      }
      replace({ $ref: target["$id"] });
    });
  }
  return [...shared.values()];
}

/** The number of values from which an enum is checked in a loop. */
const LOOP_ENUM = 16;

export interface GeneratedFiles {
  /** Path relative to the package root → file content. */
  readonly files: ReadonlyMap<string, string>;
}

export function generate(schemas: readonly TSchema[]): GeneratedFiles {
  // `inlineRefs: false`: a `$ref`-ed record (an agent task, an artifact ref) is one function every schema calls,
  // not a copy nested inside each — the code is smaller, and its nesting stays shallow enough for the compiler.
  // `loopEnum`: an enum of many values is checked in a loop over its list, not as a chain of
  // comparisons that spells every value out a second time.
  const ajv = new Ajv2020({ code: { source: true, esm: true, lines: false }, strict: true, allErrors: false, unicodeRegExp: false, inlineRefs: false, messages: false, loopEnum: LOOP_ENUM });
  const names: Record<string, string> = {};
  const files = new Map<string, string>();
  const compiled: Record<string, unknown>[] = [];
  const byId = new Map<string, Record<string, unknown>>();
  for (const schema of schemas) {
    const id = schema.$id;
    if (typeof id !== "string" || !id.startsWith(SCHEMA_ID_PREFIX)) throw new Error(`schema without a ${SCHEMA_ID_PREFIX} $id: ${JSON.stringify(schema).slice(0, 80)}`);
    if (names[validatorName(id)] !== undefined) throw new Error(`duplicate schema id ${id}`);
    const json = toJsonSchema(schema);
    compiled.push(toJsonSchema(schema));
    byId.set(id, json);
    names[validatorName(id)] = id;
    files.set(`schemas/${schemaFileName(id)}`, `${JSON.stringify({ $schema: DRAFT_2020_12, ...json }, null, 2)}\n`);
  }
  for (const schema of [...shareRepeatedLeaves(compiled), ...compiled]) ajv.addSchema(schema);
  for (const [name, id] of Object.entries(META_SCHEMA_VALIDATORS)) names[name] = id;
  // One module per contract, so a bundle that decodes only bridge messages (an installed app)
  // carries only the bridge's validators. A module holds everything its validators reference.
  const groups = new Map<ValidatorGroup, Record<string, string>>();
  for (const [name, id] of Object.entries(names)) {
    const group = validatorGroup(id);
    groups.set(group, { ...groups.get(group), [name]: id });
  }
  const standalone = new Map<ValidatorGroup, string>();
  for (const group of VALIDATOR_GROUPS) if (group !== "surface-bridge-app") standalone.set(group, standaloneCode(ajv, groups.get(group) ?? {}));
  const uses = new Map<string, number>();
  for (const group of SHARING_GROUPS) for (const name of definedFunctions(standalone.get(group)!)) uses.set(name, (uses.get(name) ?? 0) + 1);
  const sharedNames = [...uses].filter(([, n]) => n > 1).map(([name]) => name);
  const sharedIds: Record<string, string> = {};
  for (const name of sharedNames) {
    const code = SHARING_GROUPS.map((g) => standalone.get(g)!).find((c) => c.includes(`function ${name}(`))!;
    const id = /^function validate\d+\([^)]*\)\{\/\*# sourceURL="([^"]+)" \*\//.exec(code.slice(code.indexOf(`function ${name}(`)))?.[1];
    if (id === undefined) throw new Error(`no schema id for the shared validator ${name}`);
    sharedIds[`shared_${name}`] = id;
  }
  const sharedModule = renderModule(standaloneCode(ajv, sharedIds), {});
  if (JSON.stringify(definedFunctions(sharedModule).sort()) !== JSON.stringify([...sharedNames].sort())) throw new Error("shared.ts would define other validators than the shared ones");
  // A module that imports a validator passes it only the instance path (see passOnlyThePath).
  if (sharedModule.includes("dynamicAnchors")) throw new Error("a shared validator reads more of its call than the instance path");
  files.set("src/generated/shared.ts", sharedModule);
  for (const group of VALIDATOR_GROUPS) {
    const members = groups.get(group) ?? {};
    // Every app's page carries the app side's validators: schema data for the small subset validator, not compiled code.
    const code = group === "surface-bridge-app" ? "" : standalone.get(group)!;
    files.set(`src/generated/${group}.ts`, group === "surface-bridge-app" ? subsetModule(HEADER, byId, members) : renderModule(SHARING_GROUPS.includes(group) ? importShared(code, sharedNames.filter((n) => definedFunctions(code).includes(n))) : code, members));
  }
  files.set("src/generated/error-codes.ts", errorCodesModule());
  files.set(
    "src/generated/validators.ts",
    [
      HEADER,
      'import type { CompiledValidator } from "../validation.js";',
      ...VALIDATOR_GROUPS.map((g) => `import { validators as ${camel(g)} } from "./${g}.js";`),
      "",
      "/** Every generated validator, keyed by schema $id. Decoders import their own contract's module instead. */",
      "export const validators: Readonly<Record<string, CompiledValidator>> = {",
      ...VALIDATOR_GROUPS.map((g) => `  ...${camel(g)},`),
      "};",
      "",
    ].join("\n"),
  );
  return { files };
}
