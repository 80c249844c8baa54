import { fileURLToPath, pathToFileURL } from "node:url";
import { findUnitTests } from "./harness/unit-files.js";

// `npm test` runs every unit test file (test/harness/unit-files.ts says which) in this one
// process: each file imported in turn, its tests joining this file's. A process per file cost tap
// more in start-up than most unit files take to run. `npm run test:unit` runs them in a few such
// processes side by side (test/harness/run-unit.ts); `npx tap FILE` still runs one file alone
// (package.json's tap "include" leaves unit files out).

const root = fileURLToPath(new URL("../", import.meta.url));
for (const file of await findUnitTests(root)) await import(pathToFileURL(`${root}${file}`).href);
