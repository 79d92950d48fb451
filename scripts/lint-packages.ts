/**
 * The packaging half of `npm run lint`: packs the publishable packages (scripts/pack.ts) into a temporary
 * directory and checks each tarball with publint (strict: warnings fail too) and Are the Types Wrong
 * (ESM-only packages: Node 16+ from ESM and bundlers must resolve JavaScript and types for every entry).
 * Both run offline. Exit 1 when any package has a problem.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { packPackages } from "./pack.js";

const BIN = resolve(import.meta.dirname, "..", "node_modules", ".bin");
const out = mkdtempSync(join(tmpdir(), "lineup-lint-packages-"));
let failed = false;
try {
  for (const { name, tarball } of packPackages(out)) {
    for (const [tool, args] of [
      ["publint", ["run", "--strict", tarball]],
      ["attw", [tarball, "--profile", "esm-only", "--format", "ascii"]],
    ] as const) {
      try {
        execFileSync(join(BIN, tool), args, { stdio: ["ignore", "pipe", "pipe"] });
      } catch (error) {
        failed = true;
        const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
        console.error(`${name}: ${tool} found problems\n${String(stdout ?? "")}${String(stderr ?? "")}`);
      }
    }
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
if (failed) process.exit(1);
