#!/usr/bin/env bash
# Builds podrun's Service proxy and imports it as an image into docker or podman, offline: the
# program uses Go's standard library only, so nothing is downloaded.
#
#   images/service-proxy/build.sh docker|podman [IMAGE]   # IMAGE: ghcr.io/podrun/service-proxy:0.1.0
#   images/service-proxy/build.sh --hash                  # the source hash the image is labelled with
#
# The image holds one static file, /service-proxy (FROM scratch), made by ../build-static-image.sh,
# whose label io.podrun.source-hash lets scripts/test-env.sh tell an image that is up to date. For
# an air-gapped CI: run it on a machine with Go, then `docker push` (or `docker save` / `docker
# load`) the result, or run it on the CI machine itself.
set -euo pipefail

DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec bash "$DIR/../build-static-image.sh" "$DIR" service-proxy ghcr.io/podrun/service-proxy:0.1.0 "$@"
