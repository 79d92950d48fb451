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
    // eventsource-parser (under the MCP SDK's Streamable HTTP client) publishes a "source" export condition of
    // its own, pointing at TypeScript, which Node cannot load: Vite transforms that client and it instead.
    server: { deps: { inline: [/@modelcontextprotocol\/sdk\/dist\/esm\/client\/streamableHttp/, "eventsource-parser"] } },
  },
});
