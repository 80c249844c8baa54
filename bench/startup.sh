#!/usr/bin/env bash
# Start-up cost of the CLI: `podrun --version` and `podrun validate` on the examples, next to a bare
# `node -e 0`, as medians of many runs (hyperfine, from Debian). Prints figures; asserts nothing.
# Usage: bash bench/startup.sh [runs]   (builds dist/ first)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs="${1:-40}"
command -v hyperfine >/dev/null || { echo "bench: hyperfine is missing (apt-get install hyperfine)" >&2; exit 1; }
npm run --silent build
out=$(mktemp)
hyperfine -N --warmup 5 --runs "$runs" --export-json "$out" \
  'node -e 0' \
  'node bin/podrun.js --version' \
  'node bin/podrun.js validate examples/db-and-app.yaml' \
  'node bin/podrun.js validate examples/web-sidecar.yaml examples/init-data.yaml examples/db-and-app.yaml' >/dev/null
node -e '
const { results } = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
for (const r of results) console.log(`${(r.median * 1000).toFixed(1).padStart(7)} ms median  ${(r.stddev * 1000).toFixed(1).padStart(5)} ms sd  ${r.command}`);
' "$out"
rm -f "$out"
