import { defineConfig } from "vitest/config";

// Tests import workspace packages through the "source" export condition, so they run
// against TypeScript sources without a build step.
export default defineConfig({
  resolve: { conditions: ["source", "module", "node", "import", "default"] },
  ssr: { resolve: { conditions: ["source", "module", "node", "import", "default"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 20_000,
    pool: "forks",
    // eventsource-parser (under the MCP SDK's HTTP client) publishes a "source" export condition of its own,
    // pointing at TypeScript: Vite transforms it instead of Node loading it.
    server: { deps: { inline: ["@modelcontextprotocol/sdk", "eventsource-parser"] } },
  },
});
