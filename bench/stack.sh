#!/usr/bin/env bash
# Issue 25's stack bench: `podrun up --wait` and `podrun down` of bench/stack/ (5 Deployments of 1
# replica and a StatefulSet of 2, OrderedReady, every pod Ready 3 s after its container starts),
# against the floor on the same run, and `podman kube play` of the same objects. ROUNDS rounds an
# engine, each from a clean engine and a fresh state directory; prints every round, then a table of
# the medians (bench/RESULTS.md holds a run of it).
#
# The floor is what a careful script does with the same containers: `<engine> run -d` of every pod
# that may start at once, concurrently; each polled with its readiness command at the probe's
# period until it passes, the next pod of an OrderedReady StatefulSet started only then; then one
# `<engine> rm -f` of all of them. It has no sandboxes, no cluster network and no state: what podrun
# adds to that is its own cost. podman kube play does not wait for readiness and gets no ratio.
#
# Needs scripts/test-env.sh's environment (root), and the lock the e2e tests take:
#   flock /tmp/podrun-e2e.lock bash bench/stack.sh [docker|podman|both] [rounds]   (default: both 3)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# Close what the caller left open, flock's descriptor above all: podman's daemons (aardvark-dns,
# conmon) would inherit it and hold the lock long after this script ends. (fd 255 is the script.)
for fd in "/proc/$$/fd"/*; do
  fd=${fd##*/}
  if ((fd > 2 && fd < 255)); then eval "exec $fd>&-"; fi
done
engines="${1:-both}"
[[ $engines == both ]] && engines="docker podman"
rounds="${2:-3}"
for e in $engines; do
  [[ $e == docker || $e == podman ]] || { echo "usage: bash bench/stack.sh [docker|podman|both] [rounds]" >&2; exit 2; }
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench: rounds must be a positive number, not $rounds" >&2; exit 2; }
stack=bench/stack
ns=bench-stack             # the manifests' namespace: podrun's containers carry it as a label
label="podrun-bench=stack" # the floor's containers and kube play's pods
npm run --silent build
work=$(mktemp -d)
podrun=(node "$PWD/bin/podrun.js")

# podrun's cluster network is made by the first `up` and left by `down`, and podman kube play makes
# its own; each goes at the end only if this run made it and no container is left on it.
networks() { echo podrun; [[ $1 == podman ]] && echo podman-default-kube-network; true; }
declare -A had_network
for e in $engines; do
  for n in $(networks "$e"); do
    had_network[$e $n]=$("$e" network inspect "$n" >/dev/null 2>&1 && echo 1 || echo 0)
  done
done

