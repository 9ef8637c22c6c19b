// One lint setup for the repository: typescript-eslint with type information, import cycles refused.
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";
import importX from "eslint-plugin-import-x";
import prettier from "eslint-config-prettier";

export default defineConfig(
  { ignores: ["node_modules/**", "data/**", "dist/**", "proto/gen/**", "coverage/**"] },
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ["eslint.config.js"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { "import-x": importX },
    settings: {
      "import-x/resolver-next": [importX.createNodeResolver({ extensions: [".ts", ".js"] })],
      "import-x/ignore": ["node_modules"],
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true }],
      "@typescript-eslint/no-unnecessary-condition": "off",
      "@typescript-eslint/consistent-type-imports": "error",
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "import-x/no-default-export": "error",
      "no-restricted-syntax": [
        "error",
        { selector: "TSEnumDeclaration", message: "Use a const object and a derived union type instead of enum." },
      ],
    },
  },
  { files: ["eslint.config.js", "vitest.config.ts"], rules: { "import-x/no-default-export": "off" } },
  prettier,
);
