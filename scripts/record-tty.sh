#!/usr/bin/env bash
# A text recording of a command on a real terminal: runs it in a detached tmux pane (so stdout is
# a TTY and podrun draws its live view), snapshots the pane every 0.3 s with capture-pane, and
# prints each snapshot that differs from the one before, stamped with the time since the start.
# Usage: scripts/record-tty.sh 'node bin/podrun.js up --wait examples/web-sidecar.yaml'
# Needs tmux (apt-get install tmux).
set -euo pipefail
command -v tmux >/dev/null || { echo "record-tty: tmux is not installed (apt-get install tmux)" >&2; exit 2; }
[ $# -ge 1 ] || { echo "usage: record-tty.sh COMMAND" >&2; exit 2; }
session="podrun-rec-$$"
done_file="$(mktemp)"
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -f "$done_file"' EXIT
tmux new-session -d -s "$session" -x 150 -y 40 -c "$PWD"
tmux send-keys -t "$session" "clear; $1; echo \"[exit \$?]\" > $done_file" Enter
start=$(date +%s.%N)
previous=""
while :; do
  frame="$(tmux capture-pane -p -t "$session" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')"
  if [ "$frame" != "$previous" ]; then
    printf -- '--- %ss ---\n%s\n' "$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.1f", a - b }')" "$frame"
    previous="$frame"
  fi
  if [ -s "$done_file" ]; then
    sleep 0.3
    frame="$(tmux capture-pane -p -t "$session" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')"
    [ "$frame" != "$previous" ] && printf -- '--- end ---\n%s\n' "$frame"
    cat "$done_file"
    break
  fi
  sleep 0.3
done
