#!/usr/bin/env bash
# Stops the registries and the dockerd that scripts/test-env.sh started (for developers; CI does
# not need it). Leaves packages, images, registry storage and the password in place, so the next
# scripts/test-env.sh is quick. A daemon that test-env.sh did not start is left alone.
set -euo pipefail

STATE=${PODRUN_TEST_HOME:-/var/lib/podrun-test}

log() { echo "test-env-down: $*"; }

# $1 pid file, $2 what its command line must contain: a pid reused by another process is spared.
stop_pid_file() {
  local file=$1 expect=$2 pid i
  [[ -s $file ]] || return 0
  pid=$(cat "$file")
  if [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$expect"; then
    kill -TERM "$pid"
    for ((i = 0; i < 60; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "$expect (pid $pid) still running after 30s, killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    log "stopped $expect (pid $pid)"
  fi
  rm -f "$file"
}

stop_pid_file "$STATE/registry-open.pid" docker-registry
stop_pid_file "$STATE/registry-auth.pid" docker-registry
# dockerd stops its containers (and the containerd it started) on SIGTERM.
stop_pid_file "$STATE/dockerd.pid" dockerd
# The simulated VM's dockerd (its network namespace stays: the next test-env.sh reuses it).
stop_pid_file "$STATE/vm-docker/docker.pid" dockerd
stop_pid_file "$STATE/vm-podman/service.pid" podman
