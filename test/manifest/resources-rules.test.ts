// The API server's checks of a container's resource quantities (ValidateContainerResourceRequirements).
import t from "tap";
import { formatFieldError } from "../../lib/manifest/field-error.js";
import { buildObjectIndex, validatePod } from "../../lib/manifest/validate-objects.js";

const podLines = (resources: unknown, init = false): string[] => {
  const lines: string[] = [];
  const container = { name: "app", image: "busybox:1.36", resources };
  const spec = init
    ? { initContainers: [{ ...container, name: "init" }], containers: [{ name: "app", image: "busybox:1.36" }] }
    : { containers: [container] };
  validatePod({ apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec }, buildObjectIndex([]), (e) =>
    lines.push(formatFieldError(e)),
  );
  return lines;
};

t.test("resource quantities", async (t) => {
  t.same(
    podLines({ limits: { cpu: "500m", memory: "64Mi" }, requests: { cpu: "250m", memory: "64Mi" } }),
    [],
    "requests up to the limits",
  );
  t.same(podLines({ limits: { cpu: "0.5" }, requests: { cpu: "500m" } }), [], "the same value written two ways");
  t.same(podLines({ requests: { cpu: "8", memory: "1Ti" } }), [], "requests without limits");
  t.same(podLines({ limits: { cpu: "-1" }, requests: { memory: "-1Mi" } }), [
    'spec.containers[0].resources.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
    'spec.containers[0].resources.requests[memory]: Invalid value: "-1Mi": must be greater than or equal to 0',
  ]);
  t.same(podLines({ limits: { cpu: "500m", memory: "64Mi" }, requests: { cpu: "1", memory: 67108865 } }), [
    'spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m',
    'spec.containers[0].resources.requests: Invalid value: "67108865": must be less than or equal to memory limit of 64Mi',
  ]);
  t.same(
    podLines({ limits: { memory: "32Mi" }, requests: { memory: "64Mi" } }, true),
    [
      'spec.initContainers[0].resources.requests: Invalid value: "64Mi": must be less than or equal to memory limit of 32Mi',
    ],
    "init containers too",
  );
  t.same(podLines({ limits: { cpu: "1x" } }), [], "syntax is the structural checker's (schema.ts)");
  t.same(podLines("none"), [], "a value of the wrong type is the structural checker's");
});