clean() { # engine
  local e=$1 l
  if [[ $e == podman ]]; then
    # kube play's pods by their containers' label (`kube down` stops at the first pod that is missing).
    { podman ps -a --filter "label=$label" --format '{{.Pod}}' | grep . || true; podman pod ps -q --filter "name=^${ns}_"; } |
      sort -u | xargs -r podman pod rm -f -t 0 >/dev/null 2>&1 || true
  fi
  for l in "io.kubernetes.pod.namespace=$ns" "$label"; do
    "$e" ps -aq --filter "label=$l" | xargs -r "$e" rm -f -v >/dev/null 2>&1 || true
  done
}
# Ends every process below $1 (the floor's loops and the engine CLIs they run), by id, and waits
# for them: a `run -d` cut short may still make its container, which the clean-up must see.
descendants() {
  local c
  for c in $(ps -o pid= --ppid "$1"); do
    descendants "$c"
    echo "$c"
  done
}
stop_children() {
  local pids p i
  mapfile -t pids < <(descendants "$1")
  ((${#pids[@]})) || return 0
  kill "${pids[@]}" 2>/dev/null || true
  for p in "${pids[@]}"; do
    for ((i = 0; i < 50; i++)); do
      kill -0 "$p" 2>/dev/null || break
      sleep 0.1
    done
  done
}
clean_all() {
  trap "" INT TERM # a second Ctrl-C does not cut the clean-up short
  stop_children $$
  for e in $engines; do
    clean "$e"
    for n in $(networks "$e"); do
      if [[ ${had_network[$e $n]} == 0 && -z $("$e" ps -aq --filter "network=$n") ]]; then
        "$e" network rm "$n" >/dev/null 2>&1 || true
      fi
    done
  done
  rm -rf "$work"
}
trap clean_all EXIT
trap 'exit 130' INT TERM

now() { date +%s%3N; }
secs() { awk -v ms="$1" 'BEGIN { printf "%.1f", ms / 1000 }'; }
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
range() { printf '%s\n' "$@" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.1f–%.1f", lo / 1000, hi / 1000 }'; }

# The floor's pods and the kube play file, from the manifests.
node bench/stack-pods.mjs "$stack" "$work"

# One floor pod: run it, then probe it at its period (a probe that takes longer than the period
# delays the next, as the kubelet's worker does) until it passes, for 2 minutes at most.
# $1 engine, $2 the pod's directory.
floor_pod() {
  local e=$1 d=$2 c cmd probe tick deadline
  c="stack-floor_$(<"$d/name")"
  mapfile -d '' cmd <"$d/command"
  mapfile -d '' probe <"$d/probe"
  "$e" run -d --name "$c" --label "$label" --entrypoint "${cmd[0]}" "$(<"$d/image")" "${cmd[@]:1}" >/dev/null
  deadline=$(($(now) + 120000))
  while (($(now) < deadline)); do
    sleep "$(<"$d/period")" &
    tick=$!
    if "$e" exec "$c" "${probe[@]}" >/dev/null 2>&1; then
      kill "$tick" 2>/dev/null || true
      return
    fi
    wait "$tick"
  done
  echo "floor: $c not Ready in 2 minutes" >&2
  return 1
}
floor_up() { # engine
  local g d pids=() pid
  # The groups run in the background, where a script's jobs ignore Ctrl-C, and this shell's wait
  # would outlast it: end them here.
  trap 'stop_children $BASHPID; exit 130' INT TERM
  for g in "$work"/floor/*; do
    (for d in "$g"/*; do floor_pod "$1" "$d"; done) &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
}
floor_down() { # engine
  local ids force=(-f)
  [[ $1 == podman ]] && force+=(-t 0)
  mapfile -t ids < <("$1" ps -aq --filter "label=$label")
  "$1" rm "${force[@]}" "${ids[@]}" >/dev/null
}

# Prints the milliseconds one command took; its output goes to $work/log, shown if it fails.
timed() {
  local t0 rc=0
  t0=$(now)
  "$@" >"$work/log" 2>&1 || rc=$?
  ((rc != 130)) || return 130
  if ((rc != 0)); then
    echo "bench: failed: $*" >&2
    tail -20 "$work/log" >&2
    return 1
  fi
  echo $(($(now) - t0))
}

echo "## $(date -u +%Y-%m-%d) — $(nproc) cores, $(free -g | awk '/^Mem/{print $2}') GiB, $(uname -r)"
echo "node $(node --version), docker $(docker version --format '{{.Client.Version}} (daemon {{.Server.Version}})'), podman $(podman version --format '{{.Client.Version}}'), $rounds rounds an engine, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# ms["<engine> <measure>"]: the round's figures, space-separated.
declare -A ms
for e in $engines; do
  clean "$e"
  for ((r = 1; r <= rounds; r++)); do
    export PODRUN_STATE_DIR="$work/state-$e-$r"
    up=$(timed "${podrun[@]}" up --wait --runtime "$e" "$stack")
    down=$(timed "${podrun[@]}" down --runtime "$e" "$stack")
    clean "$e"
    fup=$(timed floor_up "$e")
    fdown=$(timed floor_down "$e")
    clean "$e"
    ms[$e up]+=" $up" ms[$e down]+=" $down" ms[$e fup]+=" $fup" ms[$e fdown]+=" $fdown"
    line="$e round $r: podrun up --wait $(secs "$up") s, down $(secs "$down") s; floor up $(secs "$fup") s, down $(secs "$fdown") s"
    if [[ $e == podman ]]; then
      play=$(timed podman kube play "$work/kube.yaml")
      kdown=$(timed podman kube down "$work/kube.yaml")
      clean "$e"
      ms[$e play]+=" $play" ms[$e kdown]+=" $kdown"
      line+="; kube play $(secs "$play") s, kube down $(secs "$kdown") s"
    fi
    echo "$line"
  done
done

# A measure's median and range ("—" when not measured), and the ratio of two medians.
cell() {
  local -a v
  read -ra v <<<"${ms[$1]:-}"
  if ((${#v[@]})); then echo "$(secs "$(median "${v[@]}")") ($(range "${v[@]}"))"; else echo "—"; fi
}
ratio() {
  local -a a b
  read -ra a <<<"${ms[$1]}"
  read -ra b <<<"${ms[$2]}"
  awk -v a="$(median "${a[@]}")" -v b="$(median "${b[@]}")" 'BEGIN { printf "%.2f×", a / b }'
}
echo
echo "median s (min–max) of $rounds rounds"
echo
echo "| engine | podrun up --wait | floor up | ratio | podrun down | floor down | ratio | kube play | kube down |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for e in $engines; do
  echo "| $e | $(cell "$e up") | $(cell "$e fup") | $(ratio "$e up" "$e fup") | $(cell "$e down") | $(cell "$e fdown") | $(ratio "$e down" "$e fdown") | $(cell "$e play") | $(cell "$e kdown") |"
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
