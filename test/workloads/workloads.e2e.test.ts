import t from "tap";
import { engineBlind } from "../harness/engine.js";
import { deploymentCase, hostPortCase, replicaSetCase, statefulSetCase } from "./workload-cases.js";

// Deployments, StatefulSets and ReplicaSets (the cases: workload-cases.ts), on podman: their
// controllers are engine-blind (engineBlind says why one engine does).

for (const runtime of engineBlind("podman")) {
  t.test(
    `${runtime}: a Deployment of 2 in a directory with a Service and a ConfigMap; re-up keeps it, a template change replaces it`,
    (t) => deploymentCase(t, runtime),
  );
  t.test(`${runtime}: replicas 2 with a hostPort: the second pod stays Pending`, (t) => hostPortCase(t, runtime));
  t.test(
    `${runtime}: a StatefulSet of 2 with volumeClaimTemplates starts in order, its data outlives down and up`,
    (t) => statefulSetCase(t, runtime),
  );
  t.test(`${runtime}: a ReplicaSet of 2: named by its controller's rule, kept by re-up, removed by down rs/NAME`, (t) =>
    replicaSetCase(t, runtime),
  );
}
