import t from "tap";
import type { Pod } from "kubernetes-types/core/v1.js";
import type { PodRun } from "../../lib/apply/plan-objects.js";
import type { ManifestItem } from "../../lib/manifest/kind-hooks.js";
import { formatPodMark, formatUnschedulable } from "../../lib/output/up-lines.js";

// The lines `podrun up` prints beside a pod's outcome: where a dry run's pod begins, and a pod
// left Pending for its host port (as up.test.ts and up.e2e.test.ts expect them).

const pod: Pod = { metadata: { name: "web-0" }, spec: { containers: [] } };
const owner = { kind: "StatefulSet", name: "web" } as ManifestItem;

t.test("the dry run's mark of a pod", async (t) => {
  const cases: { run: PodRun; line: string }[] = [
    { run: { pod, source: "a.yaml" }, line: "# pod/web-0 (a.yaml)" },
    { run: { pod, source: "a.yaml", owner }, line: "# pod/web-0 (a.yaml, statefulset/web)" },
  ];
  for (const c of cases) t.equal(formatPodMark(c.run), c.line);
});

t.test("a pod whose host port is taken", async (t) => {
  t.equal(
    formatUnschedulable({ pod, source: "a.yaml" }, { ip: "0.0.0.0", port: 8080, protocol: "TCP" }),
    "pod/web-0 Pending: hostPort 0.0.0.0:8080/TCP is taken by an earlier pod of the set (FailedScheduling)",
  );
});
