#!/usr/bin/env bash
# Wall time to bring up a 3-container pod whose images are present, side by side in one run:
# `podrun up` on docker and on podman, `podman kube play` of the same file, and a hand-written
# `docker run -d` script (sandbox + 3 containers joined to it). Medians of hyperfine runs;
# each run starts from a clean engine (--prepare removes the previous pod). Then the CI loop's
# other steps on docker: `up` again of the same, unchanged pod (reconciled: nothing to do), and
# `down` (with --grace-period 0: `sleep` as PID 1 ignores SIGTERM, and the grace period would be
# the measure). Prints figures only.
# Needs scripts/test-env.sh's environment. Usage: bash bench/up-vs-peers.sh [runs]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs="${1:-10}"
command -v hyperfine >/dev/null || { echo "bench: hyperfine is missing (apt-get install hyperfine)" >&2; exit 1; }
npm run --silent build
IMAGE=127.0.0.1:5100/podrun-test/busybox:1.36
PAUSE=registry.k8s.io/pause:3.10
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/bench.yaml" <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: bench
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
    - {name: one, image: $IMAGE, command: ["sleep", "600"]}
    - {name: two, image: $IMAGE, command: ["sleep", "600"]}
    - {name: three, image: $IMAGE, command: ["sleep", "600"]}
YAML

cat >"$work/docker-run.sh" <<SH
#!/usr/bin/env bash
set -e
docker run -d --name bench-pod --label bench=1 --ipc shareable $PAUSE >/dev/null
for c in one two three; do
  docker run -d --name bench-\$c --label bench=1 --network container:bench-pod --ipc container:bench-pod $IMAGE sleep 600 >/dev/null
done
SH

clean_docker="docker ps -aq --filter label=io.kubernetes.pod.name=bench | xargs -r docker rm -f >/dev/null; docker ps -aq --filter label=bench=1 | xargs -r docker rm -f >/dev/null"
clean_podman="podman pod rm -f -t 0 bench >/dev/null 2>&1; podman pod rm -f -t 0 default_bench >/dev/null 2>&1; podman ps -aq --filter label=io.kubernetes.pod.name=bench | xargs -r podman rm -f -t 0 >/dev/null 2>&1; true"

out="$work/results.json"
hyperfine --runs "$runs" --warmup 1 --export-json "$out" \
  --command-name "podrun up (docker)" --prepare "$clean_docker" "node bin/podrun.js up --runtime docker $work/bench.yaml" \
  --command-name "docker run -d script" --prepare "$clean_docker" "bash $work/docker-run.sh" \
  --command-name "podrun up (podman)" --prepare "$clean_podman" "node bin/podrun.js up --runtime podman $work/bench.yaml" \
  --command-name "podman kube play" --prepare "$clean_podman" "podman kube play $work/bench.yaml" \
  --command-name "podrun up (docker), pod already up and unchanged" --prepare "node bin/podrun.js up --runtime docker $work/bench.yaml >/dev/null" "node bin/podrun.js up --runtime docker $work/bench.yaml" \
  --command-name "podrun down --grace-period 0 (docker)" --prepare "node bin/podrun.js up --runtime docker $work/bench.yaml >/dev/null" "node bin/podrun.js down --runtime docker --grace-period 0 $work/bench.yaml" >/dev/null
bash -c "$clean_docker"; bash -c "$clean_podman"
node -e '
const { results } = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
for (const r of results) console.log(`${(r.median * 1000).toFixed(0).padStart(6)} ms median  (min ${(r.min * 1000).toFixed(0)}, max ${(r.max * 1000).toFixed(0)}, ${r.times.length} runs)  ${r.command}`);
' "$out"
