#!/bin/sh
# A CI job's test step for an image built in the job: build it, run the team's manifests with it
# in place of the released image, test, tear down. Run it as
#   ./ci.sh                   (docker build)
#   ENGINE=podman ./ci.sh     (podman build)
# No load step: the engine's image store, where the build wrote, is the one podrun runs from.
set -eu
ENGINE=${ENGINE:-docker}
export PODRUN_RUNTIME="$ENGINE"   # every podrun command below talks to the engine that built
PODRUN=${PODRUN:-podrun}
REVISION=${REVISION:-$(date +%s)}
IMAGE="localhost/build-ci-app:ci-$REVISION"
OVERRIDE="ghcr.io/example-org/app=$IMAGE"
cd "$(dirname "$0")"

$ENGINE build -t "$IMAGE" --build-arg "REVISION=$REVISION" .

cleanup() {
  status=$?
  if [ "$status" -ne 0 ]; then $PODRUN events --type Warning || true; fi
  $PODRUN down --image "$OVERRIDE" k8s/
  $ENGINE rmi "$IMAGE" >/dev/null
  exit "$status"
}
trap cleanup EXIT

$PODRUN up --wait --timeout 2m --image "$OVERRIDE" k8s/
# The test: the running app is this job's build.
$PODRUN exec deploy/build-ci-app -- wget -qO- http://127.0.0.1:8080/ | grep "app built at $REVISION"
echo "ci: passed"
