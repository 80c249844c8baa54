// Lint: typescript-eslint's type-checked recommendations over everything tsc checks.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import prettier from "eslint-config-prettier";
import { layerRules } from "./eslint.layers.js";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A leading underscore names what is left out on purpose (`const { name: _name, ...rest }`).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    files: ["test/**/*.ts"],
    rules: {
      // tap awaits the subtests it is given (t.test returns a promise nobody needs), and an async
      // test callback without an await is the harness's idiom, not a bug.
      "@typescript-eslint/no-floating-promises": "off",
      "@typescript-eslint/require-await": "off",
    },
  },
  // Plain JavaScript (bin/, scripts/*.mjs, bench/*.mjs) is outside tsconfig: no type information.
  { files: ["**/*.js", "**/*.mjs"], ...tseslint.configs.disableTypeChecked },
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
  },
  // lib/'s layers (eslint.layers.js): an import that goes up or sideways fails.
  ...layerRules,
  // The engine boundary: only lib/runtime/ knows which CLI answered, how it failed (CommandError)
  // and how it words its flags (getDialect). Everything else asks the ContainerRuntime interface.
  {
    files: ["lib/**/*.ts"],
    ignores: ["lib/runtime/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/runtime/exec.js", "**/runtime/dialects.js"],
              importNames: ["CommandError", "getDialect"],
              message: "only lib/runtime/ handles engine CLI failures and dialects: use the ContainerRuntime interface",
            },
          ],
        },
      ],
    },
  },
  // Layout is prettier's (`npm run format`; `npm run lint` checks it): no style rule may disagree.
  prettier,
);
