// One lint setup for the repository: typescript-eslint with type information. Import cycles and breaks of the
// layering (docs/engine.md, "Layering") are refused by scripts/check-cycles.ts (part of `npm run lint`).
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";
import prettier from "eslint-config-prettier";

export default defineConfig(
  {
    ignores: [
      "node_modules/**",
      "data/**",
      "dist/**",
      "client/dist/**",
      "proto/gen/**",
      "coverage/**",
      "test/fixtures/**",
      "client/src/generated/**",
    ],
  },
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ["eslint.config.js", "engine/shard/worker.mjs", "client/bin/ftrade.js"],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true }],
      "@typescript-eslint/no-unnecessary-condition": "off",
      "@typescript-eslint/consistent-type-imports": "error",
      "no-restricted-exports": [
        "error",
        {
          restrictDefaultExports: {
            direct: true,
            named: true,
            defaultFrom: true,
            namedFrom: true,
            namespaceFrom: true,
          },
        },
      ],
      "no-restricted-syntax": [
        "error",
        { selector: "TSEnumDeclaration", message: "Use a const object and a derived union type instead of enum." },
      ],
    },
  },
  // Production code reads in pieces: a file of at most 400 lines, a function of at most 80 (docs/engine.md).
  // Tests (`*.test.ts`) and test helpers (`*.testing.ts`, docs/engine.md "Layout") are not production code.
  {
    files: ["engine/**/*.ts", "gateway/**/*.ts", "wallet/**/*.ts", "kernel/**/*.ts"],
    ignores: ["**/*.test.ts", "**/*.testing.ts"],
    rules: {
      "max-lines": ["error", { max: 400 }],
      "max-lines-per-function": ["error", { max: 80 }],
    },
  },
  // Tool configuration files must default-export their config.
  { files: ["eslint.config.js", "vitest.config.ts"], rules: { "no-restricted-exports": "off" } },
  prettier,
);
