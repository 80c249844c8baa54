// Lint: typescript-eslint's type-checked recommendations over lib/ and the TypeScript of scripts/ and
// bench/; its plain recommendations (no type information) over test/.
// Why not typed over test/ too: the typed rules need TypeScript's program and its types for every
// file they look at, and test/ is half the code: typed there, `eslint .` took 57 CPU-s, without,
// 38 (bench/RESULTS.md, "Test suite time (issue 27's stop)"). tsc (`npm run typecheck`) still checks
// test/'s types, and every rule that guards lib/ (below) is unchanged.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import prettier from "eslint-config-prettier";
import { layerRules } from "./eslint.layers.js";

/** The files linted with type information. */
const TYPED = ["lib/**/*.ts", "scripts/**/*.ts", "bench/**/*.ts"];

export default tseslint.config(
  { ignores: ["dist/", "node_modules/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: TYPED })),
  {
    files: TYPED,
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    rules: {
      // A leading underscore names what is left out on purpose (`const { name: _name, ...rest }`).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
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
