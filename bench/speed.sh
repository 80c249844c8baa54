#!/usr/bin/env bash
# Issue 15's speed goals, side by side in one run (hyperfine; medians, min and max of RUNS runs):
#   1. `podrun up` of a 3-container pod whose images are present, against a hand-written script
#      that starts the same containers with concurrent `docker run -d` (and `podman kube play`);
#   2. start-up: `podrun --version` and `podrun validate` of a 50-container manifest, against `node -e 0`;
#   3. scaling: `up` of 1, 5, 10 and 20 containers against the concurrent script of the same size;
#   4. pulls: four distinct images from the loopback registry, --parallel-pulls 4 against serialized;
#   5. `down --grace-period 0` against a hand-written `docker rm -f` script.
# Prints the machine, then one markdown table per goal (bench/RESULTS.md holds a run of it).
# Needs scripts/test-env.sh's environment (root). Usage: bash bench/speed.sh [runs] [goal…]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs="${1:-10}"
shift || true
goals="${*:-1 2 3 4 5}"
command -v hyperfine >/dev/null || { echo "bench: hyperfine is missing (apt-get install hyperfine)" >&2; exit 1; }
npm run --silent build
IMAGE=127.0.0.1:5100/podrun-test/busybox:1.36
PAUSE=registry.k8s.io/pause:3.10
REGISTRY=127.0.0.1:5100
work=$(mktemp -d)
podrun="node $PWD/bin/podrun.js"
export PODRUN_STATE_DIR="$work/state"
trap 'clean_all; rm -rf "$work"' EXIT

clean_docker="docker ps -aq --filter label=io.kubernetes.pod.name=bench | xargs -r docker rm -f >/dev/null; docker ps -aq --filter label=bench=1 | xargs -r docker rm -f >/dev/null; docker volume ls -q --filter label=io.kubernetes.pod.name=bench | xargs -r docker volume rm >/dev/null"
clean_podman="podman pod rm -f -t 0 default_bench >/dev/null 2>&1; podman pod rm -f -t 0 bench >/dev/null 2>&1; podman ps -aq --filter label=io.kubernetes.pod.name=bench | xargs -r podman rm -f -t 0 >/dev/null 2>&1; true"
clean_all() { bash -c "$clean_docker" 2>/dev/null || true; bash -c "$clean_podman" 2>/dev/null || true; }

# A pod of n `sleep` containers; $2: images (one per container, cycled).
pod_yaml() {
  local n=$1 images=(${2:-$IMAGE})
  printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: bench\nspec:\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 1\n  containers:\n'
  for ((i = 0; i < n; i++)); do
    printf '    - {name: c%d, image: %s, command: ["sleep", "600"]}\n' "$i" "${images[i % ${#images[@]}]}"
  done
}

# The floor: the sandbox, then every container with `docker run -d` at once (what a careful
# script does; podrun's containers also share the sandbox's network and IPC).
docker_script() {
  local n=$1
  printf '#!/usr/bin/env bash\nset -e\ndocker run -d --name bench-pod --label bench=1 --ipc shareable %s >/dev/null\n' "$PAUSE"
  for ((i = 0; i < n; i++)); do
    printf 'docker run -d --name bench-c%d --label bench=1 --network container:bench-pod --ipc container:bench-pod %s sleep 600 >/dev/null &\n' "$i" "$IMAGE"
  done
  printf 'wait\n'
}

# hyperfine's JSON → one markdown table; the first command is the reference of the ratio column.
table() {
  node -e '
const { results } = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const ms = (s) => (s * 1000).toFixed(0);
const ref = results[0].median;
console.log("| command | median ms | min ms | max ms | ratio |\n|---|---:|---:|---:|---:|");
for (const r of results) console.log(`| ${r.command} | ${ms(r.median)} | ${ms(r.min)} | ${ms(r.max)} | ${(r.median / ref).toFixed(2)}× |`);
' "$1"
}

bench() { # name, then hyperfine arguments
  local out="$work/$1.json"
  shift
  hyperfine --runs "$runs" --warmup 1 --export-json "$out" "$@" >/dev/null
  table "$out"
  echo
}

echo "## $(date -u +%Y-%m-%d) — $(nproc) cores, $(free -g | awk '/^Mem/{print $2}') GiB, $(uname -r)"
echo "node $(node --version), docker $(docker version --format '{{.Client.Version}} (daemon {{.Server.Version}})'), podman $(podman version --format '{{.Client.Version}}'), hyperfine $(hyperfine --version | awk '{print $2}'), $runs runs a command, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

