import t from "tap";
import { deploymentCase, hostPortCase, replicaSetCase, statefulSetCase } from "./workload-cases.js";

// Deployments and StatefulSets on docker (the cases: workload-cases.ts).

t.test(
  "docker: a Deployment of 2 in a directory with a Service and a ConfigMap; re-up keeps it, a template change replaces it",
  (t) => deploymentCase(t, "docker"),
);
t.test("docker: replicas 2 with a hostPort: the second pod stays Pending", (t) => hostPortCase(t, "docker"));
t.test("docker: a StatefulSet of 2 with volumeClaimTemplates starts in order, its data outlives down and up", (t) =>
  statefulSetCase(t, "docker"),
);
t.test("docker: a ReplicaSet of 2: named by its controller's rule, kept by re-up, removed by down rs/NAME", (t) =>
  replicaSetCase(t, "docker"),
);
