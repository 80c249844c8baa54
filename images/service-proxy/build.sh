#!/usr/bin/env bash
# Builds podrun's Service proxy and imports it as an image into docker or podman, offline: the
# program uses Go's standard library only, so nothing is downloaded.
#
#   images/service-proxy/build.sh docker|podman [IMAGE]   # IMAGE: ghcr.io/podrun/service-proxy:0.1.0
#   images/service-proxy/build.sh --hash                  # the source hash the image is labelled with
#
# The image holds one static file, /service-proxy, as the pause image does (FROM scratch). Its
# label io.podrun.source-hash is a hash of the sources, so scripts/test-env.sh can tell an image
# that is up to date from one to rebuild. For an air-gapped CI: run it on a machine with Go, then
# `docker push` (or `docker save` / `docker load`) the result, or run it on the CI machine itself.
set -euo pipefail

DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEFAULT_IMAGE=ghcr.io/podrun/service-proxy:0.1.0
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
  go build -trimpath -ldflags "-s -w -buildid=" -o "$ROOTFS/service-proxy" .)
tar --numeric-owner --owner=0 --group=0 -C "$ROOTFS" -c . |
  "$ENGINE" import -c 'ENTRYPOINT ["/service-proxy"]' -c "LABEL $LABEL=$(source_hash)" - "$IMAGE" >/dev/null
echo "built $IMAGE into $ENGINE ($(stat -c %s "$ROOTFS/service-proxy") bytes, source $(source_hash))"
