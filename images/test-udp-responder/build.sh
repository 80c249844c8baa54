#!/usr/bin/env bash
# Builds the UDP test server of the end-to-end tests (main.go: a DNS responder that answers with
# its pod's IP) and imports it as an image into docker or podman, offline: the program uses Go's
# standard library only, so nothing is downloaded. scripts/test-env.sh runs it and pushes the image
# to the open test registry, where pods pull it as they pull the busybox image.
#
#   images/test-udp-responder/build.sh docker|podman [IMAGE]   # IMAGE: 127.0.0.1:5100/podrun-test/udp-responder:0.1.0
#   images/test-udp-responder/build.sh --hash                  # the source hash the image is labelled with
#
# The image holds one static file, /test-udp-responder (FROM scratch), as the Service proxy's does
# (images/service-proxy/build.sh, which this follows). Its label io.podrun.source-hash is a hash of
# the sources, so scripts/test-env.sh can tell an image that is up to date from one to rebuild.
set -euo pipefail

DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEFAULT_IMAGE=127.0.0.1:5100/podrun-test/udp-responder:0.1.0
LABEL=io.podrun.source-hash

source_hash() {
  (cd "$DIR" && LC_ALL=C sha256sum go.mod build.sh $(LC_ALL=C ls *.go | grep -v '_test\.go$') | sha256sum | cut -c1-16)
}

if [[ ${1:-} == --hash ]]; then
  source_hash
  exit 0
fi
ENGINE=${1:-}
IMAGE=${2:-$DEFAULT_IMAGE}
[[ $ENGINE == docker || $ENGINE == podman ]] || { echo "usage: $0 docker|podman [IMAGE] | --hash" >&2; exit 2; }

ROOTFS=$(mktemp -d)
trap 'rm -rf "$ROOTFS"' EXIT
# -trimpath and no build ID: the same sources give the same binary on any machine.
(cd "$DIR" && CGO_ENABLED=0 GOOS=linux GOPROXY=off GOFLAGS=-mod=mod \
  go build -trimpath -ldflags "-s -w -buildid=" -o "$ROOTFS/test-udp-responder" .)
tar --numeric-owner --owner=0 --group=0 -C "$ROOTFS" -c . |
  "$ENGINE" import -c 'ENTRYPOINT ["/test-udp-responder"]' -c "LABEL $LABEL=$(source_hash)" - "$IMAGE" >/dev/null
echo "built $IMAGE into $ENGINE ($(stat -c %s "$ROOTFS/test-udp-responder") bytes, source $(source_hash))"
