import tseslint from "typescript-eslint";
import { layerRules } from "./eslint.layers.js";
export default [{ files: ["lib/**/*.ts"], languageOptions: { parser: tseslint.parser } }, ...layerRules];
