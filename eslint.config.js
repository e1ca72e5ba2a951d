// ESLint flat config: @eslint/js recommended + typescript-eslint's type-checked rules.
// The layer rules and import cycles are checked by scripts/check-architecture.ts, not here.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

export default defineConfig(
  { ignores: ["node_modules/", "dist/", "data/", ".langgraph_api/", "coverage/", "bench/results/"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      // Graph nodes are async by contract (LangGraph awaits them) even when a node has nothing to await.
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    // The house's size rules: no source file over 300 lines, no function over 80 (the generated client types aside).
    files: ["src/**/*.ts", "bench/**/*.ts", "scripts/**/*.ts"],
    ignores: ["src/client/api-types.ts"],
    rules: {
      "max-lines": ["error", { max: 300 }],
      "max-lines-per-function": ["error", { max: 80, IIFEs: true }],
    },
  },
  {
    // Logging goes through src/logger.ts; only the CLI talks to the terminal directly.
    files: ["src/**/*.ts"],
    ignores: ["src/cli/**"],
    rules: { "no-console": "error" },
  },
  {
    // Tests poke at loosely typed values (parsed YAML, JSON, fakes) on purpose.
    files: ["test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/unbound-method": "off",
    },
  },
  {
    // Plain JS config files are outside tsconfig.json: lint them without type information.
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The inspector page's script runs in the browser.
    files: ["inspector/**/*.js"],
    languageOptions: { globals: { document: "readonly", fetch: "readonly", location: "readonly", history: "readonly", performance: "readonly", URLSearchParams: "readonly", setInterval: "readonly", clearInterval: "readonly" } },
  },
);
