/**
 * The error-code table of docs/protocol.md, rendered from src/errors.ts. Run this file to print it
 * (`node --conditions=source --import tsx packages/protocol/scripts/error-table.ts`); a test keeps the
 * doc's copy between its markers identical.
 */
import { ERROR_CODES } from "../src/errors.js";

export function renderErrorTable(): string {
  const lines = ["| code | area | JSON-RPC | retryable | meaning |", "| --- | --- | --- | --- | --- |"];
  for (const [code, info] of Object.entries(ERROR_CODES)) {
    lines.push(`| \`${code}\` | ${info.area} | ${info.rpc} | ${info.retryable ? "yes" : "no"} | ${info.description.replace(/\|/g, "\\|")} |`);
  }
  return lines.join("\n");
}

if (process.argv[1]?.endsWith("error-table.ts")) console.log(renderErrorTable());
