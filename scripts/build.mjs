// Bundles lib/ into dist/ with esbuild: one file for the CLI entry, plus one chunk per command
// module it lazy-imports. Resolving and loading a hundred small ESM files of lib/ and of the yaml
// parser costs more than podrun's own work: bundled, `podrun validate` starts sooner
// (bench/speed.sh, goal 2); bin/podrun.js adds Node's compile cache on top. Type checking stays with tsc (`npm run typecheck`).
import { build } from "esbuild";
import { mkdir, rm } from "node:fs/promises";

const outdir = new URL("../dist/", import.meta.url).pathname;
await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
await build({
  entryPoints: { cli: new URL("../lib/cli.ts", import.meta.url).pathname },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  chunkNames: "chunks/[name]-[hash]",
  sourcemap: "linked",
  sourcesContent: false,
  legalComments: "none",
  // Some dependencies are CommonJS inside; an ESM bundle must give them a `require`.
  banner: {
    js: "import { createRequire as __podrunCreateRequire } from 'node:module'; const require = __podrunCreateRequire(import.meta.url);",
  },
  // Node compiles every byte it loads at each start: without whitespace and with simpler syntax
  // there is less of it. Identifiers are kept, so a stack trace still names the functions.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
});
