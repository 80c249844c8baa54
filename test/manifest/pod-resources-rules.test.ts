// The API server's checks of pod-level resources (validatePodResources, validatePodResourceConsistency),
// on the pod as its defaulting leaves it; cases after the upstream table of validation_test.go.
import t from "tap";
import { formatFieldError } from "../../lib/manifest/field-error.js";
import { buildObjectIndex, validatePod } from "../../lib/manifest/validate-objects.js";
import { checkManifest } from "../../lib/kinds/read-manifests.js";
import { manifestErrorLines } from "../harness/manifest-errors.js";

interface Spec {
  resources?: unknown;
  containers?: { resources?: unknown; name?: string }[];
  initContainers?: { resources?: unknown; name?: string; restartPolicy?: string }[];
}

function podLines(spec: Spec): string[] {
  const lines: string[] = [];
  const containers = (spec.containers ?? [{}]).map((c, i) => ({
    name: c.name ?? `c${i}`,
    image: "busybox:1.36",
    ...(c.resources ? { resources: c.resources } : {}),
  }));
  const initContainers = spec.initContainers?.map((c, i) => ({ name: c.name ?? `i${i}`, image: "busybox:1.36", ...c }));
  const body = {
    ...(spec.resources !== undefined ? { resources: spec.resources } : {}),
    containers,
    ...(initContainers ? { initContainers } : {}),
  };
  validatePod({ apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec: body }, buildObjectIndex([]), (e) =>
    lines.push(formatFieldError(e)),
  );
  return lines;
}

const cpuMem = (cpu: string, memory: string) => ({ cpu, memory });

t.test("names and quantities (validatePodResources)", async (t) => {
  const cases: [string, Spec, string[]][] = [
    [
      "cpu and memory, limits and requests",
      { resources: { limits: cpuMem("1", "1Gi"), requests: cpuMem("500m", "512Mi") } },
      [],
    ],
    ["requests only", { resources: { requests: cpuMem("1", "1Gi") } }, []],
    ["limits only (requests default to them)", { resources: { limits: cpuMem("1", "1Gi") } }, []],
    ["hugepages with memory", { resources: { limits: { memory: "1Gi", "hugepages-2Mi": "2Mi" } } }, []],
    [
      "a resource other than cpu, memory and hugepages",
      { resources: { limits: { cpu: "1", "ephemeral-storage": "1Gi" }, requests: { "nvidia.com/gpu": "1" } } },
      [
        'spec.resources.limits[ephemeral-storage]: Unsupported value: "ephemeral-storage": supported values: "cpu", "hugepages-", "memory"',
        'spec.resources.requests[nvidia.com/gpu]: Unsupported value: "nvidia.com/gpu": supported values: "cpu", "hugepages-", "memory"',
        "spec.resources.limits: Required value: Limit must be set for non overcommitable resources",
      ],
    ],
    [
      "negative quantities",
      { resources: { limits: { cpu: "-1" }, requests: { memory: "-1Mi" } } },
      [
        'spec.resources.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
        'spec.resources.requests[memory]: Invalid value: "-1Mi": must be greater than or equal to 0',
      ],
    ],
    [
      "a request above its limit",
      { resources: { limits: cpuMem("500m", "64Mi"), requests: cpuMem("1", "65Mi") } },
      [
        'spec.resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m',
        'spec.resources.requests: Invalid value: "65Mi": must be less than or equal to memory limit of 64Mi',
      ],
    ],
    ["the same value written two ways", { resources: { limits: { cpu: "0.5" }, requests: { cpu: "500m" } } }, []],
    [
      "a hugepages request unlike its limit",
      { resources: { limits: { memory: "1Gi", "hugepages-2Mi": "4Mi" }, requests: { "hugepages-2Mi": "2Mi" } } },
      ['spec.resources.requests: Invalid value: "2Mi": must be equal to hugepages-2Mi limit of 4Mi'],
    ],
    [
      "hugepages alone",
      { resources: { limits: { "hugepages-2Mi": "2Mi" } } },
      ["spec.resources: Forbidden: HugePages require cpu or memory"],
    ],
    [
      "claims",
      { resources: { claims: [{ name: "gpu" }], limits: { cpu: "1" } } },
      ["spec.resources.claims: Forbidden: claims cannot be set for Resources at pod-level"],
    ],
    ["an empty spec.resources", { resources: {} }, []],
  ];
  for (const [name, spec, expected] of cases) t.same(podLines(spec), expected, name);
});

