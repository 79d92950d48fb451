/**
 * The host's build: a static `dist/` (index.html + hashed assets). Workspace packages are bundled from
 * their TypeScript sources through the `source` export condition, so no package build is needed first.
 * JSX is Preact's automatic runtime. No inline scripts and no eval in the output: the page's CSP forbids
 * both (test/build.test.ts checks).
 */
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

/**
 * zod (the schemas of the MCP Apps bridge, a chunk loaded with the first view) compiles its parsers with `Function`
 * where eval is allowed, after probing for it. The page's CSP allows none, so zod only ever falls back: it is built
 * here with a `Function` that refuses, as the CSP would, and the bundle holds no eval at all.
 */
function zodWithoutEval(): Plugin {
  const binding = "const F = Function;";
  return {
    name: "lineup:zod-without-eval",
    transform(code, id) {
      if (!/[\\/]node_modules[\\/]zod[\\/]/.test(id) || !code.includes(binding)) return null;
      return { code: code.replaceAll(binding, 'const F = function () { throw new EvalError("the LineUp host page allows no eval"); };'), map: null };
    },
  };
}

/** A code-splitting group's test: any of these module path patterns. */
const modules = (...patterns: string[]): RegExp => new RegExp(patterns.join("|"));

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "./",
  // public/surface-frame.html: the document sandboxed apps are written into (see src/surface-host).
  publicDir: "public",
  resolve: { conditions: ["source", "browser", "module", "import", "default"] },
  plugins: [zodWithoutEval()],
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // The polyfill is an inline script; every browser we support has modulepreload.
    modulePreload: { polyfill: false },
    sourcemap: false,
    // The Runtime and the precompiled protocol validators are most of the first script; the cold parts are chunks of
    // their own (docs/architecture.md, "What loads when").
    chunkSizeWarningLimit: 1536,
    rollupOptions: {
      output: {
        // Small modules that several chunks share. Left to automatic splitting, each set of chunks sharing some of
        // them became a chunk of its own (seven, 28 B to 22 KB), so the Runtime's start fetched eleven scripts before
        // it was online; on a new profile each request costs the browser some CPU (docs/architecture.md, "What loads when").
        // Two chunks instead: what the first paint shares with later chunks, and what the Runtime's chunk shares with
        // later chunks (the schema ids stay out of the first paint). test/build-and-serve.test.ts holds the count.
        codeSplitting: {
          groups: [
            { name: "shared", test: modules(String.raw`protocol[\\/]src[\\/](generated[\\/]error-codes|errors|manifest[\\/]capabilities)\.ts$`) },
            {
              name: "runtime-shared",
              // Their own dependencies (JSON limits, ids) stay where the first paint has them already.
              includeDependenciesRecursively: false,
              test: modules(
                String.raw`protocol[\\/]src[\\/](schema-kit|validation|schema-id|collections|pending-requests)\.ts$`,
                String.raw`runtime[\\/]src[\\/]app-lifecycle[\\/]manager[\\/]versions\.ts$`,
              ),
            },
          ],
        },
      },
    },
  },
  logLevel: "warn",
});
