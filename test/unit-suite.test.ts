import { fileURLToPath, pathToFileURL } from "node:url";
import { findUnitTests } from "./harness/unit-files.js";

// `npm test` runs every unit test file (test/harness/unit-files.ts says which) in this one
// process: each file imported in turn, its tests joining this file's. A process per file cost tap
// more in start-up than most unit files take to run. `npm run test:unit` and `npx tap FILE` still
// run each file in a process of its own (package.json's tap "include" leaves unit files out).

const root = fileURLToPath(new URL("../", import.meta.url));
for (const file of await findUnitTests(root)) await import(pathToFileURL(`${root}${file}`).href);
