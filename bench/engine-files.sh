#!/usr/bin/env bash
# What copying a pod's files through the engine costs (issue 27), against the simulated VM
# engines of scripts/test-env.sh: `podrun up` then `down` of one pod with a ConfigMap, a Secret and
# an emptyDir, its state directory either shared with the engine (bind mounts, as on a VM that
# shares your home) or under vm-hidden, which the engine cannot see (copies into an engine
# volume: one helper run for the files, one for the hosts file). The disk check's answer is
# kept, as on a second run. Each figure is hyperfine's mean.
#   bash bench/engine-files.sh [runs]   (as root, after scripts/test-env.sh)
set -euo pipefail
RUNS=${1:-10}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HOME_DIR=${PODRUN_TEST_HOME:-/var/lib/podrun-test}
BUSYBOX=$(sed -n 's/.*"busybox": "\([^"]*\)".*/\1/p' "$HOME_DIR/env.json")
VM_DOCKER=$(sed -n 's/.*"vmDocker": {"host": "\([^"]*\)".*/\1/p' "$HOME_DIR/env.json")
VM_PODMAN=$(sed -n 's/.*"vmPodman": {"host": "\([^"]*\)".*/\1/p' "$HOME_DIR/env.json")
HIDDEN=$(sed -n 's/.*"vmHiddenDir": "\([^"]*\)".*/\1/p' "$HOME_DIR/env.json")
WORK=$(mktemp -d)
SHARED_STATE=$(mktemp -d)
HIDDEN_STATE=$(mktemp -d "$HIDDEN/bench-XXXX")
trap 'rm -rf "$WORK" "$SHARED_STATE" "$HIDDEN_STATE"' EXIT
PODRUN="node $ROOT/bin/podrun.js"

cat >"$WORK/pod.yaml" <<YAML
apiVersion: v1
kind: ConfigMap
metadata: {name: bench-config}
data: {greeting: hello, app.conf: "port=8080"}
---
apiVersion: v1
kind: Secret
metadata: {name: bench-secret}
stringData: {password: s3cret}
---
apiVersion: v1
kind: Pod
metadata: {name: bench-files}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: app
    image: $BUSYBOX
    command: [sleep, "3600"]
    volumeMounts:
    - {name: config, mountPath: /etc/config}
    - {name: secret, mountPath: /etc/secret}
    - {name: work, mountPath: /work}
  volumes:
  - {name: config, configMap: {name: bench-config}}
  - {name: secret, secret: {secretName: bench-secret}}
  - {name: work, emptyDir: {}}
YAML

bench() {
  local runtime=$1 variable=$2 host=$3
  local cycle="$PODRUN up --runtime $runtime $WORK/pod.yaml >/dev/null && $PODRUN down --runtime $runtime --grace-period 0 $WORK/pod.yaml >/dev/null"
  # The disk checks, made once before the timed runs (their answers are kept an hour).
  for state in "$SHARED_STATE" "$HIDDEN_STATE"; do
    env "$variable=$host" PODRUN_STATE_DIR="$state" $PODRUN version --runtime "$runtime" | grep '^files:'
  done
  hyperfine --shell=bash --style basic --runs "$RUNS" --warmup 1 --export-markdown "$WORK/$runtime.md" \
    -n "$runtime: files bind-mounted (shared state directory)" "export $variable=$host PODRUN_STATE_DIR=$SHARED_STATE; $cycle" \
    -n "$runtime: files copied through the engine" "export $variable=$host PODRUN_STATE_DIR=$HIDDEN_STATE; $cycle" >/dev/null
  cat "$WORK/$runtime.md"
}

bench docker DOCKER_HOST "$VM_DOCKER"
bench podman CONTAINER_HOST "$VM_PODMAN"
