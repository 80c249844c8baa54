#!/usr/bin/env bash
# Brings up everything podrun's tests need on one machine, offline, as root:
#   dockerd, podman, an open registry on 127.0.0.1:5100, an htpasswd registry on 127.0.0.1:5101,
#   127.0.0.1:5102 made plain HTTP for podman too (the fault registry of the tests listens there),
#   a busybox test image and the kubelet's default pause image (both built locally), podrun's
#   Service proxy image (built from images/service-proxy), the end-to-end tests' UDP server
#   (built from images/test-udp-responder), and
#   kubectl's YAML reader built from Debian's Go packages (scripts/k8s-yaml-reader), and
#   $PODRUN_TEST_HOME/env.json describing all of it for test/harness/env.ts.
# Safe to run again: each step checks first and only does what is missing.
# scripts/test-env-down.sh stops the daemons this script started.
set -euo pipefail

STATE=$(realpath -m "${PODRUN_TEST_HOME:-/var/lib/podrun-test}")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

OPEN=127.0.0.1:5100
AUTH=127.0.0.1:5101
# No daemon: test/harness/fault-registry.ts listens here during test/images/registry-faults.e2e.test.ts.
FAULT=127.0.0.1:5102
AUTH_USER=podrun
PASSWORD_FILE=$STATE/auth/password

BUSYBOX=$OPEN/podrun-test/busybox:1.36
BUSYBOX_LATEST=$OPEN/podrun-test/busybox:latest
PRIVATE_BUSYBOX=$AUTH/podrun-test/private-busybox:1.36
PAUSE=registry.k8s.io/pause:3.10
PAUSE_REMOTE=$OPEN/podrun-test/pause:3.10
# podrun's default Service proxy image, built from images/service-proxy, and its copy in the open registry.
SERVICE_PROXY=ghcr.io/podrun/service-proxy:0.1.0
SERVICE_PROXY_REMOTE=$OPEN/podrun-test/service-proxy:0.1.0
SERVICE_PROXY_BUILD=$ROOT/images/service-proxy/build.sh
# The tests' UDP server (a DNS responder), built from images/test-udp-responder; pods pull it from the open registry.
UDP_RESPONDER=$OPEN/podrun-test/udp-responder:0.1.0
UDP_RESPONDER_BUILD=$ROOT/images/test-udp-responder/build.sh
# The simulated VM engine (issue 27): a second dockerd in a network namespace of its own, reached
# through its socket. Its containers' addresses are not routable from this host and its published
# ports bind inside that namespace, as an engine in Docker Desktop's or Colima's VM is seen from
# the Mac. Its own subnets, so that no address of it is one of this host's networks either.
VM_NETNS=podrun-vm
VM_DOCKER_DIR=$STATE/vm-docker
VM_DOCKER_HOST=unix://$VM_DOCKER_DIR/docker.sock
# And a podman system service in the same namespace, with storage, networks and subnets of its own,
# used as a remote podman is (CONTAINER_HOST): podman machine's and `podman --remote`'s case.
VM_PODMAN_DIR=$STATE/vm-podman
VM_PODMAN_HOST=unix://$VM_PODMAN_DIR/podman.sock
# Both VM engines run in a mount namespace of their own with a tmpfs over this directory: a state
# directory under it is one the engine cannot see (a remote engine's case, or a VM that does not
# share it), while one elsewhere is shared with them (the VM engines' default of sharing the home).
VM_HIDDEN=$STATE/vm-hidden
# Rootless podman (issue 27): a user of its own, whose podman runs in a user namespace (subordinate
# ids 200000–265535), networks through slirp4netns, and holds busybox, pause and the Service proxy
# copied from root's podman. The tests run podrun as that user.
ROOTLESS_USER=podrun-rootless
ROOTLESS_UID=2345
# Local name of the imported busybox image; the registry names are tags of it.
BUSYBOX_LOCAL=podrun-test/busybox:1.36

PACKAGES=(docker.io docker-registry podman catatonit netavark aardvark-dns busybox-static apache2-utils curl gcc
  libc6-dev golang-go golang-k8s-sigs-yaml-dev uidmap slirp4netns)
# `-k` renders a kustomization with `kustomize build`, else `kubectl kustomize`: Debian's kubectl
# (kubernetes-client, which carries kustomize) when the machine has neither.
if ! command -v kustomize >/dev/null && ! command -v kubectl >/dev/null; then PACKAGES+=(kubernetes-client); fi
# Built from scripts/k8s-yaml-reader for the YAML differential test.
YAML_READER=$STATE/k8s-yaml-reader
# The Node.js majors podrun supports (package.json's engines): the suite runs on the newest, and
# the unit suite with a smoke test on each other (scripts/test.mjs). The npm registry serves each
# runtime as a package, node-linux-<arch>, so they install offline like any dependency.
NODE_MAJORS=(22 24)

