#!/usr/bin/env bash
# Builds one static Go program of images/ (standard library only, so offline) and imports it into
# docker or podman as an image that holds that one file (FROM scratch), as the pause image does.
# Each image's build.sh calls it with its directory, its program's name and its default image:
#
#   images/build-static-image.sh DIR NAME DEFAULT_IMAGE docker|podman [IMAGE]
#   images/build-static-image.sh DIR NAME DEFAULT_IMAGE --hash    # the source hash the image is labelled with
#
# The label io.podrun.source-hash is a hash of the sources (go.mod, the program's build.sh, this
# script, its non-test .go files; by relative names, so any clone gives the same hash), so scripts/test-env.sh can tell an image that is up to date from
# one to rebuild.
set -euo pipefail

DIR=$1 NAME=$2 DEFAULT_IMAGE=$3
shift 3
LABEL=io.podrun.source-hash

source_hash() {
  (cd "$DIR" && LC_ALL=C sha256sum go.mod build.sh ../build-static-image.sh $(LC_ALL=C ls *.go | grep -v '_test\.go$') | sha256sum | cut -c1-16)
}

if [[ ${1:-} == --hash ]]; then
  source_hash
  exit 0
fi
ENGINE=${1:-}
IMAGE=${2:-$DEFAULT_IMAGE}
[[ $ENGINE == docker || $ENGINE == podman ]] || { echo "usage: $DIR/build.sh docker|podman [IMAGE] | --hash" >&2; exit 2; }

ROOTFS=$(mktemp -d)
trap 'rm -rf "$ROOTFS"' EXIT
# -trimpath and no build ID: the same sources give the same binary on any machine.
(cd "$DIR" && CGO_ENABLED=0 GOOS=linux GOPROXY=off GOFLAGS=-mod=mod \
  go build -trimpath -ldflags "-s -w -buildid=" -o "$ROOTFS/$NAME" .)
tar --numeric-owner --owner=0 --group=0 -C "$ROOTFS" -c . |
  "$ENGINE" import -c "ENTRYPOINT [\"/$NAME\"]" -c "LABEL $LABEL=$(source_hash)" - "$IMAGE" >/dev/null
echo "built $IMAGE into $ENGINE ($(stat -c %s "$ROOTFS/$NAME") bytes, source $(source_hash))"
