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

export interface GeneratedFiles {
  /** Path relative to the package root → file content. */
  readonly files: ReadonlyMap<string, string>;
}

export function generate(schemas: readonly TSchema[]): GeneratedFiles {
  const ajv = new Ajv2020({ code: { source: true, esm: true, lines: false }, strict: true, allErrors: false, unicodeRegExp: false });
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
  let code = standaloneCode(ajv, names);
  code = code.replace(/require\("([^"]+)"\)\.default/g, (_match, module: string) => {
    const helper = RUNTIME_HELPERS[module];
    if (helper === undefined) throw new Error(`generated validator needs an unknown runtime helper: ${module}`);
    return `(${helper})`;
  });
  if (/\brequire\(/.test(code)) throw new Error("generated validator still contains require()");
  code = shortCircuitLengthChecks(code);
  const table = Object.entries(names)
    .map(([name, id]) => `  ${JSON.stringify(id)}: ${name},`)
    .join("\n");
  files.set(
    "src/generated/validators.ts",
    [
      "// @ts-nocheck",
      "/* eslint-disable */",
      "// Generated by `npm run gen` from src/schema-registry.ts. Do not edit: edit the schemas and regenerate.",
      code.replace(/^"use strict";/, ""),
      "",
      'import type { CompiledValidator } from "../validation.js";',
      "/** Every generated validator, keyed by schema $id. */",
      "export const validators: Readonly<Record<string, CompiledValidator>> = {",
      table,
      "};",
      "",
    ].join("\n"),
  );
  return { files };
}
