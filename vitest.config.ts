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
    // The MCP SDK's Streamable HTTP client imports eventsource-parser, whose "source" condition names TypeScript
    // files Node cannot load: Vite transforms it (and the SDK that imports it) instead.
    server: { deps: { inline: [/eventsource-parser/, /@modelcontextprotocol\/sdk/] } },
  },
});
