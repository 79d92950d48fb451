// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/*.asc.ts", "**/dist/**", "**/dist-types/**", "**/test/fixtures/bundles/**", "**/node_modules/**", "**/generated/**", "bench/results/**", "test-output/**", "**/test-output/**", "**/*.tsbuildinfo"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: "module" },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "no-restricted-syntax": [
        "error",
        { selector: "CallExpression[callee.name='eval']", message: "No eval: the host page runs under a strict CSP." },
        { selector: "NewExpression[callee.name='Function']", message: "No new Function: the host page runs under a strict CSP." },
      ],
    },
  },
  {
    // Platform-neutral package code: no node:* and no host reach-through. Adapters live in node/ and browser/.
    files: ["packages/*/src/**/*.ts"],
    ignores: ["apps/*/backends/**", "packages/*/src/node/**", "packages/*/src/bin.ts", "packages/app-server/src/**", "packages/cli/src/**", "packages/agent-sdk/src/node/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["node:*"], message: "Platform-neutral code must not import node:*; put it in a node/ adapter." }] }],
    },
  },
);
