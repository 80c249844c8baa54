import t from "tap";
import { deploymentCase, hostPortCase, statefulSetCase } from "./workload-cases.js";

// Deployments and StatefulSets on podman (the cases: workload-cases.ts).

t.test(
  "podman: a Deployment and a ReplicaSet of 2 in a directory with a Service and a ConfigMap; re-up keeps them, a template change replaces the Deployment's, down rs/NAME",
  (t) => deploymentCase(t, "podman"),
);
t.test("podman: replicas 2 with a hostPort: the second pod stays Pending", (t) => hostPortCase(t, "podman"));
t.test("podman: a StatefulSet of 2 with volumeClaimTemplates starts in order, its data outlives down and up", (t) =>
  statefulSetCase(t, "podman"),
);
