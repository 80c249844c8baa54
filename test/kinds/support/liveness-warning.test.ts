import t from "tap";
import { formatFieldError, type FieldError } from "../../../lib/manifest/field-error.js";
import { findLivenessProbes, LIVENESS_WARNING } from "../../../lib/kinds/support/liveness-warning.js";
import { findIgnoredFields } from "../../../lib/kinds/support/support.js";

// The one Warning line about livenessProbe (probed only while `up --wait` waits), as the support
// check reports it: one line for every container that has one, at the first.

const warnings = (spec: unknown): string[] => {
  const found: FieldError[] = [];
  findIgnoredFields({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec }, (w) => found.push(w));
  return found.map((w) => `${[w.path, ...(w.others ?? [])].map((p) => p.display).join(", ")}: ${w.detail}`);
};
const probe = { exec: { command: ["true"] } };

t.test("no livenessProbe: no Warning", async (t) => {
  t.same(
    warnings({
      containers: [
        { name: "a", image: "x", readinessProbe: probe },
        { name: "b", image: "x" },
      ],
    }),
    [],
  );
});

t.test("one line naming every container with a livenessProbe, sidecars first (init order), at the first", async (t) => {
  t.same(
    warnings({
      initContainers: [{ name: "s", image: "x", restartPolicy: "Always", livenessProbe: probe }],
      containers: [
        { name: "a", image: "x" },
        { name: "b", image: "x", livenessProbe: probe },
        { name: "c", image: "x", livenessProbe: probe },
      ],
    }),
    [
      `spec.initContainers[0].livenessProbe, spec.containers[1].livenessProbe, spec.containers[2].livenessProbe: ${LIVENESS_WARNING}`,
    ],
  );
});

t.test("a Forbidden warning at the key, with the field named", async (t) => {
  const found: FieldError[] = [];
  findLivenessProbes({ containers: [{ name: "a", livenessProbe: probe }] }, (w) => found.push(w));
  t.equal(found.length, 1);
  t.equal(found[0]!.atKey, true);
  t.equal(found[0]!.others, undefined, "a single container: no others");
  t.equal(
    formatFieldError(found[0]!),
    "spec.containers[0].livenessProbe: Forbidden: probed only while `podrun up --wait` waits (a failure restarts the container, as the kubelet does): not probed once podrun returns",
  );
});
