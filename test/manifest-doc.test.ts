/**
 * docs/manifest.md promises nothing the code does not keep: every field its field tables list is in the
 * manifest's JSON Schema at the place the table describes (so it is validated), and is read by code outside
 * the validator — the Runtime, the hosts, the SDKs, the AppServer (so it is acted on) — unless its row marks
 * it reserved. And every field the schema has is in a table: nothing validated goes undocumented.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import * as protocol from "@lineup/protocol";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const doc = readFileSync(join(root, "docs", "manifest.md"), "utf8");

interface SchemaNode {
  readonly $id?: string;
  readonly $ref?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly items?: SchemaNode;
}

/** The protocol's schemas by `$id`, to follow a `$ref`. */
const byId = new Map<string, SchemaNode>();
for (const value of Object.values(protocol)) {
  if (typeof value === "object" && value !== null && typeof (value as SchemaNode).$id === "string") byId.set((value as SchemaNode).$id!, value as SchemaNode);
}
const deref = (node: SchemaNode): SchemaNode => (node.$ref === undefined ? node : (byId.get(node.$ref) ?? node));

/** Which part of the manifest each numbered section's field table describes. */
const SECTIONS: Readonly<Record<string, readonly string[]>> = {
  "1": [],
  "2": ["runtime_sdk"],
  "3": ["entrypoints", "[]"],
  "4": ["agent_subscriptions", "[]"],
  "5": ["tools", "[]"],
  "6": ["capabilities", "[]"],
  "7": ["events", "[]"],
  "8": ["storage"],
  "8b": ["backends", "[]"],
};

function schemaAt(path: readonly string[]): SchemaNode {
  let node = deref(protocol.AppManifestSchema as unknown as SchemaNode);
  for (const step of path) {
    const next = step === "[]" ? node.items : node.properties?.[step];
    if (next === undefined) throw new Error(`the manifest schema has no ${path.join(".")}`);
    node = deref(next);
  }
  return node;
}

interface Row {
  readonly section: string;
  readonly field: string;
  readonly reserved: boolean;
}

/** The rows of every `| field | …` table, with the section they are in. */
function documentedFields(): Row[] {
  const rows: Row[] = [];
  let section: string | undefined;
  let inTable = false;
  for (const line of doc.split("\n")) {
    const heading = /^## (\d+[a-z]?)\./.exec(line);
    if (heading !== null) section = heading[1];
    if (/^\| field \|/.test(line)) inTable = true;
    else if (!line.startsWith("|")) inTable = false;
    const cell = inTable ? /^\| `([a-z_]+)` \|/.exec(line) : null;
    if (cell !== null && section !== undefined) rows.push({ section, field: cell[1]!, reserved: /\breserved\b/i.test(line) });
  }
  return rows;
}

/** Sources that consume manifests: every package's `src`, without the schema, its generated validator and the validator. */
function consumerSources(): string {
  const skip = [join("protocol", "src", "manifest", "schemas.ts"), join("protocol", "src", "manifest", "validate.ts"), join("protocol", "src", "generated")];
  const texts: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (skip.some((s) => path.includes(s))) continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name)) texts.push(readFileSync(path, "utf8"));
    }
  };
  for (const pkg of readdirSync(join(root, "packages"))) {
    const src = join(root, "packages", pkg, "src");
    if (statSync(src, { throwIfNoEntry: false })?.isDirectory() === true) walk(src);
  }
  return texts.join("\n");
}

/** Read somewhere: `.field`, `["field"]`, or destructured `{ field }`. */
function isRead(sources: string, field: string): boolean {
  return new RegExp(`\\.${field}\\b|\\["${field}"\\]|[{,]\\s*${field}\\s*[,}=:]`).test(sources);
}

describe("docs/manifest.md field tables", () => {
  const rows = documentedFields();

  it("list the fields of every section the schema has", () => {
    expect(new Set(rows.map((r) => r.section))).toEqual(new Set(Object.keys(SECTIONS)));
  });

  it("name only fields the schema validates, where the table says", () => {
    const missing = rows.filter((r) => schemaAt(SECTIONS[r.section]!).properties?.[r.field] === undefined).map((r) => `§${r.section} ${r.field}`);
    expect(missing).toEqual([]);
  });

  it("name only fields the code acts on, or mark them reserved", () => {
    const sources = consumerSources();
    const unread = rows.filter((r) => !r.reserved && !isRead(sources, r.field)).map((r) => `§${r.section} ${r.field}`);
    expect(unread).toEqual([]);
  });

  it("document every field the schema validates", () => {
    const undocumented: string[] = [];
    for (const [section, path] of Object.entries(SECTIONS)) {
      const documented = new Set(rows.filter((r) => r.section === section).map((r) => r.field));
      for (const field of Object.keys(schemaAt(path).properties ?? {})) if (!documented.has(field) && !new RegExp("`" + field + "`").test(doc)) undocumented.push(`§${section} ${field}`);
    }
    expect(undocumented).toEqual([]);
  });
});
