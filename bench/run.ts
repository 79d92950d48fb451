/**
 * `npm run bench` runs every suite; `npm run bench -- <suite> …` only those. Each suite prints a
 * table and writes bench/results/<suite>.json (see ../shared/design/PERFORMANCE.md).
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { missesTarget, printSuite, type SuiteResult } from "./lib.js";

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(join(here, "suites"))
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.slice(0, -3))
  .sort();
const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length > 0) {
  console.error(`unknown suite(s): ${unknown.join(", ")}; available: ${available.join(", ")}`);
  process.exit(2);
}
mkdirSync(join(here, "results"), { recursive: true });
let failed = false;
for (const suite of wanted.length > 0 ? wanted : available) {
  const mod = (await import(`./suites/${suite}.ts`)) as { run: () => Promise<SuiteResult> };
  const result = await mod.run();
  printSuite(result);
  writeFileSync(join(here, "results", `${suite}.json`), `${JSON.stringify(result, null, 2)}\n`);
  failed ||= result.results.some(missesTarget);
}
if (failed) console.log("\nsome ratios miss their targets (see NO above)");
