#!/bin/sh
# A CI job's test step as written for kind and kubectl, unchanged but for the binary: run it as
#   ./ci.sh                      (kubectl, against a kind cluster)
#   KUBECTL=podrun ./ci.sh       (podrun, against docker or podman on this machine)
# It applies the manifests, waits for the rollout, the pods and the Job, checks the application
# through exec and a port-forward, prints the logs, describes the pods if anything failed, and
# deletes what it applied.
set -eu
KUBECTL=${KUBECTL:-kubectl}
PORT=${PORT:-18080}
cd "$(dirname "$0")"

cleanup() {
  status=$?
  [ -n "${FORWARD:-}" ] && kill "$FORWARD" 2>/dev/null || true
  if [ "$status" -ne 0 ]; then $KUBECTL describe pod -l app=kind-ci-api || true; fi
  $KUBECTL delete -f k8s/
  exit "$status"
}
trap cleanup EXIT

$KUBECTL apply -f k8s/
$KUBECTL rollout status deployment/kind-ci-api --timeout=120s
$KUBECTL wait --for=condition=ready pod -l app=kind-ci-api --timeout=120s
$KUBECTL wait --for=condition=complete job/kind-ci-migrate --timeout=120s

$KUBECTL exec deploy/kind-ci-api -- cat /www/index.html

$KUBECTL port-forward svc/kind-ci-api "$PORT:80" &
FORWARD=$!
for _ in $(seq 50); do curl -fsS "http://127.0.0.1:$PORT/" && break; sleep 0.2; done
curl -fsS "http://127.0.0.1:$PORT/"

$KUBECTL get pods -l app=kind-ci-api -o wide
$KUBECTL logs -l app=kind-ci-api --prefix
echo "ci: passed"
