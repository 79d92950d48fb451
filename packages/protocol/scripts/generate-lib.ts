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
import { SCHEMA_ID_PREFIX } from "../src/schema-kit.js";

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

export const VALIDATOR_GROUPS = ["envelope", "app-server", "surface-bridge", "host-channel", "legacy", "manifest"] as const;
export type ValidatorGroup = (typeof VALIDATOR_GROUPS)[number];

/** Which generated module holds the validator of a schema id. */
export function validatorGroup(id: string): ValidatorGroup {
  const name = id.startsWith(SCHEMA_ID_PREFIX) ? id.slice(SCHEMA_ID_PREFIX.length) : "";
  if (name.startsWith("app-server.") || name.startsWith("jsonrpc.")) return "app-server";
  if (name.startsWith("surface-bridge.")) return "surface-bridge";
  if (name.startsWith("host-channel.")) return "host-channel";
  if (name.startsWith("legacy.")) return "legacy";
  if (name.startsWith("runtime-envelope") || name.startsWith("payload.") || name.startsWith("artifact-ref")) return "envelope";
  return "manifest";
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

function renderModule(generated: string, members: Record<string, string>): string {
  let code = generated.replace(/require\("([^"]+)"\)\.default/g, (_match, module: string) => {
    const helper = RUNTIME_HELPERS[module];
    if (helper === undefined) throw new Error(`generated validator needs an unknown runtime helper: ${module}`);
    return `(${helper})`;
  });
  if (/\brequire\(/.test(code)) throw new Error("generated validator still contains require()");
  code = shareRejections(dropSchemaPaths(shortCircuitLengthChecks(code)));
  return [
    "// @ts-nocheck",
    "/* eslint-disable */",
    "// Generated by `npm run gen` from src/schema-registry.ts. Do not edit: edit the schemas and regenerate.",
    REJECT,
    code.replace(/^"use strict";/, ""),
    "",
    'import type { CompiledValidator } from "../validation.js";',
    "/** This contract's generated validators, keyed by schema $id. */",
    "export const validators: Readonly<Record<string, CompiledValidator>> = {",
    ...Object.entries(members).map(([name, id]) => `  ${JSON.stringify(id)}: ${name},`),
    "};",
    "",
  ].join("\n");
}

export interface GeneratedFiles {
  /** Path relative to the package root → file content. */
  readonly files: ReadonlyMap<string, string>;
}

export function generate(schemas: readonly TSchema[]): GeneratedFiles {
  // `inlineRefs: false`: a `$ref`-ed record (an agent task, an artifact ref) is one function every schema calls,
  // not a copy nested inside each — the code is smaller, and its nesting stays shallow enough for the compiler.
  const ajv = new Ajv2020({ code: { source: true, esm: true, lines: false }, strict: true, allErrors: false, unicodeRegExp: false, inlineRefs: false, messages: false });
  const names: Record<string, string> = {};
  const files = new Map<string, string>();
  for (const schema of schemas) {
    const id = schema.$id;
    if (typeof id !== "string" || !id.startsWith(SCHEMA_ID_PREFIX)) throw new Error(`schema without a ${SCHEMA_ID_PREFIX} $id: ${JSON.stringify(schema).slice(0, 80)}`);
    if (names[validatorName(id)] !== undefined) throw new Error(`duplicate schema id ${id}`);
    const json = toJsonSchema(schema);
    ajv.addSchema(json);
    names[validatorName(id)] = id;
    files.set(`schemas/${schemaFileName(id)}`, `${JSON.stringify({ $schema: DRAFT_2020_12, ...json }, null, 2)}\n`);
  }
  for (const [name, id] of Object.entries(META_SCHEMA_VALIDATORS)) names[name] = id;
  // One module per contract, so a bundle that decodes only bridge messages (an installed app)
  // carries only the bridge's validators. A module holds everything its validators reference.
  const groups = new Map<ValidatorGroup, Record<string, string>>();
  for (const [name, id] of Object.entries(names)) {
    const group = validatorGroup(id);
    groups.set(group, { ...groups.get(group), [name]: id });
  }
  for (const group of VALIDATOR_GROUPS) {
    const members = groups.get(group) ?? {};
    files.set(`src/generated/${group}.ts`, renderModule(standaloneCode(ajv, members), members));
  }
  files.set(
    "src/generated/validators.ts",
    [
      "// Generated by `npm run gen` from src/schema-registry.ts. Do not edit: edit the schemas and regenerate.",
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
