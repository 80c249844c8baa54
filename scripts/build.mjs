// Bundles lib/ into dist/ with esbuild: one file for the CLI entry, plus one chunk per command
// module it lazy-imports. Node 20 has no compile cache, and resolving and loading a hundred small
// ESM files of lib/ and of the yaml parser costs more than podrun's own work: bundled, `podrun
// validate` starts ~60 ms sooner (bench/startup.sh). Type checking stays with tsc (`npm run typecheck`).
// First, the event log's line scanner (lib/wasm/line-scan.ts, AssemblyScript) is compiled to
// dist/line-scan.wasm, which the bundle carries inline (base64) and lib/ run from source reads.
import asc from "assemblyscript/asc";
import { build } from "esbuild";
import { mkdir, readFile, rm } from "node:fs/promises";

const outdir = new URL("../dist/", import.meta.url).pathname;
const wasmFile = `${outdir}line-scan.wasm`;
await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
// SIMD (WebAssembly 2.0) runs on Node 16.4 and later; the stub runtime: the scanner allocates nothing.
const { error, stderr } = await asc.main([new URL("../lib/wasm/line-scan.ts", import.meta.url).pathname, "-O3", "--runtime", "stub", "--enable", "simd", "--noAssert", "-o", wasmFile]);
if (error) {
  process.stderr.write(stderr.toString());
  throw error;
}
await build({
  entryPoints: { cli: new URL("../lib/cli.ts", import.meta.url).pathname },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: "chunks/[name]-[hash]",
  sourcemap: "linked",
  sourcesContent: false,
  legalComments: "none",
  define: { PODRUN_LINE_SCAN_WASM: JSON.stringify((await readFile(wasmFile)).toString("base64")) },
  // Some dependencies are CommonJS inside; an ESM bundle must give them a `require`.
  banner: { js: "import { createRequire as __podrunCreateRequire } from 'node:module'; const require = __podrunCreateRequire(import.meta.url);" },
  logLevel: "warning",
});
