#!/usr/bin/env node
// Node ≥ 22.1 keeps the code it compiles for podrun's modules in a cache on disk (os.tmpdir()'s
// node-compile-cache, or $NODE_COMPILE_CACHE), so a later start compiles less: podrun starts once
// per command, and a CI script runs many (figures: bench/RESULTS.md, "Node.js runtimes"). The cache
// is checked against each file's contents; a stale or unwritable cache is Node's to skip.
import module from "node:module";

module.enableCompileCache?.();
const { main } = await import("../dist/cli.js");

process.exitCode = await main(process.argv);
