/**
 * Every `LINEUP_*` variable has one row in the README's table, and every row names a variable the code
 * reads: the names written in the sources (packages, apps, scripts, benchmarks, test support) and the
 * AppServer's settings, whose variables are made from their names.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { CONFIG_ENV, SERVER_SETTINGS, settingEnv } from "@lineup/app-server";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");

/** Source files, without tests and their fixtures (which set variables of their own for child processes). */
function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist" || name === "dist-types" || name === "results" || name === "fixtures") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.(ts|tsx|js|mjs)$/.test(name) && !/\.test\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

const roots = [
  ...readdirSync(join(root, "packages")).map((p) => join(root, "packages", p, "src")),
  ...readdirSync(join(root, "packages")).map((p) => join(root, "packages", p, "scripts")),
  ...readdirSync(join(root, "apps")).map((a) => join(root, "apps", a, "src")),
  join(root, "scripts"),
  join(root, "bench"),
  join(root, "test", "support"),
].filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true);

function namesIn(text: string): string[] {
  return [...text.matchAll(/\bLINEUP_[A-Z0-9_]+\b/g)].map((m) => m[0]).filter((name) => !name.endsWith("_"));
}

describe("LINEUP_* variables", () => {
  it("are each in the README's table, and the table names only variables the code reads", () => {
    const used = new Set<string>([CONFIG_ENV, ...SERVER_SETTINGS.map(settingEnv)]);
    for (const dir of roots) for (const file of sources(dir)) for (const name of namesIn(readFileSync(file, "utf8"))) used.add(name);

    const readme = readFileSync(join(root, "README.md"), "utf8");
    const start = readme.indexOf("\n## Environment variables\n");
    expect(start, "README.md has an ## Environment variables section").toBeGreaterThan(0);
    const end = readme.indexOf("\n## ", start + 1);
    const table = readme.slice(start, end < 0 ? undefined : end);
    const rows = [...table.matchAll(/^\| `(LINEUP_[A-Z0-9_]+)` \|/gm)].map((m) => m[1]!);
    expect(new Set(rows).size, "each variable has one row").toBe(rows.length);
    expect([...rows].sort()).toEqual([...used].sort());
  });
});
