import { configDefaults, defineConfig } from "vitest/config";
import { slack } from "./test/support/soak.js";

// Tests import workspace packages through the "source" export condition, so they run
// against TypeScript sources without a build step.
export default defineConfig({
  resolve: { conditions: ["source", "module", "node", "import", "default"] },
  // Passed to Node as --conditions for the packages it loads itself: without "import", whose packages
  // (pg-pool) point require() at an ES module wrapper.
  ssr: { resolve: { conditions: ["source", "module", "node", "default"] } },
  test: {
    // Each project names its own files (a project extending this config would add to an include here).
    // Longer under the soak by its one time factor (test/support/soak.ts), as are the tests' own waits.
    testTimeout: slack(20_000),
    hookTimeout: slack(10_000),
    pool: "forks",
    // A worker runs its files one after the other in one module graph: a file does not import the packages anew. With a
    // process per file, those imports took 498 s of the two workers' time in a 1,049 s run; the run takes about 680 s
    // without them. So a test file leaves the process as it found it (vi.stubEnv, vi.stubGlobal, vi.useFakeTimers are
    // undone after it), and a test of a module's first state loads a copy of its own (vi.resetModules, then import()).
    isolate: false,
    // Two files at a time: most of a file's time is waiting (Chromium, child processes, fsync), so two workers
    // fit 2 cores and keep the suite within its time budget (Vitest would run one worker there).
    maxWorkers: 2,
    // The MCP SDK's Streamable HTTP client imports eventsource-parser, whose "source" condition names TypeScript
    // files Node cannot load: Vite transforms it (and the SDK that imports it) instead.
    server: { deps: { inline: [/eventsource-parser/, /@modelcontextprotocol\/sdk/] } },
    projects: [
      // Several AppServer processes on one database is PostgreSQL's alone.
      {
        extends: true,
        test: {
          name: "main",
          include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "packages/app-server/test/multi-process*.test.ts"],
        },
      },
      // Every AppServer test again, on PostgreSQL: a throwaway cluster for the run, a database per test server.
      {
        extends: true,
        test: {
          name: "app-server-postgres",
          include: ["packages/app-server/test/**/*.test.ts"],
          // Its scenario starts an SQLite AppServer in a process of its own: running it again here adds nothing.
          exclude: [...configDefaults.exclude, "packages/app-server/test/tracing.test.ts"],
          env: { LINEUP_TEST_STORE: "postgres" },
          globalSetup: ["packages/app-server/test/postgres-setup.ts"],
        },
      },
    ],
  },
});