t.test("pod and container resources agree (validatePodResourceConsistency)", async (t) => {
  const cases: [string, Spec, string[]][] = [
    [
      "aggregate container requests below the pod's requests",
      {
        resources: { requests: cpuMem("10", "10Mi") },
        containers: [{ resources: { requests: cpuMem("5", "5Mi") } }, { resources: { requests: cpuMem("4", "3Mi") } }],
      },
      [],
    ],
    [
      "aggregate container requests equal to the pod's requests",
      {
        resources: { requests: cpuMem("10", "10Mi") },
        containers: [{ resources: { requests: cpuMem("5", "5Mi") } }, { resources: { requests: cpuMem("5", "5Mi") } }],
      },
      [],
    ],
    [
      "aggregate container requests above the pod's requests",
      {
        resources: { requests: cpuMem("10", "10Mi") },
        containers: [{ resources: { requests: cpuMem("6", "5Mi") } }, { resources: { requests: cpuMem("5", "6Mi") } }],
      },
      [
        'spec.resources.requests[cpu]: Invalid value: "10": must be greater than or equal to aggregate container requests of 11',
        'spec.resources.requests[memory]: Invalid value: "10Mi": must be greater than or equal to aggregate container requests of 11Mi',
      ],
    ],
    [
      "a container request defaulted from its limit counts",
      { resources: { requests: { cpu: "1" } }, containers: [{ resources: { limits: { cpu: "1500m" } } }] },
      [
        'spec.resources.requests[cpu]: Invalid value: "1": must be greater than or equal to aggregate container requests of 1500m',
      ],
    ],
    [
      "each container's limit within the pod's limit",
      {
        resources: { limits: cpuMem("10", "10Mi") },
        containers: [
          { resources: { limits: cpuMem("10", "10Mi"), requests: cpuMem("5", "5Mi") } },
          { resources: { limits: cpuMem("5", "5Mi") } },
        ],
      },
      [],
    ],
    [
      "container limits within the pod's, but their defaulted requests add up above it",
      {
        resources: { limits: cpuMem("10", "10Mi") },
        containers: [{ resources: { limits: cpuMem("10", "10Mi") } }, { resources: { limits: cpuMem("5", "5Mi") } }],
      },
      [
        'spec.resources.requests: Invalid value: "15": must be less than or equal to cpu limit of 10',
        'spec.resources.requests: Invalid value: "15Mi": must be less than or equal to memory limit of 10Mi',
      ],
    ],
    [
      "a container's limit above the pod's limit",
      {
        resources: { limits: cpuMem("10", "10Mi"), requests: cpuMem("10", "10Mi") },
        containers: [{ resources: { limits: cpuMem("11", "11Mi"), requests: cpuMem("1", "1Mi") } }],
      },
      [
        'spec.containers[0].resources.limits[cpu]: Invalid value: "11": must be less than or equal to pod limits of 10',
        'spec.containers[0].resources.limits[memory]: Invalid value: "11Mi": must be less than or equal to pod limits of 10Mi',
      ],
    ],
    [
      "pod-level limits alone: requests default to the containers' sum, which may not pass the limit",
      {
        resources: { limits: { cpu: "1" } },
        containers: [{ resources: { requests: { cpu: "600m" } } }, { resources: { requests: { cpu: "600m" } } }],
      },
      ['spec.resources.requests: Invalid value: "1200m": must be less than or equal to cpu limit of 1'],
    ],
    [
      "init containers: the largest one counts, not their sum",
      {
        resources: { requests: { cpu: "2" } },
        containers: [{ resources: { requests: { cpu: "1" } } }],
        initContainers: [{ resources: { requests: { cpu: "2" } } }, { resources: { requests: { cpu: "2" } } }],
      },
      [],
    ],
    [
      "a sidecar runs beside the app containers and the later init containers",
      {
        resources: { requests: { cpu: "2" } },
        containers: [{ resources: { requests: { cpu: "1" } } }],
        initContainers: [
          { restartPolicy: "Always", resources: { requests: { cpu: "1" } } },
          { resources: { requests: { cpu: "1500m" } } },
        ],
      },
      [
        'spec.resources.requests[cpu]: Invalid value: "2": must be greater than or equal to aggregate container requests of 2500m',
      ],
    ],
    [
      "a resource requested by a container and not by the pod reads as zero",
      {
        resources: { requests: { cpu: "1" } },
        containers: [{ resources: { requests: { cpu: "1", memory: "64Mi" } } }],
      },
      [
        'spec.resources.requests[memory]: Invalid value: "0": must be greater than or equal to aggregate container requests of 64Mi',
      ],
    ],
    [
      "an init container's limit is not compared with the pod's",
      {
        resources: { limits: cpuMem("1", "64Mi") },
        containers: [{}],
        initContainers: [{ resources: { limits: { memory: "128Mi" }, requests: { memory: "32Mi" } } }],
      },
      [],
    ],
    [
      "no pod-level resources: container requests stand alone",
      { containers: [{ resources: { requests: cpuMem("64", "1Ti") } }] },
      [],
    ],
  ];
  for (const [name, spec, expected] of cases) t.same(podLines(spec), expected, name);
});

t.test("an error is one line with the file, the line and the field", async (t) => {
  const text = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  resources:
    limits:
      memory: 64Mi
  containers:
    - name: app
      image: busybox:1.36
      resources:
        limits:
          memory: 128Mi
        requests:
          memory: 32Mi
`;
  t.same(
    manifestErrorLines(() => checkManifest({ name: "pod.yaml", text })),
    [
      'pod.yaml:14:19: spec.containers[0].resources.limits[memory]: Invalid value: "128Mi": must be less than or equal to pod limits of 64Mi',
    ],
  );
});
