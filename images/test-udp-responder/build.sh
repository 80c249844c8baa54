#!/usr/bin/env bash
# Builds the UDP test server of the end-to-end tests (main.go: a DNS responder that answers with
# its pod's IP) and imports it as an image into docker or podman, offline: the program uses Go's
# standard library only, so nothing is downloaded. scripts/test-env.sh runs it and pushes the image
# to the open test registry, where pods pull it as they pull the busybox image.
#
#   images/test-udp-responder/build.sh docker|podman [IMAGE]   # IMAGE: 127.0.0.1:5100/podrun-test/udp-responder:0.1.0
#   images/test-udp-responder/build.sh --hash                  # the source hash the image is labelled with
#
# The image holds one static file, /test-udp-responder (FROM scratch), made by
# ../build-static-image.sh, as the Service proxy's is.
set -euo pipefail

DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec bash "$DIR/../build-static-image.sh" "$DIR" test-udp-responder 127.0.0.1:5100/podrun-test/udp-responder:0.1.0 "$@"
