#!/usr/bin/env bash
# How long one connection to a pod takes when the pod's address is not reachable from this host
# (issue 27), by each way through the engine, against the simulated VM of scripts/test-env.sh (a
# dockerd in a network namespace of its own) and against this host's docker and podman:
#   direct    this host connects to the pod's address (local engines only: the baseline)
#   exec      `exec -i` into one helper container on the pod network, which relays the connection
#   run       `run --rm -i` of a helper container per connection, on the pod network
#   sandbox   `run --rm -i --network container:<sandbox>`: a helper in the pod's own namespace
# The helper relays with busybox's nc; podrun's would be its own static binary. Each figure is
# hyperfine's mean of a TCP connect + one HTTP request/response through the relay.
#   bash bench/engine-dial.sh [runs]   (as root, after scripts/test-env.sh)
set -euo pipefail
RUNS=${1:-20}
HOME_DIR=${PODRUN_TEST_HOME:-/var/lib/podrun-test}
BUSYBOX=$(sed -n 's/.*"busybox": "\([^"]*\)".*/\1/p' "$HOME_DIR/env.json")
VM_HOST=$(sed -n 's/.*"vmDocker": {"host": "\([^"]*\)".*/\1/p' "$HOME_DIR/env.json")
NAME=podrun-bench-dial-$$

bench_engine() {
  local label=$1 engine=$2 network=$3
  shift 3
  local cli=("$engine" "$@")
  "${cli[@]}" network inspect "$network" >/dev/null 2>&1 || "${cli[@]}" network create "$network" >/dev/null
  "${cli[@]}" run -d --name "$NAME-pod" --network "$network" "$BUSYBOX" \
    sh -c 'mkdir /www && echo ok > /www/index.html && exec httpd -f -p 8080 -h /www' >/dev/null
  "${cli[@]}" run -d --name "$NAME-helper" --network "$network" "$BUSYBOX" sleep 3600 >/dev/null
  local ip
  ip=$("${cli[@]}" inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$NAME-pod")
  local request="printf 'GET / HTTP/1.0\\r\\n\\r\\n'"
  local commands=(
    -n "$label exec" "$request | ${cli[*]} exec -i $NAME-helper nc $ip 8080"
    -n "$label run" "$request | ${cli[*]} run --rm -i --network $network $BUSYBOX nc $ip 8080"
    -n "$label sandbox" "$request | ${cli[*]} run --rm -i --network container:$NAME-pod $BUSYBOX nc 127.0.0.1 8080"
  )
  [[ $label == vm* ]] || commands=(-n "$label direct" "curl -s -m 2 http://$ip:8080/" "${commands[@]}")
  hyperfine --shell=bash --style basic --runs "$RUNS" --warmup 2 --export-markdown "/tmp/$NAME-$label.md" "${commands[@]}" >/dev/null
  cat "/tmp/$NAME-$label.md"
  "${cli[@]}" rm -f "$NAME-pod" "$NAME-helper" >/dev/null
  rm -f "/tmp/$NAME-$label.md"
}

bench_engine "vm-docker" docker podrun -H "$VM_HOST"
bench_engine "docker" docker podrun
bench_engine "podman" podman podrun