for goal in $goals; do
  case $goal in
  1)
    echo "### 1. up, 3 containers, images present"
    pod_yaml 3 >"$work/pod3.yaml"
    docker_script 3 >"$work/docker3.sh"
    bench up3 \
      --command-name "docker run -d script, concurrent (3)" --prepare "$clean_docker" "bash $work/docker3.sh" \
      --command-name "podrun up (docker)" --prepare "$clean_docker" "$podrun up --runtime docker $work/pod3.yaml" \
      --command-name "podman kube play" --prepare "$clean_podman" "podman kube play $work/pod3.yaml" \
      --command-name "podrun up --runtime podman" --prepare "$clean_podman" "$podrun up --runtime podman $work/pod3.yaml" \
      --command-name "podrun up (docker), pod up and unchanged" --prepare "$clean_docker; $podrun up --runtime docker $work/pod3.yaml >/dev/null" "$podrun up --runtime docker $work/pod3.yaml"
    clean_all
    ;;
  2)
    echo "### 2. start-up"
    pod_yaml 50 >"$work/pod50.yaml"
    bench startup -N \
      --command-name "node -e 0" "node -e 0" \
      --command-name "podrun --version" "$podrun --version" \
      --command-name "podrun validate (50 containers)" "$podrun validate $work/pod50.yaml"
    ;;
  3)
    echo "### 3. scaling: up against the concurrent script of the same size"
    for n in 1 5 10 20; do
      pod_yaml "$n" >"$work/pod$n.yaml"
      docker_script "$n" >"$work/docker$n.sh"
      echo "#### $n containers"
      bench "scale$n" \
        --command-name "docker run -d script, concurrent ($n)" --prepare "$clean_docker" "bash $work/docker$n.sh" \
        --command-name "podrun up (docker, $n)" --prepare "$clean_docker" "$podrun up --runtime docker $work/pod$n.yaml"
    done
    clean_all
    ;;
  4)
    echo "### 4. pulls: four distinct images from the loopback registry"
    # Four images of ~16 MiB of random data each on busybox, pushed once; removed locally before each run.
    images=()
    for i in 1 2 3 4; do
      ref="$REGISTRY/podrun-bench/pull$i:1"
      images+=("$ref")
      if ! curl -sf -o /dev/null -H 'Accept: application/vnd.docker.distribution.manifest.v2+json' "http://$REGISTRY/v2/podrun-bench/pull$i/manifests/1"; then
        mkdir -p "$work/img$i"
        head -c 16777216 /dev/urandom >"$work/img$i/blob"
        printf 'FROM %s\nCOPY blob /blob\n' "$IMAGE" >"$work/img$i/Dockerfile"
        docker build -q -t "$ref" "$work/img$i" >/dev/null 2>&1
        docker push -q "$ref" >/dev/null
      fi
    done
    pod_yaml 4 "${images[*]}" >"$work/pull4.yaml"
    drop="$clean_docker; docker rmi -f ${images[*]} >/dev/null 2>&1 || true; rm -rf $PODRUN_STATE_DIR"
    bench pulls \
      --command-name "podrun up, 4 images, serialized pulls" --prepare "$drop" "$podrun up --runtime docker $work/pull4.yaml" \
      --command-name "podrun up, 4 images, --parallel-pulls 4" --prepare "$drop" "$podrun up --runtime docker --parallel-pulls 4 $work/pull4.yaml"
    clean_all
    ;;
  5)
    echo "### 5. down, 3 containers, grace period 0"
    pod_yaml 3 >"$work/pod3.yaml"
    # What podrun removes, in one command: the containers and the sandbox.
    printf '#!/usr/bin/env bash\nset -e\ndocker rm -f default_bench_c0 default_bench_c1 default_bench_c2 default_bench_POD >/dev/null\n' >"$work/rm.sh"
    up="$clean_docker; $podrun up --runtime docker $work/pod3.yaml >/dev/null"
    bench down \
      --command-name "docker rm -f script" --prepare "$up" "bash $work/rm.sh" \
      --command-name "podrun down --grace-period 0" --prepare "$up" "$podrun down --runtime docker --grace-period 0 $work/pod3.yaml"
    clean_all
    ;;
  esac
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