START=$(date +%s.%N)
PUSHED=0       # set when this run pushed an image
ADDED_POLICY=0 # set while our /usr/sbin/policy-rc.d is in place
TMP=$(mktemp -d)
cleanup() {
  rm -rf "$TMP"
  if ((ADDED_POLICY)); then rm -f /usr/sbin/policy-rc.d; fi
}
trap cleanup EXIT

log() { echo "test-env: $*"; }
die() { echo "test-env: error: $*" >&2; exit 1; }
# Seconds since $1 (a `date +%s.%N` stamp), one decimal.
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1fs", b - a }'; }

# ---------------------------------------------------------------------------------------------
install_packages() {
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true) == "install ok installed" ]] || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    log "packages present"
    return
  fi
  local t=$(date +%s.%N)
  log "installing ${missing[*]}"
  # Keep package scripts from starting docker/registry services: this script starts its own.
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    ADDED_POLICY=1
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >"$TMP/apt.log" 2>&1 || { cat "$TMP/apt.log" >&2; die "apt-get update failed"; }
  apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$TMP/apt.log" 2>&1 ||
    { tail -n 40 "$TMP/apt.log" >&2; die "apt-get install failed"; }
  log "packages installed ($(since "$t"))"
}

# ---------------------------------------------------------------------------------------------
# Set `default_ulimits = []` in the [containers] table, keeping every other setting: podman's
# default nofile limit is above this machine's hard limit, so every container would fail.
configure_podman() {
  local conf=/etc/containers/containers.conf
  mkdir -p /etc/containers/registries.conf.d
  touch "$conf"
  awk '
    function flush_insert() { if (in_c && !done) { print "default_ulimits = []"; done = 1 } }
    skipping { if ($0 ~ /\]/) skipping = 0; next }
    /^[ \t]*\[/ {
      flush_insert()
      in_c = ($0 ~ /^[ \t]*\[containers\][ \t]*(#.*)?$/)
      if (in_c) seen = 1
      print; next
    }
    in_c && /^[ \t]*default_ulimits[ \t]*=/ {
      if (!done) { print "default_ulimits = []"; done = 1 }
      # A multi-line array: drop its remaining lines.
      if ($0 ~ /\[/ && $0 !~ /\]/) skipping = 1
      next
    }
    { print }
    END {
      flush_insert()
      if (!seen) { print ""; print "[containers]"; print "default_ulimits = []" }
    }
  ' "$conf" >"$TMP/containers.conf"
  if ! cmp -s "$TMP/containers.conf" "$conf"; then
    cat "$TMP/containers.conf" >"$conf"
    log "set default_ulimits = [] in $conf"
  fi

  configure_podman_network

  local dropin=/etc/containers/registries.conf.d/50-podrun-test.conf
  cat >"$TMP/registries.conf" <<EOF
# podrun test registries (scripts/test-env.sh): plain HTTP on loopback.
[[registry]]
location = "$OPEN"
insecure = true

[[registry]]
location = "$AUTH"
insecure = true

[[registry]]
location = "$FAULT"
insecure = true
EOF
  if ! cmp -s "$TMP/registries.conf" "$dropin"; then
    cp "$TMP/registries.conf" "$dropin"
    log "wrote $dropin"
  fi
}

# Services and cluster DNS need a network whose DNS answers names and aliases: podman's netavark
# backend with aardvark-dns (installed above). Without a setting podman 4.3 keeps CNI once CNI
# networks exist, so the backend is set in a drop-in. A backend switch strands what the old one
# made: the containers, pods and networks podman has (the tests' leftovers) are removed then.
configure_podman_network() {
  local dropin=/etc/containers/containers.conf.d/50-podrun-test.conf
  mkdir -p /etc/containers/containers.conf.d
  printf '# podrun tests (scripts/test-env.sh)\n[network]\nnetwork_backend = "netavark"\n' >"$TMP/network.conf"
  cmp -s "$TMP/network.conf" "$dropin" || cp "$TMP/network.conf" "$dropin"
  if [[ $(podman info --format '{{.Host.NetworkBackend}}' 2>/dev/null) != netavark ]]; then
    podman pod rm -af -t 0 >/dev/null 2>&1 || true
    podman rm -af -t 0 >/dev/null 2>&1 || true
    podman network prune -f >/dev/null 2>&1 || true
    podman system reset --force >/dev/null 2>&1 || die "podman system reset failed (switching to netavark)"
    [[ $(podman info --format '{{.Host.NetworkBackend}}') == netavark ]] || die "podman does not use netavark ($dropin)"
    log "podman switched to netavark + aardvark-dns"
  fi
  # CNI's bridge outlives the switch, with the route of the same default subnet (10.88.0.0/16)
  # that netavark's podman0 takes: the host would send the pods' traffic into the dead bridge.
  local link
  for link in $(ip -o link show | awk -F': ' '$2 ~ /^cni-podman[0-9]+$/ { print $2 }'); do
    ip link delete "$link" && log "removed CNI's leftover bridge $link"
  done
  # aardvark-dns answers a network on the addresses the first line of its file for that network
  # name lists. A podman killed while it set a container up (the kill suite does that) leaves the
  # container in the file after the network is gone; a network made anew under that name on
  # another subnet is then answered on the old gateway only, and no name resolves on it. With no
  # network of that name, the file is a leftover.
  local file
  for file in /run/containers/networks/aardvark-dns/*; do
    [[ -f $file && $(basename "$file") != aardvark.pid ]] || continue
    podman network exists "$(basename "$file")" 2>/dev/null && continue
    rm -f "$file" && log "removed aardvark-dns's leftover file for network $(basename "$file")"
  done
}

# ---------------------------------------------------------------------------------------------
docker_answers() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

# Does pid file $1 name a live (not zombie) process whose command line contains $2?
pid_file_alive() {
  local pid
  [[ -s $1 ]] || return 1
  pid=$(cat "$1")
  [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$2"
}

start_dockerd() {
  if docker_answers; then
    log "dockerd already running ($(docker version --format '{{.Server.Version}}'))"
    return
  fi
  local t=$(date +%s.%N) pid=""
  if pid_file_alive /var/run/docker.pid dockerd; then
    pid=$(cat /var/run/docker.pid)
    log "dockerd (pid $pid) is starting; waiting for it"
  else
    # A killed daemon leaves pid files behind, and their pids can stay zombies for a while.
    # dockerd refuses to start while docker.pid names a process that exists, and waits in
    # vain for a containerd whose pid exists: remove both files unless they name live daemons.
    rm -f /var/run/docker.pid
    pid_file_alive /var/run/docker/containerd/containerd.pid containerd || rm -f /var/run/docker/containerd/containerd.pid
    setsid nohup dockerd >>"$STATE/dockerd.log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$STATE/dockerd.pid"
  fi
  local i
  for ((i = 0; i < 120; i++)); do
    docker_answers && { log "dockerd ready ($(since "$t"))"; return; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  tail -n 20 "$STATE/dockerd.log" >&2 || true
  die "dockerd did not answer within 60s (log: $STATE/dockerd.log)"
}

vm_docker() { docker -H "$VM_DOCKER_HOST" "$@"; }
# Whether process $1 runs with the tmpfs over $VM_HIDDEN (an engine started before it did does not).
hides_vm_dir() { [[ -n $1 ]] && grep -q " $VM_HIDDEN " "/proc/$1/mountinfo" 2>/dev/null; }
vm_docker_answers() { vm_docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

# The simulated VM's dockerd. nsenter, not `ip netns exec`: the latter mounts a sysfs of its own,
# which hides the cgroup mounts dockerd needs. It starts a containerd of its own under its exec-root.
start_vm_dockerd() {
  if vm_docker_answers && hides_vm_dir "$(cat "$VM_DOCKER_DIR/docker.pid" 2>/dev/null)"; then
    log "vm dockerd already running"
    return
  fi
  # One started before it hid $VM_HIDDEN: stopped, to start again as it should be.
  if pid_file_alive "$VM_DOCKER_DIR/docker.pid" dockerd; then
    kill "$(cat "$VM_DOCKER_DIR/docker.pid")"
    for ((i = 0; i < 60; i++)); do pid_file_alive "$VM_DOCKER_DIR/docker.pid" dockerd || break; sleep 0.5; done
  fi
  local t=$(date +%s.%N) pid
  if [[ ! -e /run/netns/$VM_NETNS ]]; then
    ip netns add "$VM_NETNS"
    ip -n "$VM_NETNS" link set lo up
  fi
  mkdir -p "$VM_DOCKER_DIR/data" "$VM_DOCKER_DIR/exec"
  pid_file_alive "$VM_DOCKER_DIR/docker.pid" dockerd || rm -f "$VM_DOCKER_DIR/docker.pid"
  pid_file_alive "$VM_DOCKER_DIR/exec/containerd/containerd.pid" containerd ||
    rm -f "$VM_DOCKER_DIR/exec/containerd/containerd.pid"
  mkdir -p "$VM_HIDDEN"
  setsid nohup nsenter --net="/run/netns/$VM_NETNS" \
    unshare --mount --propagation private -- sh -c 'mount -t tmpfs tmpfs "$0" && shift && exec "$@"' "$VM_HIDDEN" sh \
    dockerd --data-root "$VM_DOCKER_DIR/data" \
    --exec-root "$VM_DOCKER_DIR/exec" --pidfile "$VM_DOCKER_DIR/docker.pid" -H "$VM_DOCKER_HOST" \
    --bip 10.213.0.1/24 --default-address-pool base=10.214.0.0/16,size=24 \
    >>"$STATE/vm-dockerd.log" 2>&1 </dev/null &
  pid=$!
  for ((i = 0; i < 120; i++)); do
    vm_docker_answers && { log "vm dockerd ready ($(since "$t"))"; return; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  tail -n 20 "$STATE/vm-dockerd.log" >&2 || true
  die "the vm dockerd did not answer within 60s (log: $STATE/vm-dockerd.log)"
}

# The images the simulated VM's tests run, copied into its engine $1 (vm_docker, vm_podman) from
# this host's $2 (docker, podman; $3…: its save flags), which it cannot pull from (the registries
# are on this host's loopback): those it lacks, and those rebuilt here since (by image ID).
vm_images() {
  local into=$1 from=$2 image missing=()
  for image in "$BUSYBOX" "$PAUSE" "$SERVICE_PROXY"; do
    [[ $($into image inspect --format '{{.Id}}' "$image" 2>/dev/null) == $($from image inspect --format '{{.Id}}' "$image") ]] ||
      missing+=("$image")
  done
  ((${#missing[@]} == 0)) && return
  $from save "${@:3}" "${missing[@]}" 2>/dev/null | $into load >/dev/null
  log "$into: loaded ${missing[*]}"
}

vm_podman() { CONTAINER_HOST=$VM_PODMAN_HOST podman --remote "$@"; }
vm_podman_answers() { vm_podman version --format '{{.Server.Version}}' >/dev/null 2>&1; }

start_vm_podman() {
  if vm_podman_answers && hides_vm_dir "$(cat "$VM_PODMAN_DIR/service.pid" 2>/dev/null)"; then
    log "vm podman service already running"
    return
  fi
  local old
  old=$(cat "$VM_PODMAN_DIR/service.pid" 2>/dev/null || true)
  if [[ -n $old ]] && kill -0 "$old" 2>/dev/null; then
    kill "$old"
    for ((i = 0; i < 60; i++)); do kill -0 "$old" 2>/dev/null || break; sleep 0.5; done
  fi
  local t=$(date +%s.%N) i
  mkdir -p "$VM_PODMAN_DIR/root" "$VM_PODMAN_DIR/run" "$VM_PODMAN_DIR/networks"
  # CONTAINERS_CONF replaces the machine's file: its default_ulimits (configure_podman) come along.
  cat >"$VM_PODMAN_DIR/containers.conf" <<'CONF'
[containers]
default_ulimits = []

[network]
network_backend = "netavark"
default_subnet = "10.215.0.0/16"
default_subnet_pools = [{"base" = "10.216.0.0/16", "size" = 24}]
CONF
  rm -f "$VM_PODMAN_DIR/podman.sock"
  # A rootful podman keeps netavark's run directory (its address allocations, aardvark-dns's files
  # per network name) at /run/containers/networks whatever its roots: in a mount namespace of its
  # own, a tmpfs there keeps this one's apart from this host's podman (both have a `podrun` network).
  mkdir -p /run/containers/networks "$VM_HIDDEN"
  CONTAINERS_CONF="$VM_PODMAN_DIR/containers.conf" setsid nohup nsenter --net="/run/netns/$VM_NETNS" \
    unshare --mount --propagation private -- \
    sh -c 'mount -t tmpfs tmpfs /run/containers/networks && mount -t tmpfs tmpfs "$0" && shift && exec "$@"' "$VM_HIDDEN" sh \
    podman --root "$VM_PODMAN_DIR/root" --runroot "$VM_PODMAN_DIR/run" \
    --network-config-dir "$VM_PODMAN_DIR/networks" system service --time=0 "$VM_PODMAN_HOST" \
    >>"$STATE/vm-podman.log" 2>&1 </dev/null &
  echo $! >"$VM_PODMAN_DIR/service.pid"
  for ((i = 0; i < 60; i++)); do
    vm_podman_answers && { log "vm podman service ready ($(since "$t"))"; return; }
    sleep 0.5
  done
  tail -n 20 "$STATE/vm-podman.log" >&2 || true
  die "the vm podman service did not answer within 30s (log: $STATE/vm-podman.log)"
}


# ---------------------------------------------------------------------------------------------
# Any HTTP status from GET /v2/ (200 open, 401 auth) means a registry is serving there.
registry_answers() {
  local code
  code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://$1/v2/" || true)
  [[ $code != 000 && -n $code ]]
}

ensure_password() {
  mkdir -p "$STATE/auth"
  chmod 700 "$STATE/auth"
  if [[ ! -s $PASSWORD_FILE ]]; then
    (umask 077 && head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 24 >"$PASSWORD_FILE")
    log "generated a password for $AUTH_USER in $PASSWORD_FILE"
  fi
  chmod 600 "$PASSWORD_FILE"
  # htpasswd reads the password from stdin (-i): it never appears in a process list.
  if [[ ! -s $STATE/auth/htpasswd || $PASSWORD_FILE -nt $STATE/auth/htpasswd ]]; then
    htpasswd -B -i -c "$STATE/auth/htpasswd" "$AUTH_USER" <"$PASSWORD_FILE" 2>/dev/null
    chmod 600 "$STATE/auth/htpasswd"
  fi
}

# $1 name (open|auth), $2 address
write_registry_config() {
  local name=$1 addr=$2 conf=$STATE/registry-$1.yml
  {
    cat <<EOF
version: 0.1
log:
  level: info
  formatter: text
  accesslog:
    disabled: false
storage:
  filesystem:
    rootdirectory: $STATE/registry-$name
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: $addr
  headers:
    X-Content-Type-Options: [nosniff]
EOF
    if [[ $name == auth ]]; then
      cat <<EOF
auth:
  htpasswd:
    realm: podrun-test
    path: $STATE/auth/htpasswd
EOF
    fi
  } >"$conf"
}

start_registry() {
  local name=$1 addr=$2
  write_registry_config "$name" "$addr"
  mkdir -p "$STATE/registry-$name"
  if registry_answers "$addr"; then
    log "registry $name already serving on $addr"
    return
  fi
  local t=$(date +%s.%N)
  # The registry writes its app and access log to stderr; tests count lines in this file.
  setsid nohup docker-registry serve "$STATE/registry-$name.yml" >>"$STATE/registry-$name.log" 2>&1 </dev/null &
  echo $! >"$STATE/registry-$name.pid"
  local i
  for ((i = 0; i < 40; i++)); do
    registry_answers "$addr" && { log "registry $name ready on $addr ($(since "$t"))"; return; }
    kill -0 "$(cat "$STATE/registry-$name.pid")" 2>/dev/null || break
    sleep 0.25
  done
  tail -n 20 "$STATE/registry-$name.log" >&2 || true
  die "registry $name did not answer on http://$addr/v2/ (log: $STATE/registry-$name.log)"
}

# ---------------------------------------------------------------------------------------------
# Is the manifest of $1 (host/repo:tag) in its registry? $2=auth sends credentials.
in_registry() {
  local ref=$1 host=${1%%/*} rest=${1#*/}
  local repo=${rest%:*} tag=${rest##*:}
  local args=(-s -o /dev/null -m 5 -w '%{http_code}' -I
    -H 'Accept: application/vnd.docker.distribution.manifest.v2+json'
    -H 'Accept: application/vnd.oci.image.manifest.v1+json'
    "http://$host/v2/$repo/manifests/$tag")
  local code
  if [[ ${2:-} == auth ]]; then
    # curl reads the user:password from its config on stdin, not from argv.
    code=$(printf 'user = "%s:%s"\n' "$AUTH_USER" "$(cat "$PASSWORD_FILE")" | curl -K - "${args[@]}" || true)
  else
    code=$(curl "${args[@]}" || true)
  fi
  [[ $code == 200 ]]
}

docker_has() { docker image inspect "$1" >/dev/null 2>&1; }

build_busybox() {
  local bb
  bb=$(command -v busybox || true)
  [[ -x /bin/busybox ]] && bb=/bin/busybox
  [[ -n $bb ]] || die "busybox not found (package busybox-static)"
  ldd "$bb" >/dev/null 2>&1 && die "$bb is dynamically linked; install busybox-static"
  local rootfs=$TMP/busybox-rootfs a
  mkdir -p "$rootfs"/{bin,etc,tmp,root,proc,sys,dev}
  chmod 1777 "$rootfs/tmp"
  cp "$bb" "$rootfs/bin/busybox"
  # Relative links, so they resolve inside the container rather than to the host's busybox.
  for a in $("$bb" --list); do
    [[ $a == busybox ]] || ln -sf busybox "$rootfs/bin/$a"
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
  tar --numeric-owner --owner=0 --group=0 -C "$rootfs" -c . |
    docker import -c 'ENV PATH=/bin' -c 'CMD ["sh"]' - "$BUSYBOX_LOCAL" >/dev/null
  log "built $BUSYBOX_LOCAL from $bb"
}

build_pause() {
  local rootfs=$TMP/pause-rootfs
  mkdir -p "$rootfs"
  gcc -Os -static -Wall -o "$rootfs/pause" "$ROOT/scripts/pause/pause.c"
  strip "$rootfs/pause"
  tar --numeric-owner --owner=0 --group=0 -C "$rootfs" -c . |
    docker import -c 'ENTRYPOINT ["/pause"]' - "$PAUSE" >/dev/null
  log "built $PAUSE from scripts/pause/pause.c"
}

# $1 local image, $2 its builder, then the registry refs it must be pushed to.
ensure_image() {
  local local_ref=$1 build=$2
  shift 2
  local ref missing=() kind
  for ref in "$@"; do
    kind=open
    [[ $ref == "$AUTH"/* ]] && kind=auth
    in_registry "$ref" "$kind" || missing+=("$ref")
  done
  if ! docker_has "$local_ref"; then
    # Prefer a copy already in the open registry over a rebuild, so digests stay stable.
    local src=""
    for ref in "$@"; do
      [[ $ref == "$OPEN"/* ]] && in_registry "$ref" open && { src=$ref; break; }
    done
    if [[ -n $src ]] && docker pull -q "$src" >/dev/null 2>&1; then
      docker tag "$src" "$local_ref"
      log "pulled $local_ref from $src"
    else
      "$build"
    fi
  fi
  for ref in "${missing[@]}"; do
    docker tag "$local_ref" "$ref"
    if [[ $ref == "$AUTH"/* ]]; then
      push_with_login "$ref"
      # Untag it locally so pull tests start from an image that is only in the auth registry.
      docker rmi "$ref" >/dev/null
    else
      docker push -q "$ref" >/dev/null
    fi
    log "pushed $ref"
    PUSHED=1
  done
  for ref in "$@"; do
    [[ $ref == "$OPEN"/* ]] && ! docker_has "$ref" && docker tag "$local_ref" "$ref"
  done
  return 0
}

# Log in with a throw-away DOCKER_CONFIG so no credentials are left in ~/.docker.
push_with_login() {
  local cfg
  cfg=$(mktemp -d "$TMP/docker-config.XXXX")
  # Its "credentials are stored unencrypted" warning is about this throw-away file: hide it.
  DOCKER_CONFIG=$cfg docker login -u "$AUTH_USER" --password-stdin "$AUTH" <"$PASSWORD_FILE" >"$TMP/login.log" 2>&1 ||
    { cat "$TMP/login.log" >&2; die "docker login $AUTH failed"; }
  DOCKER_CONFIG=$cfg docker push -q "$1" >/dev/null
  rm -rf "$cfg"
}

# The Service proxy image carries the hash of its sources (label io.podrun.source-hash): a tag
# whose label differs is out of date. $1 engine, $2 image; prints nothing when it is absent.
source_hash_of() {
  "$1" image inspect --format '{{index .Config.Labels "io.podrun.source-hash"}}' "$2" 2>/dev/null || true
}

build_service_proxy() {
  GOCACHE=$STATE/go-cache bash "$SERVICE_PROXY_BUILD" docker "$SERVICE_PROXY" >/dev/null ||
    die "building images/service-proxy failed"
  log "built $SERVICE_PROXY from images/service-proxy"
}

# As ensure_image, and rebuilt when the sources changed: the open registry's copy is used when it
# is current, else the image is built and pushed over it.
ensure_service_proxy() {
  local hash
  hash=$(bash "$SERVICE_PROXY_BUILD" --hash)
  if [[ $(source_hash_of docker "$SERVICE_PROXY") != "$hash" ]]; then
    if in_registry "$SERVICE_PROXY_REMOTE" open && docker pull -q "$SERVICE_PROXY_REMOTE" >/dev/null 2>&1 &&
      [[ $(source_hash_of docker "$SERVICE_PROXY_REMOTE") == "$hash" ]]; then
      docker tag "$SERVICE_PROXY_REMOTE" "$SERVICE_PROXY"
      log "pulled $SERVICE_PROXY from $SERVICE_PROXY_REMOTE"
    else
      build_service_proxy
    fi
  fi
  if [[ $(docker image inspect --format '{{.Id}}' "$SERVICE_PROXY_REMOTE" 2>/dev/null || true) != \
    "$(docker image inspect --format '{{.Id}}' "$SERVICE_PROXY")" ]] || ! in_registry "$SERVICE_PROXY_REMOTE" open; then
    docker tag "$SERVICE_PROXY" "$SERVICE_PROXY_REMOTE"
    docker push -q "$SERVICE_PROXY_REMOTE" >/dev/null
    log "pushed $SERVICE_PROXY_REMOTE"
    PUSHED=1
  fi
  log "$SERVICE_PROXY up to date (source $hash)"
}

# The same for the UDP test server, whose only name is its open-registry one: the registry's copy
# when its source hash is current, else a build, pushed.
ensure_udp_responder() {
  local hash push=0
  hash=$(bash "$UDP_RESPONDER_BUILD" --hash)
  in_registry "$UDP_RESPONDER" open || push=1
  if [[ $(source_hash_of docker "$UDP_RESPONDER") != "$hash" ]]; then
    if ((!push)) && docker pull -q "$UDP_RESPONDER" >/dev/null 2>&1 &&
      [[ $(source_hash_of docker "$UDP_RESPONDER") == "$hash" ]]; then
      log "pulled $UDP_RESPONDER"
    else
      GOCACHE=$STATE/go-cache bash "$UDP_RESPONDER_BUILD" docker "$UDP_RESPONDER" >/dev/null ||
        die "building images/test-udp-responder failed"
      log "built $UDP_RESPONDER from images/test-udp-responder"
      push=1
    fi
  fi
  if ((push)); then
    docker push -q "$UDP_RESPONDER" >/dev/null
    log "pushed $UDP_RESPONDER"
    PUSHED=1
  fi
  log "$UDP_RESPONDER up to date (source $hash)"
}

# ---------------------------------------------------------------------------------------------
podman_images() {
  local t=$(date +%s.%N) ref
  # After a push the registry holds new images: refresh podman's copies too.
  for ref in "$BUSYBOX" "$BUSYBOX_LATEST" "$PAUSE_REMOTE"; do
    if ((PUSHED)) || ! podman image exists "$ref"; then
      podman pull -q --tls-verify=false "$ref" >/dev/null
      log "podman pulled $ref"
    fi
  done
  if ((PUSHED)) || ! podman image exists "$PAUSE"; then
    podman tag "$PAUSE_REMOTE" "$PAUSE"
  fi
  if ((PUSHED)) || [[ $(source_hash_of podman "$SERVICE_PROXY") != "$(source_hash_of docker "$SERVICE_PROXY")" ]]; then
    podman pull -q --tls-verify=false "$SERVICE_PROXY_REMOTE" >/dev/null
    podman tag "$SERVICE_PROXY_REMOTE" "$SERVICE_PROXY"
    log "podman pulled $SERVICE_PROXY_REMOTE"
  fi
  if ((PUSHED)) || [[ $(source_hash_of podman "$UDP_RESPONDER") != "$(source_hash_of docker "$UDP_RESPONDER")" ]]; then
    podman pull -q --tls-verify=false "$UDP_RESPONDER" >/dev/null
    log "podman pulled $UDP_RESPONDER"
  fi
  podman run --rm "$BUSYBOX" true || die "podman cannot run a container (podman run --rm $BUSYBOX true)"
  log "podman ready ($(podman version --format '{{.Client.Version}}'), images present, run ok) ($(since "$t"))"
}

# ---------------------------------------------------------------------------------------------
# kubectl's YAML reader (sigs.k8s.io/yaml over go-yaml v2) from Debian's Go source packages, in
# GOPATH mode: no module download, nothing leaves the machine. Rebuilt only when its source is newer.
build_yaml_reader() {
  local src=$ROOT/scripts/k8s-yaml-reader
  if [[ -x $YAML_READER && ! $src/main.go -nt $YAML_READER ]]; then
    log "k8s-yaml-reader up to date"
    return
  fi
  local t=$(date +%s.%N)
  (cd "$src" && GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOCACHE=$STATE/go-cache \
    go build -o "$YAML_READER" .) || die "building $src failed"
  log "built $YAML_READER ($(since "$t"))"
}

write_env_json() {
  cat >"$TMP/env.json" <<EOF
{
  "registries": {"open": "$OPEN", "auth": "$AUTH"},
  "auth": {"username": "$AUTH_USER", "passwordFile": "$PASSWORD_FILE"},
  "images": {
    "busybox": "$BUSYBOX",
    "busyboxLatest": "$BUSYBOX_LATEST",
    "privateBusybox": "$PRIVATE_BUSYBOX",
    "pause": "$PAUSE",
    "pauseRemote": "$PAUSE_REMOTE",
    "serviceProxy": "$SERVICE_PROXY",
    "serviceProxyRemote": "$SERVICE_PROXY_REMOTE",
    "udpResponder": "$UDP_RESPONDER"
  },
  "runtimes": ["docker", "podman"],
  "logs": {"open": "$STATE/registry-open.log", "auth": "$STATE/registry-auth.log"},
  "yamlReader": "$YAML_READER",
  "vmDocker": {"host": "$VM_DOCKER_HOST", "netns": "$VM_NETNS"},
  "vmPodman": {"host": "$VM_PODMAN_HOST", "netns": "$VM_NETNS"},
  "vmHiddenDir": "$VM_HIDDEN",
  "rootlessPodman": {"user": "$ROOTLESS_USER", "uid": $ROOTLESS_UID, "home": "/home/$ROOTLESS_USER", "runtimeDir": "/run/user/$ROOTLESS_UID"},
  "nodes": {$(for major in "${NODE_MAJORS[@]}"; do printf '%s"%s": "%s"' "${sep:-}" "$major" "$STATE/node-$major/bin/node"; sep=", "; done)}
}
EOF
  cmp -s "$TMP/env.json" "$STATE/env.json" || cp "$TMP/env.json" "$STATE/env.json"
}

# ---------------------------------------------------------------------------------------------
# Each supported Node.js major in $STATE/node-<major>, from the npm registry's node-linux-<arch>
# package (one binary, no npm: the machine's npm runs under it). Kept while it is of that major.
install_node_runtimes() {
  local arch major dir version
  case $(uname -m) in
    x86_64) arch=x64 ;;
    aarch64) arch=arm64 ;;
    *) die "no node-linux package for $(uname -m)" ;;
  esac
  for major in "${NODE_MAJORS[@]}"; do
    dir=$STATE/node-$major
    version=$("$dir/bin/node" --version 2>/dev/null || true)
    if [[ $version == v$major.* ]]; then
      log "node $version present in $dir"
      continue
    fi
    local t=$(date +%s.%N)
    (cd "$TMP" && npm pack --silent "node-linux-$arch@$major" >/dev/null) || die "npm pack node-linux-$arch@$major failed"
    rm -rf "$dir.new" && mkdir -p "$dir.new"
    tar -xzf "$TMP"/node-linux-"$arch"-"$major".*.tgz -C "$dir.new" --strip-components=1 package/bin/node
    rm -f "$TMP"/node-linux-"$arch"-*.tgz
    rm -rf "$dir" && mv "$dir.new" "$dir"
    log "installed node $("$dir/bin/node" --version) in $dir ($(since "$t"))"
  done
}

# ---------------------------------------------------------------------------------------------
# `hostUsers: false` runs a podman pod with `--userns=auto`, which takes its ids from the ranges
# /etc/subuid and /etc/subgid give the user `containers` (podman's documented default).
configure_subids() {
  local file
  for file in /etc/subuid /etc/subgid; do
    touch "$file"
    if ! grep -q '^containers:' "$file"; then
      echo "containers:2147483647:2147483648" >>"$file"
      log "added a range for containers to $file"
    fi
  done
}

rootless() {
  runuser -u "$ROOTLESS_USER" -- env XDG_RUNTIME_DIR="/run/user/$ROOTLESS_UID" HOME="/home/$ROOTLESS_USER" "$@"
}

# The rootless podman's user, its subordinate ids, its runtime directory, and /dev/net/tun open to
# it (slirp4netns needs it; a machine that keeps it root's, as some sandboxes do, is given the
# usual 0666), then its images.
setup_rootless_podman() {
  local file image missing=()
  id -u "$ROOTLESS_USER" >/dev/null 2>&1 || {
    useradd -m -u "$ROOTLESS_UID" -s /bin/sh "$ROOTLESS_USER"
    log "added user $ROOTLESS_USER"
  }
  for file in /etc/subuid /etc/subgid; do
    grep -q "^$ROOTLESS_USER:" "$file" || echo "$ROOTLESS_USER:200000:65536" >>"$file"
  done
  install -d -m 0700 -o "$ROOTLESS_USER" -g "$ROOTLESS_USER" "/run/user/$ROOTLESS_UID"
  [[ -c /dev/net/tun ]] || { mkdir -p /dev/net && mknod -m 0666 /dev/net/tun c 10 200; }
  [[ $(stat -c %a /dev/net/tun) == 666 ]] || chmod 0666 /dev/net/tun
  for image in "$BUSYBOX" "$PAUSE" "$SERVICE_PROXY"; do
    [[ $(rootless podman image inspect --format '{{.Id}}' "$image" 2>/dev/null) == $(podman image inspect --format '{{.Id}}' "$image") ]] ||
      missing+=("$image")
  done
  if ((${#missing[@]} > 0)); then
    podman save -m "${missing[@]}" 2>/dev/null | rootless podman load >/dev/null 2>&1
    log "rootless podman: loaded ${missing[*]}"
  fi
  rootless podman run --rm --network none "$BUSYBOX" true >/dev/null 2>&1 ||
    die "rootless podman cannot run a container (as $ROOTLESS_USER: podman run --rm $BUSYBOX true)"
  log "rootless podman ready (user $ROOTLESS_USER)"
}

# ---------------------------------------------------------------------------------------------
[[ $(id -u) == 0 ]] || die "run as root (it installs packages and starts dockerd)"
mkdir -p "$STATE"
install_packages
configure_podman
configure_subids
start_dockerd
ensure_password
start_registry open "$OPEN"
start_registry auth "$AUTH"
ensure_image "$BUSYBOX_LOCAL" build_busybox "$BUSYBOX" "$BUSYBOX_LATEST" "$PRIVATE_BUSYBOX"
ensure_image "$PAUSE" build_pause "$PAUSE_REMOTE"
ensure_service_proxy
ensure_udp_responder
log "images in registries and docker"
podman_images
start_vm_dockerd
vm_images vm_docker docker
start_vm_podman
vm_images vm_podman podman -m
setup_rootless_podman
build_yaml_reader
install_node_runtimes
write_env_json
log "done in $(since "$START"); env: $STATE/env.json"
